import type {Finding} from '../contract/finding.js'
import type {Report} from '../contract/report.js'
import {setBaselineFacts} from '../derive/node-baseline.js'
import {type DerivedNode, deriveProbedNodes, deriveWatchedNodes} from '../derive/node/probed-node.js'
import {distinctNodes, nodeName, nodeSubjects, probedNodeReport} from '../derive/subjects.js'
import {evaluateRules} from '../engine/evaluate.js'
import type {LoadedRule} from '../engine/rule-lint.js'
import type {Baseline} from '../planner/baseline.js'
import {buildReport} from '../planner/gate.js'
import {readFactsBundles} from '../sources/node/bundles.js'
import {type ProbedNode, probeThisMachine} from '../sources/node/node-probes.js'
import type {SshProbeOptions} from '../sources/ssh/options.js'
import type {SshTarget} from '../sources/ssh/target.js'
import {type CheckOptions, PER_NODE} from './check-options.js'
import {readGateFiles, refuseBaselineOfOtherNodes} from './gate-files.js'
import {type ProgressTask, runSilently, type StepRunner} from './progress.js'
import {loadRuleCatalog, rulePlans, validateRuleSelection} from './rule-catalog.js'
import {probeOverSshWithProgress} from './ssh-probe.js'
import {switchedNodeChecks} from './switched-node-checks.js'
import {throwIfInterrupted, waitForSecondRead} from './watch-wait.js'

export interface NodeCheckOptions extends CheckOptions {
  /** Bundle files, folders of bundles, or `-` for standard input; empty (and no `ssh`) means this machine. */
  factsPaths: string[]
  /** Nodes to probe over SSH instead of this machine. */
  ssh?: {targets: SshTarget[]; probe: SshProbeOptions}
  /** Bound on the local collector run (SSH probes carry their own, in `ssh.probe`). */
  timeoutSeconds: number
  progress?: StepRunner
  readStdin?: () => Promise<string>
  /** verify node --watch: run the collector twice, this many seconds apart (never on bundles: the command refuses it). */
  watchSeconds?: number
  /** Ends the watch's wait (Ctrl-C): the run then rejects with its reason. */
  signal?: AbortSignal
}

/** `kpx-check node`: the node rules on this machine, on bundles, or on nodes probed over SSH. */
export async function runNodeCheck(options: NodeCheckOptions): Promise<Report> {
  return (await evaluateNodes(options, {kind: 'node', select: (rule) => rule.scope !== 'cluster', adapt: (rules) => [...rules.filter((rule) => rule.scope === 'node'), ...switchedNodeChecks(rules, 'node')]})).report
}

/** One collector run on the nodes: this machine, or each SSH target (in the targets' order). */
async function probeNodes(options: NodeCheckOptions, task: ProgressTask): Promise<ProbedNode[]> {
  if (options.ssh) return probeOverSshWithProgress(options.ssh.targets, options.ssh.probe, task)
  const node = await probeThisMachine(options.timeoutSeconds)
  task.title = 'Collected facts on this machine'
  return [node]
}

/** Which rules a node run evaluates, and what it calls them. */
interface NodeRuleSelection {
  /** `node`, or `verify` (whose rules are about the nodes too). */
  kind: 'node' | 'verify'
  select: (rule: LoadedRule) => boolean
  /** What the run makes of the selected rules (node runs: the verify rules for switched nodes only). */
  adapt?: (rules: LoadedRule[]) => LoadedRule[]
}

/** The report of the selected rules on the nodes, with the nodes' facts and findings for what reads them further (verify's gate). */
export async function evaluateNodes(
  options: NodeCheckOptions,
  selection: NodeRuleSelection,
): Promise<{baseline?: Baseline; bySubject: ReadonlyMap<string, ReadonlyMap<string, Finding>>; probed: DerivedNode[]; report: Report}> {
  const run: {gate: Awaited<ReturnType<typeof readGateFiles>>; probed: DerivedNode[]; rules: LoadedRule[]} = {gate: {}, probed: [], rules: []}
  const progress = options.progress ?? runSilently
  await progress(
    [
      {
        title: 'Load rules',
        async task(context, task) {
          const selected = (await loadRuleCatalog(options.rulePaths)).filter((rule) => selection.select(rule))
          context.rules = selection.adapt ? selection.adapt(selected) : selected
          validateRuleSelection(context.rules, options.skip, options.severity)
          context.gate = await readGateFiles(context.rules, options.gateFiles ?? {}, 'node')
          task.title = `Loaded ${context.rules.length} ${selection.kind} rules`
        },
      },
      {
        title: options.factsPaths.length > 0 ? 'Read facts bundles' : (options.ssh ? `Probe ${options.ssh.targets.length} node(s) over SSH` : 'Collect facts on this machine'),
        async task(context, task) {
          if (options.factsPaths.length > 0) {
            context.probed = distinctNodes(deriveProbedNodes(await readFactsBundles(options.factsPaths, options.readStdin)))
            task.title = `Read ${context.probed.length} facts bundle(s)`
          } else if (options.watchSeconds === undefined) {
            context.probed = distinctNodes(deriveProbedNodes(await probeNodes(options, task)))
          } else {
            const {signal, watchSeconds} = options
            const first = await probeNodes(options, task)
            task.title = `Watch kube-proxy's metrics for ${watchSeconds}s`
            await waitForSecondRead(watchSeconds, signal, 'the second collector run')
            const second = await probeNodes(options, task)
            throwIfInterrupted(signal, watchSeconds, 'the second collector run')
            context.probed = distinctNodes(deriveWatchedNodes(first, second))
            task.title += `, twice ${watchSeconds}s apart`
          }
        },
      },
    ],
    run,
  )

  refuseBaselineOfOtherNodes(run.gate.baseline, run.probed.map((node) => nodeName(node)))
  // verify compares each node with the baseline's record of it, as facts its rules read; it gates on no finding.
  const {baseline, ...waivers} = run.gate
  if (selection.kind === 'verify' && baseline) for (const node of run.probed) setBaselineFacts(node.facts, baseline.nodeRecords.get(nodeName(node)))
  const skip = new Set(options.skip)
  const {findings, grouped, bySubject} = evaluateRules(run.rules, nodeSubjects(run.probed), {skip, severity: options.severity, perSubject: PER_NODE})
  const report = buildReport({
    nodes: run.probed.map((node) => probedNodeReport(node)),
    findings,
    grouped,
    bySubject,
    evaluatedRules: run.rules.filter((rule) => !skip.has(rule.id)).length,
    skippedRules: options.skip,
    severityOverrides: options.severity,
    policy: options.policy,
    rulePlans: rulePlans(run.rules),
    ...(selection.kind === 'verify' ? waivers : run.gate),
  })
  return {bySubject, probed: run.probed, report, ...(baseline ? {baseline} : {})}
}
