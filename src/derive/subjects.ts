/**
 * What the rules are evaluated for, and the report's rows of nodes: from a cluster model, from
 * probed nodes, or both (a probed node's own facts replace what the API shows of it).
 */
import type {NodeRow, NodeSource} from '../contract/report.js'
import {factsOfSection, factsProvidedBy, KUBE_PROXY_FALLBACK_FACTS, NODE_FACT_PATHS, NODE_OS_API_FACTS} from '../facts/catalog.js'
import {FactSet} from '../facts/fact-set.js'
import type {Subject} from '../facts/subject.js'
import type {ClusterSnapshot} from '../sources/cluster/snapshot.js'
import type {ClusterModel} from './cluster-facts.js'
import {KUBE_PROXY_ENDPOINT_SECTIONS} from './node/node-facts.js'
import type {DerivedNode, KubeProxyEndpointRead} from './node/probed-node.js'

/** The identity lines of a node in the report, from its facts. */
export function describeNode(facts: FactSet): Pick<NodeRow, 'kernelRelease' | 'kubeProxyNftVersion' | 'nftVersion' | 'os' | 'proxyMode'> & {name: string} {
  const text = (path: string): string | null => {
    const value = facts.get(path)
    return typeof value === 'string' ? value : null
  }

  return {
    name: text('node.name') ?? '',
    kernelRelease: text('kernel.release'),
    os: {id: text('os.id'), versionId: text('os.versionId'), prettyName: text('os.prettyName')},
    nftVersion: text('nft.version'),
    ...(text('kubeProxy.nftVersion') === null ? {} : {kubeProxyNftVersion: text('kubeProxy.nftVersion')!}),
    proxyMode: runningModeOf(facts),
  }
}

/** The mode kube-proxy runs in on the node, with what showed it, or why nothing did. */
function runningModeOf(facts: FactSet): NonNullable<NodeRow['proxyMode']> {
  const running = facts.get('kubeProxy.runningMode')
  if (typeof running === 'string') return {running, evidence: String(facts.get('kubeProxy.runningModeEvidence') ?? '')}
  const why = facts.whyUnknown('kubeProxy.runningMode')
  return {running: null, evidence: why ? `${why.reason}: ${why.detail}` : 'not-collected'}
}

export function nodeName(node: DerivedNode): string {
  return String(node.facts.get('node.name') ?? node.origin)
}

/** Subjects of a node run: one Node for each probed node. */
export function nodeSubjects(nodes: readonly DerivedNode[]): Subject[] {
  return nodes.map((node) => ({kind: 'Node', name: nodeName(node), facts: node.facts}))
}

/** A node run's report row: what the node's own facts show. */
export function probedNodeReport(node: DerivedNode): NodeRow {
  return {
    ...describeNode(node.facts),
    name: nodeName(node),
    source: node.source,
    origin: node.origin,
    reachable: node.reachable,
    ...(node.cutShort ? {cutShort: true} : {}),
    ...(node.reason === undefined ? {} : {reason: node.reason}),
  }
}

/**
 * Probed nodes that report the same hostname are each kept, named apart by where they came from:
 * over SSH, two targets can be one machine (an alias and its address) or clones, and two bundles can
 * come from clones or from one node collected twice. `hostname (user@host:port)`, `hostname
 * (bundles/a.facts)`. Targets that resolved to one connection share one result: listed once.
 */
export function distinctNodes(probed: readonly DerivedNode[]): DerivedNode[] {
  const nodes = [...new Set(probed)]
  const counts = new Map<string, number>()
  for (const node of nodes) counts.set(nodeName(node), (counts.get(nodeName(node)) ?? 0) + 1)
  for (const node of nodes) {
    if (counts.get(nodeName(node))! > 1) node.facts.set('node.name', `${nodeName(node)} (${node.origin})`)
  }

  return nodes
}

/**
 * What the rules are evaluated for: the cluster, its Linux nodes, Services, networking DaemonSets, workloads and
 * PrometheusRules. Written out and pushed rather than spread: a large cluster has tens of thousands of Services.
 */
export function clusterSubjects(model: ClusterModel): Subject[] {
  const subjects: Subject[] = [{kind: 'Cluster', name: 'cluster', facts: model.cluster}]
  for (const node of model.nodes) if (!node.windows) subjects.push({kind: 'Node', name: node.name, facts: node.facts})
  for (const service of model.services) subjects.push({kind: 'Service', namespace: service.namespace, name: service.name, facts: service.facts})
  for (const {component, facts} of model.components) subjects.push({kind: 'DaemonSet', namespace: component.daemonSet.namespace, name: component.daemonSet.name, facts})
  for (const workload of model.workloads) subjects.push({family: 'Workload', kind: workload.kind, namespace: workload.namespace, name: workload.name, facts: workload.facts})
  for (const rule of model.prometheusRules) subjects.push({kind: 'PrometheusRule', namespace: rule.namespace, name: rule.name, facts: rule.facts})
  return subjects
}

/**
 * A probed node's facts for evaluation: the bundle's (the better evidence), named after the Node,
 * with the kube-proxy facts the bundle could not see taken from the API, and for a node probed in its
 * kube-proxy pod (`exec`), which cannot see the node's /etc, or in a probe pod (`pod`) that could not
 * read the node's os-release, the OS the Node object shows.
 */
export function mergeNodeFacts(name: string, bundle: FactSet, api: FactSet, source?: NodeSource): FactSet {
  const merged = new FactSet()
  for (const path of bundle.knownPaths()) merged.set(path, bundle.get(path)!)
  for (const [path, why] of bundle.unknownEntries()) merged.unknown(path, why.reason, why.detail)
  for (const path of source === 'exec' || source === 'pod' ? [...KUBE_PROXY_FALLBACK_FACTS, ...NODE_OS_API_FACTS] : KUBE_PROXY_FALLBACK_FACTS) {
    if (!merged.has(path) && api.has(path)) merged.set(path, api.get(path)!)
  }

  return merged.set('node.name', name)
}

/**
 * A Node the probe could not reach keeps what the API shows of it; what only a node shell could tell
 * is unknown because of the probe's failure (node-unreachable, with its reason), not merely not collected.
 */
export function blameFailedProbe(api: FactSet, reason: string): FactSet {
  for (const path of NODE_FACT_PATHS) {
    if (api.whyUnknown(path)?.reason === 'not-collected') api.unknown(path, 'node-unreachable', reason)
  }

  return api
}

/** The facts of kube-proxy's own answers, /proxyMode, /metrics and /healthz (and of two reads of the metrics, with --watch). */
const KUBE_PROXY_ENDPOINT_FACTS = [...KUBE_PROXY_ENDPOINT_SECTIONS.flatMap((section) => factsOfSection(section)), ...factsProvidedBy('watch')]

/**
 * A node's facts with kube-proxy's answers read through the pod proxy: a fact the collector read itself
 * (`collected`: these are a collector's facts) stays; one the API implies (the mode its configuration
 * sets) gives way to what the running kube-proxy answered; an unknown one takes the pod proxy's value,
 * or its reason, which says more than "not collected".
 */
export function withKubeProxyEndpoint(facts: FactSet, endpoint: FactSet, collected: boolean): FactSet {
  for (const path of KUBE_PROXY_ENDPOINT_FACTS) {
    const known = facts.has(path)
    if (known && collected) continue
    const value = endpoint.get(path)
    const why = endpoint.whyUnknown(path)
    if (value !== undefined) facts.set(path, value)
    else if (!known && why) facts.unknown(path, why.reason, why.detail)
  }

  return facts
}

/** How the node probe of a cluster run went, for each Node. */
export interface ClusterNodeProbes {
  /** Probed Nodes by name, reachable or not. */
  probed: ReadonlyMap<string, DerivedNode>
  /** Linux Nodes that could not be probed because the template had no address for them, with why. */
  unaddressed: ReadonlyMap<string, string>
  /** --kube-proxy-metrics: kube-proxy's answers through the pod proxy, by Linux Node name. */
  kubeProxyEndpoints?: ReadonlyMap<string, KubeProxyEndpointRead>
}

/**
 * A cluster run's report row of a node: as the API shows it, or as the node probe found it; `configured`: the
 * mode kube-proxy's configuration makes; `proxyModes`: the rows of the nodes before it, to share theirs.
 */
export function clusterNodeReport(node: ClusterModel['nodes'][number], snapshot: ClusterSnapshot, probes?: ClusterNodeProbes, configured?: string, proxyModes?: ProxyModeRows): NodeRow {
  const api: NodeRow = {
    name: node.name,
    source: 'api',
    origin: snapshot.source.context ?? snapshot.source.server ?? 'snapshot',
    kernelRelease: node.kernelRelease,
    os: node.os,
    nftVersion: null,
    reachable: true,
    controlPlane: node.controlPlane,
    ...(node.pool ? {pool: node.pool} : {}),
  }
  if (node.windows) return {...api, windows: true, reason: 'Windows node: kube-proxy on Windows is not affected by the switch'}
  const endpoint = probes?.kubeProxyEndpoints?.get(node.name)
  // A row of this node's own, api or a copy: its last fields are added in place.
  const row = probedNodeRow(node, api, probes)
  row.proxyMode = proxyModeRow(node.facts, configured, proxyModes)
  if (endpoint) row.kubeProxyMetrics = {origin: endpoint.origin, ...(endpoint.reason === undefined ? {} : {reason: endpoint.reason})}
  return row
}

/** The facts a node's proxyMode row reads. */
const RUNNING_MODE_FACTS = ['kubeProxy.runningMode', 'kubeProxy.runningModeEvidence']

/**
 * The proxyMode rows made so far, by the fact set that answers a node's running mode (nodes alike share it)
 * and by the configured mode: thousands of nodes share one row, which the JSON report writes once.
 */
export type ProxyModeRows = WeakMap<FactSet, Map<string | undefined, NonNullable<NodeRow['proxyMode']>>>

function proxyModeRow(facts: FactSet, configured: string | undefined, made?: ProxyModeRows): NonNullable<NodeRow['proxyMode']> {
  const row = () => ({...runningModeOf(facts), ...(configured === undefined ? {} : {configured})})
  if (!made) return row()
  const holder = facts.holderOf(RUNNING_MODE_FACTS)
  let byConfigured = made.get(holder)
  if (!byConfigured) made.set(holder, (byConfigured = new Map()))
  let shared = byConfigured.get(configured)
  if (!shared) byConfigured.set(configured, (shared = row()))
  return shared
}

function probedNodeRow(node: ClusterModel['nodes'][number], api: NodeRow, probes?: ClusterNodeProbes): NodeRow {
  const unaddressed = probes?.unaddressed.get(node.name)
  if (unaddressed) return {...api, reachable: false, reason: unaddressed}
  const probed = probes?.probed.get(node.name)
  if (!probed) return api
  if (!probed.reachable) return {...api, source: probed.source, origin: probed.origin, reachable: false, ...(probed.reason === undefined ? {} : {reason: probed.reason})}
  const found = describeNode(node.facts)
  return {
    ...api,
    source: probed.source,
    origin: probed.origin,
    kernelRelease: found.kernelRelease ?? api.kernelRelease,
    os: found.os.id === null ? api.os : found.os,
    nftVersion: found.nftVersion,
    ...(found.kubeProxyNftVersion === undefined ? {} : {kubeProxyNftVersion: found.kubeProxyNftVersion}),
    ...(probed.cutShort ? {cutShort: true, reason: probed.reason} : {}),
  }
}
