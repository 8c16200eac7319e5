/**
 * `kpx-check verify node|cluster`: the verify rules on each node's facts, from the same sources as
 * `node` and `cluster` (this machine, bundles, SSH; the API with node probes, bundles or kube-proxy's
 * metrics), and a state per node from them and the mode its kube-proxy runs.
 */
import type {Report} from '../contract/report.js'
import {setBaselineFacts} from '../derive/node-baseline.js'
import {isWindowsNode} from '../derive/nodes.js'
import {clusterNodeReport, nodeName} from '../derive/subjects.js'
import {evaluateRules} from '../engine/evaluate.js'
import type {LoadedRule} from '../engine/rule-lint.js'
import {runnableWith} from '../facts/catalog.js'
import type {FactSet} from '../facts/fact-set.js'
import {buildReport} from '../planner/gate.js'
import {applyVerifyGate, type VerifyDirection} from '../planner/verify.js'
import type {ClusterSnapshot, KubeObject} from '../sources/cluster/snapshot.js'
import {UsageError} from '../util/errors.js'
import {type CheckOptions, PER_NODE} from './check-options.js'
import {type ClusterEngine, loadClusterEngine} from './cluster-check.js'
import {type ClusterEvaluationOptions, clusterSummary, probedCluster} from './cluster-evaluation.js'
import type {NodeProbeResult} from './cluster-node-probe.js'
import type {ConnectionOptions} from './cluster-reads.js'
import {refuseBaselineOfOtherNodes} from './gate-files.js'
import {evaluateNodes, type NodeCheckOptions} from './node-check.js'
import {rulePlans} from './rule-catalog.js'

/** What to verify: the switch to nftables, or the rollback from it; and whether nodes not switched yet fail the run. */
export interface VerifyOptions {
  direction: VerifyDirection
  allowNotSwitched: boolean
  /** Cluster runs: verify only these Nodes (--node), the ones switched so far; default every Linux node. */
  nodes?: readonly string[]
  /** Cluster runs: verify only the Nodes this label selector matches (--selector), as the API server reads it. */
  selector?: string
  /** Cluster runs with --kube-proxy-metrics: read kube-proxy's metrics twice, this many seconds apart (--watch). */
  watchSeconds?: number
}

/** The fact that says which mode a node's kube-proxy runs. */
const RUNNING_MODE = 'kubeProxy.runningMode'

/**
 * The verify rules that prove this direction; the comparisons with a pre-switch report only when there is one (--baseline),
 * and the comparison of two reads only when there are two (--watch): checks the user did not ask for.
 */
function verifyRules({direction, watchSeconds}: Pick<VerifyOptions, 'direction' | 'watchSeconds'>, gateFiles: CheckOptions['gateFiles']): (rule: LoadedRule) => boolean {
  const runnable = runnableWith({baseline: gateFiles?.baselinePath !== undefined, watch: watchSeconds !== undefined})
  return (rule) => rule.scope === 'verify' && (rule.verifies ?? []).includes(direction) && runnable(rule)
}

function runningModes(nodes: ReadonlyArray<{facts: FactSet; name: string}>): Map<string, string | undefined> {
  return new Map(nodes.map(({facts, name}) => [name, facts.get(RUNNING_MODE) as string | undefined]))
}

/** `kpx-check verify node`: this machine, bundles, or nodes over SSH. */
export async function runVerifyNode(options: NodeCheckOptions & VerifyOptions): Promise<Report> {
  const {baseline, bySubject, probed, report} = await evaluateNodes(options, {kind: 'verify', select: verifyRules(options, options.gateFiles)})
  const nodes = probed.map((node) => ({facts: node.facts, name: nodeName(node)}))
  return applyVerifyGate(report, {...options, runningModes: runningModes(nodes), bySubject, ...(baseline ? {baseline} : {})})
}

/**
 * The verify rules on a cluster's nodes, as `cluster` reads them (API, probes, bundles, kube-proxy's
 * metrics), in the shape of the cluster check's engine: `cluster`'s reading, probing and fleets serve both.
 */
export async function loadVerifyEngine(options: CheckOptions, verify: VerifyOptions): Promise<ClusterEngine> {
  // The baseline, read and refused as `cluster` does; verify compares the nodes with it (verifySnapshot) and gates on no finding.
  const engine = await loadClusterEngine(options, verifyRules(verify, options.gateFiles))
  return {
    ...engine,
    readsHealthz: true,
    ...(verify.watchSeconds === undefined ? {} : {watchSeconds: verify.watchSeconds}),
    evaluateSnapshot: (snapshot, rules, evaluation, probes) => verifySnapshot(snapshot, rules, {...evaluation, ...verify}, probes),
    ...(verify.nodes || verify.selector !== undefined ? {scopeNodes: (snapshot, connection, signal) => nodesInScope(snapshot, verify, connection, signal)} : {}),
  }
}

/**
 * The snapshot with only the Linux nodes --node names and --selector matches (both, when both are given), before
 * any is probed. A --node that names no Linux Node is a usage error; a selector that matches none leaves none.
 */
async function nodesInScope(snapshot: ClusterSnapshot, verify: VerifyOptions, connection: ConnectionOptions, signal: AbortSignal): Promise<ClusterSnapshot> {
  const listed = snapshot.resources.nodes
  if (listed?.status !== 'ok') return snapshot // no node to choose from: the report says why
  const linux = listed.items.filter((node) => !isWindowsNode(node))
  const missing = verify.nodes?.filter((name) => !linux.some((node) => node.metadata?.name === name)) ?? []
  if (missing.length > 0) throw new UsageError(`--node ${missing.join(', ')}: no such Linux Node in the cluster${snapshot.source.context ? ` (context ${snapshot.source.context})` : ''}`, ['List them with: kubectl get nodes -l kubernetes.io/os=linux'])
  const matching = verify.selector === undefined ? undefined : await nodesMatching(verify.selector, connection, signal)
  const inScope = (name: string) => (verify.nodes === undefined || verify.nodes.includes(name)) && (matching === undefined || matching.has(name))
  return {...snapshot, resources: {...snapshot.resources, nodes: {...listed, items: linux.filter((node) => inScope(node.metadata?.name ?? ''))}}}
}

/**
 * The names of the Nodes a label selector matches, as the API server reads it (`kubectl get nodes -l`): the snapshot
 * keeps only the labels its checks read, and the server's grammar is the one users know. One more list of the Nodes.
 */
async function nodesMatching(selector: string, connection: ConnectionOptions, signal: AbortSignal): Promise<Set<string>> {
  const {ApiError, KubeClient} = await import('../sources/cluster/kube-client.js')
  const client = await KubeClient.connect({...connection, signal})
  const names = new Set<string>()
  try {
    await client.list('/api/v1/nodes', {labelSelector: selector}, (items) => {
      for (const item of items as KubeObject[]) if (item.metadata?.name) names.add(item.metadata.name)
    }, {kind: 'Node'})
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    const flag = `--selector ${JSON.stringify(selector)}`
    if (error.code === 400) throw new UsageError(`${flag}: the API server refused it: ${error.message}`, ['Write it as `kubectl get nodes -l` takes it: key=value, key!=value, key in (a,b), key, !key, joined by commas.'])
    throw new UsageError(`${flag}: cannot list the Nodes it matches: ${error.message}`)
  } finally {
    client.close()
  }

  return names
}

/** Pure, as evaluateSnapshot: the verify rules on every Linux node of the snapshot, with its probes. */
function verifySnapshot(snapshot: ClusterSnapshot, rules: LoadedRule[], options: ClusterEvaluationOptions & VerifyOptions, probed?: NodeProbeResult): Report {
  const {model, probes} = probedCluster(snapshot, options.targetVersion, probed)
  const skip = new Set(options.skip)
  // The nodes out of scope (--node, --selector) are already gone from the snapshot (nodesInScope).
  const linux = model.nodes.filter((node) => !node.windows)
  const {baseline} = options
  if (baseline) {
    refuseBaselineOfOtherNodes(baseline, linux.map((node) => node.name))
    for (const node of linux) setBaselineFacts(node.facts, baseline.nodeRecords.get(node.name))
  }

  const subjects = linux.map((node) => ({kind: 'Node', name: node.name, facts: node.facts}))
  const {findings, bySubject} = evaluateRules(rules, subjects, {skip, severity: options.severity, unreadableKinds: model.unreadableKinds, perSubject: PER_NODE})
  const report = buildReport({
    nodes: linux.map((node) => clusterNodeReport(node, snapshot, probes)),
    findings,
    bySubject,
    evaluatedRules: rules.filter((rule) => !skip.has(rule.id)).length,
    skippedRules: options.skip,
    severityOverrides: options.severity,
    policy: options.policy,
    rulePlans: rulePlans(rules),
    ...(options.waivers ? {waivers: options.waivers} : {}),
  })
  const withCluster = {...report, cluster: clusterSummary(model.cluster, false, snapshot)}
  // Nodes out of scope are not gone: with --node or --selector, only the nodes in scope are compared.
  const scoped = options.nodes !== undefined || options.selector !== undefined
  return applyVerifyGate(withCluster, {...options, runningModes: runningModes(linux), bySubject, ...(baseline ? {baseline, scoped} : {})})
}
