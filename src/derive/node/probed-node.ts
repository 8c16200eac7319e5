/**
 * What the node sources gave, as facts: a probed node's bundle (or failure) becomes its facts and its
 * report row's state, and kube-proxy's answers through the pod proxy become the facts of those answers.
 */
import type {NodeSource} from '../../contract/report.js'
import {describeCut} from '../../facts/bundle.js'
import type {FactSet} from '../../facts/fact-set.js'
import type {KubeProxyAnswers} from '../../sources/node/kube-proxy-metrics.js'
import type {ProbedNode} from '../../sources/node/node-probes.js'
import {describeFailure} from '../../sources/probe.js'
import {bundleCollectedAt, deriveKubeProxyEndpointFacts, deriveNodeFacts, unknownNodeFacts} from './node-facts.js'
import {kubeProxyMetricsRead, type MetricsRead, setSyncWatchFacts} from './sync-watch.js'

/** One node's facts and where they came from. */
export interface DerivedNode {
  source: NodeSource
  origin: string
  facts: FactSet
  reachable: boolean
  /** Its bundle, or the collector's output, has no end line: every fact is unknown (truncated). */
  cutShort?: true
  /** Why the node could not be probed, or where its bundle was cut short, as the report prints it. */
  reason?: string
}

/** A probed node's facts: from its bundle, or every one unknown with why it could not be probed. */
function deriveProbedNode(node: ProbedNode): DerivedNode {
  const {source, origin} = node
  if ('failure' in node) return unusable(node, node.name ?? node.fallbackName, describeFailure(node.failure))
  const facts = deriveNodeFacts(node.bundle, node)
  return node.bundle.cut ? {source, origin, facts, reachable: true, cutShort: true, reason: describeCut(node.bundle.cut)} : {source, origin, facts, reachable: true}
}

/** Each probed node's facts, in order; nodes that share one result (SSH targets that are one connection) share one. */
export function deriveProbedNodes(nodes: readonly ProbedNode[]): DerivedNode[] {
  const derived = new Map<ProbedNode, DerivedNode>()
  return nodes.map((node) => derived.get(node) ?? derived.set(node, deriveProbedNode(node)).get(node)!)
}

/**
 * verify node --watch: the nodes of a second collector run, whose watch facts compare each one's kube-proxy metrics with
 * those of the first run's node at the same place (both runs give their targets' nodes in order); every other fact is the
 * second run's. A node the second run could not probe keeps its facts all unknown, with why.
 */
export function deriveWatchedNodes(first: readonly ProbedNode[], second: readonly ProbedNode[]): DerivedNode[] {
  const derived = deriveProbedNodes(second)
  for (const [index, node] of second.entries()) {
    if ('bundle' in node) setSyncWatchFacts(derived[index].facts, collectedMetricsRead(first[index]), collectedMetricsRead(node))
  }

  return derived
}

/** A collector run's read of kube-proxy's /metrics, timed by the collector's own clock (the node's). */
function collectedMetricsRead(node: ProbedNode): MetricsRead {
  if ('failure' in node) return {reason: 'node-unreachable', detail: describeFailure(node.failure)}
  if (node.bundle.cut) return {reason: 'truncated', detail: describeCut(node.bundle.cut)}
  return kubeProxyMetricsRead(node.bundle, bundleCollectedAt(node.bundle))
}

/** Probed nodes by name, as facts. */
export function deriveProbedNodesByName(nodes: ReadonlyMap<string, ProbedNode>): Map<string, DerivedNode> {
  return new Map([...nodes].map(([name, node]) => [name, deriveProbedNode(node)]))
}

/** A node none of whose facts can be used, and why: it could not be probed, or what it gave cannot stand for it. */
export function unusable(node: Pick<DerivedNode, 'origin' | 'source'>, name: string, reason: string): DerivedNode {
  return {source: node.source, origin: node.origin, facts: unknownNodeFacts(name, 'node-unreachable', reason), reachable: false, reason}
}

/** What the pod proxy gave for one node: the facts of kube-proxy's answers (values, or unknown with why) and where they came from. */
export interface KubeProxyEndpointRead {
  /** `kube-system/<pod>:<port>`, or the namespace when no pod was asked. */
  origin: string
  facts: FactSet
  /** Why nothing could be read, when nothing could. */
  reason?: string
}

/** The facts of kube-proxy's answers for each node. */
export function deriveKubeProxyEndpoints(answers: ReadonlyMap<string, KubeProxyAnswers>): Map<string, KubeProxyEndpointRead> {
  return new Map(
    [...answers].map(([name, {origin, sections, unavailable, readAt, reason}]) => [
      name,
      {origin, facts: deriveKubeProxyEndpointFacts({sections, unavailable}, readAt), ...(reason === undefined ? {} : {reason})},
    ]),
  )
}
