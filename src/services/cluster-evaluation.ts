/**
 * The cluster check's second half: from a snapshot (and node probes) and the rules to the report.
 * Loaded by runClusterCheck while the API reads run, with the rule engine it needs.
 */
import type {ClusterSummary, Report} from '../contract/report.js'
import {type ClusterModel, deriveClusterModel} from '../derive/cluster-facts.js'
import {withoutContradicted} from '../derive/node-identity.js'
import {kubernetesVersion} from '../derive/platform.js'
import {deriveRollout} from '../derive/rollout.js'
import {blameFailedProbe, clusterNodeReport, clusterSubjects, mergeNodeFacts, type ProxyModeRows, withKubeProxyEndpoint} from '../derive/subjects.js'
import {evaluateRules, GROUPED_KINDS} from '../engine/evaluate.js'
import type {LoadedRule} from '../engine/rule-lint.js'
import type {Baseline} from '../planner/baseline.js'
import {buildReport, type ReportInput} from '../planner/gate.js'
import type {PlatformRecipe} from '../planner/recipes.js'
import {objectName} from '../sources/cluster/resources.js'
import type {ClusterSnapshot, KubeObject} from '../sources/cluster/snapshot.js'
import {UsageError} from '../util/errors.js'
import {type CheckOptions, PER_NODE} from './check-options.js'
import type {NodeProbeResult} from './cluster-node-probe.js'
import {rulePlans} from './rule-catalog.js'
import {switchedNodeChecks} from './switched-node-checks.js'

export interface ClusterEvaluationOptions extends Pick<CheckOptions, 'policy' | 'severity' | 'skip'>, Pick<ReportInput, 'baseline' | 'waivers'> {
  targetVersion?: string
  recipes: ReadonlyMap<string, PlatformRecipe>
}

/**
 * A --target-version older than the Kubernetes the cluster already runs is a mistake (a typo, or the
 * version of another cluster): its deadline would be wrong. Refused as soon as the version is read,
 * before any node is probed. A cluster whose version could not be read is not judged.
 */
export function refuseTargetBehindCluster(snapshot: ClusterSnapshot, targetVersion: string | undefined): void {
  const running = kubernetesVersion(snapshot)
  if (targetVersion === undefined || !running) return
  const [major, minor] = targetVersion.split('.').map(Number)
  if (major > running.major || (major === running.major && minor >= running.minor)) return
  const context = snapshot.source.context ? ` (context ${snapshot.source.context})` : ''
  throw new UsageError(`--target-version ${targetVersion} is older than the cluster's own Kubernetes ${running.version}${context}`, [
    `Give the version you are upgrading to: ${running.major}.${running.minor} or later.`,
  ])
}

/**
 * A baseline is an earlier report of this cluster: one whose API server differs (or, in a report that
 * does not name its server, whose context does) is another cluster's, and its findings would pass for
 * this one's. Refused as soon as the cluster's source is known.
 */
export function refuseBaselineOfAnotherCluster(baseline: Baseline | undefined, source: ClusterSnapshot['source']): void {
  const earlier = baseline?.cluster
  if (!earlier) return
  const server = serverOf(source)
  const context = source.context ?? null
  const another = earlier.server && server ? earlier.server !== server : earlier.context !== null && context !== null && earlier.context !== context
  if (!another) return
  throw new UsageError(`--baseline ${baseline.file}: a report of another cluster (${clusterName(earlier)}), and this is ${clusterName({context, server})}: its findings are not this cluster's`, [
    'Pass a report written earlier of this cluster (kpx-check cluster --json, or --output json=FILE), or drop --baseline.',
  ])
}

/** A cluster as a baseline names it: its API server and context. */
function clusterName(run: {context: null | string; server?: string}): string {
  return [run.server, run.context && `context ${run.context}`].filter(Boolean).join(', ') || 'unnamed'
}

/** The API server a snapshot was read from, without credentials or query: which cluster it is. */
function serverOf(source: ClusterSnapshot['source']): string | undefined {
  if (!source.server) return undefined
  try {
    const url = new URL(source.server)
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}`
  } catch {
    return undefined
  }
}

/** Pure: the same snapshot, rules (and node probes) give the same report, live or offline. */
export function evaluateSnapshot(snapshot: ClusterSnapshot, rules: LoadedRule[], options: ClusterEvaluationOptions, probed?: NodeProbeResult): Report {
  const {model, probes} = probedCluster(snapshot, options.targetVersion, probed)
  const {nothingToMigrate, summary: rollout} = model.rollout
  // Node and cluster rules, and verify's of the switch for the nodes already switched; with nothing to
  // migrate, only the rules that say so run (`evaluate: always`); else a node rule about the switch skips,
  // node by node, the nodes seen running nftables (loadRuleCatalog). A cluster that runs no kube-proxy (a
  // replacement serves Services) has no node to judge in nftables mode.
  const switchedChecks = model.kubeProxy.mode === 'none' ? [] : switchedNodeChecks(rules, 'cluster')
  const preSwitch = [...rules.filter((rule) => rule.scope !== 'verify'), ...switchedChecks]
  const active = nothingToMigrate ? preSwitch.filter((rule) => rule.evaluate === 'always') : preSwitch
  const skip = new Set(options.skip)
  const {findings, grouped, bySubject} = evaluateRules(active, clusterSubjects(model), {
    skip,
    severity: options.severity,
    kubernetesVersion: String(model.cluster.get('cluster.version') ?? '') || undefined,
    grouped: new Set([...GROUPED_KINDS, 'Node']),
    unreadableKinds: model.unreadableKinds,
    perSubject: PER_NODE,
  })
  const proxyModes: ProxyModeRows = new WeakMap()
  return buildReport({
    nodes: model.nodes.map((node) => clusterNodeReport(node, snapshot, probes, node.configuredMode, proxyModes)),
    findings,
    // A cluster can have thousands of nodes: their passes are summed up, their problems listed one
    // by one, except what only a node shell could tell (not-collected): the same on every node.
    grouped,
    foldUnknown: new Set(['not-collected']),
    bySubject,
    evaluatedRules: active.filter((rule) => !skip.has(rule.id)).length,
    skippedRules: options.skip,
    severityOverrides: options.severity,
    policy: options.policy,
    rulePlans: rulePlans(rules),
    cluster: {
      summary: {
        ...clusterSummary(model.cluster, nothingToMigrate, snapshot),
        rollout,
        ...(probes?.unmatchedInventory ? {unmatchedInventory: probes.unmatchedInventory} : {}),
        ...(probes?.unmatchedBundles ? {unmatchedBundles: probes.unmatchedBundles} : {}),
        ...(probes?.probeLeftovers ? {probeLeftovers: probes.probeLeftovers} : {}),
      },
      kubeProxy: model.kubeProxy,
      unlistedNodes: model.unreadableKinds.get('Node'),
      cnis: model.components.map(({component}) => component),
      unlistedDaemonSets: model.unreadableKinds.get('DaemonSet'),
      addons: (model.cluster.get('cluster.components') as string[] | undefined) ?? [],
      recipes: options.recipes,
      ...(options.targetVersion ? {targetVersion: options.targetVersion} : {}),
    },
    ...(options.waivers ? {waivers: options.waivers} : {}),
    ...(options.baseline ? {baseline: options.baseline} : {}),
  })
}

/**
 * The cluster's model with each node's facts as the node probes found them, and the probes as used, for
 * `cluster` and `verify cluster` alike. A probe or bundle that contradicts its live Node is not that Node's
 * now: it is used as a failed probe, whose reason names both values. A reachable node's own facts replace
 * what the API shows of it; the others keep the API's, and a failed probe says why the rest is unknown.
 * kube-proxy's answers through the pod proxy fill in what the collector could not read, and over the API
 * alone stand in for it.
 */
export function probedCluster(snapshot: ClusterSnapshot, targetVersion: string | undefined, read?: NodeProbeResult): {model: ClusterModel; probes?: NodeProbeResult} {
  const probes = read && {...read, probed: withoutContradicted(listedNodes(snapshot), read.probed)}
  const model = deriveClusterModel(snapshot, {targetVersion})
  for (const node of model.nodes) {
    const probed = probes?.probed.get(node.name)
    const endpoint = probes?.kubeProxyEndpoints?.get(node.name)?.facts
    if (probed?.reachable) {
      node.facts = mergeNodeFacts(node.name, endpoint ? withKubeProxyEndpoint(probed.facts, endpoint, true) : probed.facts, node.facts, probed.source)
      continue
    }

    if (probed) node.facts = blameFailedProbe(node.facts, probed.reason ?? 'the node probe failed')
    if (endpoint) node.facts = withKubeProxyEndpoint(node.facts, endpoint, false)
  }

  // The nodes' own facts are in: what they run decides whether anything is left to migrate.
  model.rollout = deriveRollout(model)
  return {model, ...(probes ? {probes} : {})}
}

function listedNodes(snapshot: ClusterSnapshot): KubeObject[] {
  const outcome = snapshot.resources.nodes
  return outcome?.status === 'ok' ? outcome.items : []
}

/** What the report says of the cluster as a whole. */
export function clusterSummary(facts: ClusterModel['cluster'], nothingToMigrate: boolean, snapshot: ClusterSnapshot): ClusterSummary {
  const text = (path: string) => {
    const value = facts.get(path)
    return value === undefined ? null : String(value)
  }

  return {
    context: snapshot.source.context ?? null,
    ...(serverOf(snapshot.source) ? {server: serverOf(snapshot.source)} : {}),
    kubernetesVersion: text('cluster.version'),
    platform: text('cluster.platform'),
    proxyMode: (text('cluster.proxyMode') ?? 'unknown') as ClusterSummary['proxyMode'],
    kubeProxy: {workload: text('kubeProxy.workload'), version: text('kubeProxy.version'), replacedBy: text('kubeProxy.replacedBy')},
    nothingToMigrate,
    unreadable: Object.entries(snapshot.resources).flatMap(([name, outcome]) =>
      outcome.status === 'ok' ? (outcome.unreadable ?? []).map((object) => `${name} ${objectName(object)}: ${object.message}`) : [`${name}: ${outcome.message}`],
    ),
  }
}
