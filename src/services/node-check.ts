import {readdir, readFile, stat} from 'node:fs/promises'
import {hostname} from 'node:os'
import {basename, extname, join} from 'node:path'

import {evaluateRules, type Subject} from '../engine/evaluate.js'
import type {LoadedRule} from '../engine/rule-loader.js'
import {UsageError} from '../util/errors.js'
import {BundleError, parseBundle} from '../facts/bundle.js'
import {NODE_FACTS} from '../facts/catalog.js'
import {FactSet} from '../facts/fact-set.js'
import {describeNode} from '../derive/node-description.js'
import {deriveNodeFacts} from '../facts/node-facts.js'
import type {GatePolicy} from '../planner/verdict.js'
import {type CollectorRun, runCollectorLocally} from '../sources/node/local.js'
import type {FleetProgress, SshProbeOptions, SshTarget} from '../sources/node/ssh/index.js'
import {type ProgressMode, type ProgressTask, runWithProgress} from '../cli/progress.js'
import {buildReport, type NodeReport, type NodeSource, type Report} from '../contract/report.js'
import {type GateFiles, loadRuleCatalog, readGateFiles, rulePlans, validateRuleSelection} from './rule-catalog.js'
import {type Severity} from '../contract/finding.js'

export interface NodeCheckOptions {
  /** Bundle files, folders of bundles, or `-` for standard input; empty (and no `ssh`) means this machine. */
  factsPaths: string[]
  /** Nodes to probe over SSH instead of this machine. */
  ssh?: {targets: SshTarget[]; probe: SshProbeOptions}
  /** Extra rule files or folders (--rules). */
  rulePaths: string[]
  skip: string[]
  severity: Map<string, Severity>
  policy: GatePolicy
  gateFiles?: GateFiles
  /** Bound on the local collector run (SSH probes carry their own, in `ssh.probe`). */
  timeoutSeconds: number
  progress?: ProgressMode
  readStdin?: () => Promise<string>
}

/** One node's facts and where they came from. */
export interface ProbedNode {
  source: NodeSource
  origin: string
  facts: FactSet
  reachable: boolean
  reason?: string
}

export async function runNodeCheck(options: NodeCheckOptions): Promise<Report> {
  const skip = new Set(options.skip)
  const run: {gate: Awaited<ReturnType<typeof readGateFiles>>; probed: ProbedNode[]; rules: LoadedRule[]} = {gate: {}, probed: [], rules: []}
  await runWithProgress(
    options.progress ?? 'silent',
    [
      {
        title: 'Load rules',
        async task(context, task) {
          context.rules = (await loadRuleCatalog(options.rulePaths)).filter((rule) => rule.scope === 'node')
          validateRuleSelection(context.rules, options.skip, options.severity)
          context.gate = await readGateFiles(context.rules, options.gateFiles ?? {})
          task.title = `Loaded ${context.rules.length} node rules`
        },
      },
      {
        title: options.factsPaths.length > 0 ? 'Read facts bundles' : options.ssh ? `Probe ${options.ssh.targets.length} node(s) over SSH` : 'Collect facts on this machine',
        async task(context, task) {
          if (options.factsPaths.length > 0) {
            context.probed = await readFactsBundles(options.factsPaths, options.readStdin ?? readStandardInput)
            rejectDuplicateNames(context.probed)
            task.title = `Read ${context.probed.length} facts bundle(s)`
          } else if (options.ssh) {
            context.probed = await probeFleet(options.ssh.targets, options.ssh.probe, options.progress ?? 'silent', task)
          } else {
            context.probed = [await probeThisMachine(options.timeoutSeconds)]
            task.title = 'Collected facts on this machine'
          }
        },
      },
    ],
    run,
  )

  const subjects: Subject[] = run.probed.map((node) => ({kind: 'Node', name: nodeName(node), facts: node.facts}))
  return buildReport({
    nodes: run.probed.map((node) => nodeReport(node)),
    findings: evaluateRules(run.rules, subjects, {skip, severity: options.severity}),
    evaluatedRules: run.rules.filter((rule) => !skip.has(rule.id)).length,
    skippedRules: options.skip,
    severityOverrides: options.severity,
    policy: options.policy,
    rulePlans: rulePlans(run.rules),
    ...run.gate,
  })
}

async function probeThisMachine(timeoutSeconds: number): Promise<ProbedNode> {
  return collectedNode('local', 'this machine', hostname(), await runCollectorLocally(timeoutSeconds * 1000))
}

/** A node from a collector run: its facts, or unreachable with why the run or its bundle failed. */
function collectedNode(source: NodeSource, origin: string, fallbackName: string, run: CollectorRun): ProbedNode {
  if (!run.ok) return unreachable(source, origin, fallbackName, run.reason ?? 'collector: failed')
  try {
    return {source, origin, facts: deriveNodeFacts(parseBundle(run.stdout), fallbackName), reachable: true}
  } catch (error) {
    if (!(error instanceof BundleError)) throw error
    return unreachable(source, origin, fallbackName, `collector: printed a malformed bundle (line ${error.line}: ${error.message})`)
  }
}

/**
 * Probes nodes over SSH: one ProbedNode per target, in the targets' order, with source `ssh` and
 * origin `user@host:port`. A node that could not be probed is unreachable, with a reason that
 * starts with its failure class (`auth: …`, `host-key: …`, `timeout: …`). A target's `name`, when
 * given, names the node; else the hostname the collector read does. Targets that resolve to the
 * same connection share one result. Throws a UsageError before any connection for a target,
 * key or configuration line that cannot be used.
 *
 * This is the seam for `kpx-check cluster --node-probe ssh`.
 */
export async function probeNodesOverSsh(targets: SshTarget[], options: SshProbeOptions): Promise<ProbedNode[]> {
  // ssh2 and the SSH machinery load only when SSH is used, so local and API runs start faster.
  const {runCollectorOverSsh} = await import('../sources/node/ssh/fleet.js')
  return runCollectorOverSsh(targets, options, (run) => {
    const node = collectedNode('ssh', run.origin, run.target.name ?? run.target.host, run)
    if (run.target.name) node.facts.set('node.name', run.target.name)
    if (run.sudoRefused) blameSudo(node.facts, run.sudoRefused)
    return node
  })
}

/** With --sudo refused, the collector ran as the login user: what it could not read without root says why. */
function blameSudo(facts: FactSet, refusal: string): void {
  for (const [path, why] of facts.unknownEntries()) {
    if (why.reason === 'permission-denied') facts.unknown(path, 'permission-denied', why.detail ? `${refusal}; ${why.detail}` : refusal)
  }
}

const PROGRESS_LINE_EVERY_MS = 5000

/** Probes over SSH with counts in the progress view: one report node per distinct connection. */
async function probeFleet(targets: SshTarget[], probe: SshProbeOptions, mode: ProgressMode, task: ProgressTask): Promise<ProbedNode[]> {
  const nodes = uniqueNodes(await probeWithProgress(targets, probe, mode, task))
  nameSharedHostnames(nodes)
  return nodes
}

/**
 * probeNodesOverSsh with counts in a listr task: live on a terminal, a line every few seconds in
 * logs. One ProbedNode per target, in the targets' order.
 */
export async function probeWithProgress(targets: SshTarget[], probe: SshProbeOptions, mode: ProgressMode, task: ProgressTask): Promise<ProbedNode[]> {
  let progress: FleetProgress = {succeeded: 0, failed: 0, remaining: targets.length}
  const counts = () => `${progress.succeeded} done, ${progress.failed} failed, ${progress.remaining} remaining`
  const title = task.title
  const ticker = mode === 'lines' ? setInterval(() => (task.output = counts()), PROGRESS_LINE_EVERY_MS) : undefined
  try {
    const nodes = await probeNodesOverSsh(targets, {
      ...probe,
      onProgress(update) {
        progress = update
        if (mode === 'live') task.title = `${title}: ${counts()}`
      },
    })
    task.title = `Probed ${new Set(nodes).size} node(s) over SSH: ${progress.succeeded} done, ${progress.failed} failed`
    return nodes
  } finally {
    clearInterval(ticker)
  }
}

/** Targets that resolved to one connection share one result; the report lists it once. */
function uniqueNodes(nodes: ProbedNode[]): ProbedNode[] {
  return [...new Set(nodes)]
}

/**
 * Over SSH, two targets can be one machine (an alias and its address) or clones that share a
 * hostname; each keeps its row, its name qualified by where it was reached.
 */
function nameSharedHostnames(nodes: ProbedNode[]): void {
  const counts = new Map<string, number>()
  for (const node of nodes) counts.set(nodeName(node), (counts.get(nodeName(node)) ?? 0) + 1)
  for (const node of nodes) {
    if (counts.get(nodeName(node))! > 1) node.facts.set('node.name', `${nodeName(node)} (${node.origin})`)
  }
}

/** A node that could not be probed: every fact unknown, with the reason. */
export function unreachable(source: NodeSource, origin: string, name: string, reason: string): ProbedNode {
  const facts = new FactSet().set('node.name', name)
  facts.unknownAll(
    NODE_FACTS.map((spec) => spec.path).filter((path) => path !== 'node.name'),
    'node-unreachable',
    reason,
  )
  return {source, origin, facts, reachable: false, reason}
}

async function readFactsBundles(paths: string[], readStdin: () => Promise<string>): Promise<ProbedNode[]> {
  const files: string[] = []
  const nodes: ProbedNode[] = []
  for (const path of paths) {
    if (path === '-') {
      nodes.push(bundleNode('standard input', 'stdin', await readStdin()))
      continue
    }

    const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`--facts ${path}: ${error.code === 'ENOENT' ? 'no such file or folder' : error.message}`, [
        'Pass a bundle file, a folder of bundles, or - for standard input.',
      ])
    })
    if (info.isDirectory()) {
      const entries = await readdir(path, {withFileTypes: true})
      const bundles = entries.filter((entry) => entry.isFile() && !entry.name.startsWith('.')).map((entry) => join(path, entry.name))
      if (bundles.length === 0) throw new UsageError(`--facts ${path}: the folder holds no bundle files`)
      files.push(...bundles.sort())
    } else {
      files.push(path)
    }
  }

  const texts = await Promise.all(
    files.map((file) =>
      readFile(file, 'utf8').catch((error: Error) => {
        throw new UsageError(`--facts ${file}: cannot read it: ${error.message}`)
      }),
    ),
  )
  return [...nodes, ...files.map((file, index) => bundleNode(file, basename(file, extname(file)), texts[index]))]
}

function bundleNode(origin: string, fallbackName: string, text: string): ProbedNode {
  try {
    return {source: 'facts', origin, facts: deriveNodeFacts(parseBundle(text), fallbackName), reachable: true}
  } catch (error) {
    if (!(error instanceof BundleError)) throw error
    throw new UsageError(`${origin}:${error.line}: not a kpx-check facts bundle: ${error.message}`, [
      'Write bundles with the collector: kpx-check collect | ssh NODE sh > NODE.facts',
      'Or see "Facts bundle format" in the README.',
    ])
  }
}

function nodeName(node: ProbedNode): string {
  return String(node.facts.get('node.name') ?? node.origin)
}

function rejectDuplicateNames(nodes: ProbedNode[]): void {
  const seen = new Map<string, string>()
  for (const node of nodes) {
    const name = nodeName(node)
    const earlier = seen.get(name)
    if (earlier) {
      throw new UsageError(`node "${name}" appears twice: in ${earlier} and in ${node.origin}`, [
        'Each bundle must describe a different node; drop the duplicate.',
      ])
    }

    seen.set(name, node.origin)
  }
}

function nodeReport(node: ProbedNode): NodeReport {
  return {
    ...describeNode(node.facts),
    name: nodeName(node),
    source: node.source,
    origin: node.origin,
    reachable: node.reachable,
    ...(node.reason === undefined ? {} : {reason: node.reason}),
  }
}

async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
