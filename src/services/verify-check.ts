/**
 * `kpx-check verify node|cluster`: the verify rules on each node's facts, from the same sources as
 * `node` and `cluster` (this machine, bundles, SSH; the API with node probes, bundles or kube-proxy's
 * metrics), and a state per node from them and the mode its kube-proxy runs.
 */
import type {Report} from '../contract/report.js'
import {clusterNodeReport, nodeName} from '../derive/subjects.js'
import {evaluateRules} from '../engine/evaluate.js'
import type {LoadedRule} from '../engine/rule-lint.js'
import type {FactSet} from '../facts/fact-set.js'
import {buildReport} from '../planner/gate.js'
import {applyVerifyGate, type VerifyDirection} from '../planner/verify.js'
import type {ClusterSnapshot} from '../sources/cluster/snapshot.js'
import {UsageError} from '../util/errors.js'
import {type CheckOptions, PER_NODE} from './check-options.js'
import {type ClusterEngine, loadClusterEngine} from './cluster-check.js'
import {type ClusterEvaluationOptions, clusterSummary, probedClusterModel} from './cluster-evaluation.js'
import type {NodeProbeResult} from './cluster-node-probe.js'
import {evaluateNodes, type NodeCheckOptions} from './node-check.js'
import {rulePlans} from './rule-catalog.js'

/** What to verify: the switch to nftables, or the rollback from it; and whether nodes not switched yet fail the run. */
export interface VerifyOptions {
  direction: VerifyDirection
  allowNotSwitched: boolean
  /** Cluster runs: verify only these Nodes (--node), the ones switched so far; default every Linux node. */
  nodes?: readonly string[]
}

/** The fact that says which mode a node's kube-proxy runs. */
const RUNNING_MODE = 'kubeProxy.runningMode'

/** The verify rules that prove this direction. */
function verifyRules(direction: VerifyDirection): (rule: LoadedRule) => boolean {
  return (rule) => rule.scope === 'verify' && (rule.verifies ?? []).includes(direction)
}

function runningModes(nodes: ReadonlyArray<{facts: FactSet; name: string}>): Map<string, string | undefined> {
  return new Map(nodes.map(({facts, name}) => [name, facts.get(RUNNING_MODE) as string | undefined]))
}

/** `kpx-check verify node`: this machine, bundles, or nodes over SSH. */
export async function runVerifyNode(options: NodeCheckOptions & VerifyOptions): Promise<Report> {
  const {bySubject, probed, report} = await evaluateNodes(options, {kind: 'verify', select: verifyRules(options.direction)})
  const nodes = probed.map((node) => ({facts: node.facts, name: nodeName(node)}))
  return applyVerifyGate(report, {...options, runningModes: runningModes(nodes), bySubject})
}

/**
 * The verify rules on a cluster's nodes, as `cluster` reads them (API, probes, bundles, kube-proxy's
 * metrics), in the shape of the cluster check's engine: `cluster`'s reading, probing and fleets serve both.
 */
export async function loadVerifyEngine(options: CheckOptions, verify: VerifyOptions): Promise<ClusterEngine> {
  // --baseline of the pre-switch check gates on new findings; verify's is not that.
  const engine = await loadClusterEngine({...options, gateFiles: {waiversPath: options.gateFiles?.waiversPath}}, verifyRules(verify.direction))
  return {...engine, evaluateSnapshot: (snapshot, rules, evaluation, probes) => verifySnapshot(snapshot, rules, {...evaluation, ...verify}, probes)}
}

/** Pure, as evaluateSnapshot: the verify rules on every Linux node of the snapshot, with its probes. */
function verifySnapshot(snapshot: ClusterSnapshot, rules: LoadedRule[], options: ClusterEvaluationOptions & VerifyOptions, probes?: NodeProbeResult): Report {
  const model = probedClusterModel(snapshot, options.targetVersion, probes)
  const skip = new Set(options.skip)
  const linux = model.nodes.filter((node) => !node.windows && (options.nodes === undefined || options.nodes.includes(node.name)))
  const missing = options.nodes?.filter((name) => !linux.some((node) => node.name === name)) ?? []
  if (missing.length > 0) throw new UsageError(`--node ${missing.join(', ')}: no such Linux Node in the cluster${snapshot.source.context ? ` (context ${snapshot.source.context})` : ''}`, ['List them with: kubectl get nodes -l kubernetes.io/os=linux'])
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
  return applyVerifyGate(withCluster, {...options, runningModes: runningModes(linux), bySubject})
}
