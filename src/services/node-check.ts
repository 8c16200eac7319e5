import {readdir, readFile, stat} from 'node:fs/promises'
import {hostname} from 'node:os'
import {basename, extname, join} from 'node:path'

import {evaluateRules, type Subject} from '../engine/evaluate.js'
import type {LoadedRule} from '../engine/rule-loader.js'
import type {Severity} from '../engine/rule-schema.js'
import {UsageError} from '../errors.js'
import {BundleError, parseBundle} from '../facts/bundle.js'
import {NODE_FACTS} from '../facts/catalog.js'
import {FactSet} from '../facts/fact-set.js'
import {deriveNodeFacts, describeNode} from '../facts/node-facts.js'
import type {GatePolicy} from '../planner/verdict.js'
import {runCollectorLocally} from '../probes/local.js'
import {type ProgressMode, runWithProgress} from '../report/progress.js'
import {buildReport, type NodeReport, type NodeSource, type Report} from '../report/report.js'
import {loadRuleCatalog, validateRuleSelection} from './rule-catalog.js'

export interface NodeCheckOptions {
  /** Bundle files, folders of bundles, or `-` for standard input; empty means this machine. */
  factsPaths: string[]
  /** Extra rule files or folders (--rules). */
  rulePaths: string[]
  skip: string[]
  severity: Map<string, Severity>
  policy: GatePolicy
  /** Bound on the local collector run. */
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
  const run: {probed: ProbedNode[]; rules: LoadedRule[]} = {probed: [], rules: []}
  await runWithProgress(
    options.progress ?? 'silent',
    [
      {
        title: 'Load rules',
        task(context, task) {
          context.rules = loadRuleCatalog(options.rulePaths).filter((rule) => rule.scope === 'node')
          validateRuleSelection(context.rules, options.skip, options.severity)
          task.title = `Loaded ${context.rules.length} node rules`
        },
      },
      {
        title: options.factsPaths.length > 0 ? 'Read facts bundles' : 'Collect facts on this machine',
        async task(context, task) {
          context.probed =
            options.factsPaths.length > 0
              ? await readFactsBundles(options.factsPaths, options.readStdin ?? readStandardInput)
              : [await probeThisMachine(options.timeoutSeconds)]
          rejectDuplicateNames(context.probed)
          task.title = options.factsPaths.length > 0 ? `Read ${context.probed.length} facts bundle(s)` : 'Collected facts on this machine'
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
  })
}

async function probeThisMachine(timeoutSeconds: number): Promise<ProbedNode> {
  const run = await runCollectorLocally(timeoutSeconds * 1000)
  const origin = 'this machine'
  if (run.ok) {
    try {
      return {source: 'local', origin, facts: deriveNodeFacts(parseBundle(run.stdout), hostname()), reachable: true}
    } catch (error) {
      if (!(error instanceof BundleError)) throw error
      return unreachable('local', origin, hostname(), `the collector printed a malformed bundle (line ${error.line}: ${error.message})`)
    }
  }

  return unreachable('local', origin, hostname(), run.reason ?? 'the collector failed')
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
