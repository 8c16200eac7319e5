/**
 * The cluster check's second half: from a snapshot (and node probes) and the rules to the report.
 * Loaded by runClusterCheck while the API reads run, with the rule engine it needs.
 */
import {type ClusterModel, deriveClusterModel} from '../derive/cluster-facts.js'
import type {ClusterSnapshot} from '../sources/cluster/snapshot.js'
import {evaluateRules, type Subject} from '../engine/evaluate.js'
import type {LoadedRule} from '../engine/rule-loader.js'
import type {PlatformRecipe} from '../planner/recipes.js'
import {describeNode} from '../derive/node-description.js'
import {buildReport, type ClusterSummary, type NodeReport, type Report, type ReportInput} from '../contract/report.js'
import type {ClusterCheckOptions} from './cluster-check.js'
import {mergeNodeFacts, type NodeProbeResult} from './cluster-node-probe.js'
import {rulePlans} from './rule-catalog.js'

/** The rule that says whether there is anything to migrate at all. */
const MODE_RULE = 'cluster/kube-proxy-mode'

/** Pure: the same snapshot, rules (and node probes) give the same report, live or offline. */
export function evaluateSnapshot(
  snapshot: ClusterSnapshot,
  rules: LoadedRule[],
  options: Pick<ClusterCheckOptions, 'policy' | 'severity' | 'skip' | 'targetVersion'> & Pick<ReportInput, 'baseline' | 'waivers'> & {recipes: ReadonlyMap<string, PlatformRecipe>},
  probes?: NodeProbeResult,
): Report {
  const model = deriveClusterModel(snapshot, {targetVersion: options.targetVersion})
  // A reachable node's own facts replace what the API shows of it; the others keep the API's.
  for (const node of model.nodes) {
    const probed = probes?.probed.get(node.name)
    if (probed?.reachable) node.facts = mergeNodeFacts(node.name, probed.facts, node.facts)
  }

  const proxyMode = String(model.cluster.get('cluster.proxyMode') ?? 'unknown')
  const nothingToMigrate = proxyMode === 'none' || proxyMode === 'nftables'
  const subjects = clusterSubjects(model)
  const active = nothingToMigrate ? rules.filter((rule) => rule.id === MODE_RULE) : rules
  const skip = new Set(options.skip)
  const findings = evaluateRules(active, subjects, {
    skip,
    severity: options.severity,
    kubernetesVersion: String(model.cluster.get('cluster.version') ?? '') || undefined,
    // A cluster can have thousands of nodes: their passes are summed up, their problems listed one
    // by one, except what only a node shell could tell (not-collected): the same on every node.
    summarise: new Set(['Service', 'Node']),
    summariseUnknown: new Set(['not-collected']),
  })
  return buildReport({
    nodes: model.nodes.map((node) => nodeReport(node, snapshot, probes)),
    findings,
    evaluatedRules: active.filter((rule) => !skip.has(rule.id)).length,
    skippedRules: options.skip,
    severityOverrides: options.severity,
    policy: options.policy,
    rulePlans: rulePlans(rules),
    cluster: {
      summary: {
        ...clusterSummary(model.cluster, nothingToMigrate, snapshot),
        ...(probes?.unmatchedInventory ? {unmatchedInventory: probes.unmatchedInventory} : {}),
      },
      facts: model.cluster,
      components: model.components.map((component) => component.facts),
      recipes: options.recipes,
      ...(options.targetVersion ? {targetVersion: options.targetVersion} : {}),
    },
    ...(options.waivers ? {waivers: options.waivers} : {}),
    ...(options.baseline ? {baseline: options.baseline} : {}),
  })
}

/** A node's report row: as the API shows it, or as the SSH probe found it. */
function nodeReport(node: ClusterModel['nodes'][number], snapshot: ClusterSnapshot, probes?: NodeProbeResult): NodeReport {
  const api: NodeReport = {
    name: node.name,
    source: 'api',
    origin: snapshot.source.context ?? snapshot.source.server ?? 'snapshot',
    kernelRelease: node.kernelRelease,
    os: {...node.os, prettyName: node.osImage},
    nftVersion: null,
    reachable: true,
    controlPlane: node.controlPlane,
  }
  if (node.windows) return {...api, reason: 'Windows node: kube-proxy on Windows is not affected by the switch'}
  const unaddressed = probes?.unaddressed.get(node.name)
  if (unaddressed) return {...api, reachable: false, reason: unaddressed}
  const probed = probes?.probed.get(node.name)
  if (!probed) return api
  if (!probed.reachable) return {...api, source: 'ssh', origin: probed.origin, reachable: false, ...(probed.reason === undefined ? {} : {reason: probed.reason})}
  const found = describeNode(node.facts)
  return {
    ...api,
    source: 'ssh',
    origin: probed.origin,
    kernelRelease: found.kernelRelease ?? api.kernelRelease,
    os: found.os.id === null ? api.os : found.os,
    nftVersion: found.nftVersion,
  }
}

/** What the rules are evaluated for: the cluster, its Linux nodes, LoadBalancer Services and networking DaemonSets. */
export function clusterSubjects(model: ClusterModel): Subject[] {
  return [
    {kind: 'Cluster', name: 'cluster', facts: model.cluster},
    ...model.nodes.filter((node) => !node.windows).map((node) => ({kind: 'Node', name: node.name, facts: node.facts})),
    ...model.services.map((service) => ({kind: 'Service', name: service.name, facts: service.facts})),
    ...model.components.map((component) => ({kind: 'DaemonSet', name: component.name, facts: component.facts})),
  ]
}

function clusterSummary(facts: ClusterModel['cluster'], nothingToMigrate: boolean, snapshot: ClusterSnapshot): ClusterSummary {
  const text = (path: string) => {
    const value = facts.get(path)
    return value === undefined ? null : String(value)
  }

  return {
    context: snapshot.source.context ?? null,
    kubernetesVersion: text('cluster.version'),
    platform: text('cluster.platform'),
    proxyMode: (text('cluster.proxyMode') ?? 'unknown') as ClusterSummary['proxyMode'],
    kubeProxy: {workload: text('kubeProxy.workload'), version: text('kubeProxy.version'), replacedBy: text('kubeProxy.replacedBy')},
    nothingToMigrate,
    unreadable: Object.entries(snapshot.resources)
      .filter(([, outcome]) => outcome.status !== 'ok')
      .map(([name, outcome]) => `${name}: ${outcome.status === 'ok' ? '' : outcome.message}`),
  }
}
