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
import {deriveKubeProxyEndpointFacts, deriveNodeFacts, unknownNodeFacts} from './node-facts.js'

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
