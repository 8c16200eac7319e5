/**
 * Node facts from a collector run: on this machine, over SSH, in a kube-proxy pod (kube-proxy-exec.ts) or in a probe pod (probe-pod.ts). A run that fails, or prints
 * something that is no bundle, makes the node unreachable with the reason; every fact is then
 * unknown, never passed.
 */
import {hostname} from 'node:os'

import type {NodeSource} from '../../contract/report.js'
import {BundleError, describeCut, parseBundle} from '../../facts/bundle.js'
import type {FactSet} from '../../facts/fact-set.js'
import {deriveNodeFacts, unknownNodeFacts} from '../../derive/node/node-facts.js'
import {type CollectorRun, runCollectorLocally} from '../collector/local.js'
import {describeFailure, type ProbeFailure} from '../probe-failure.js'
import type {SshProbeOptions} from '../ssh/options.js'
import type {SshTarget} from '../ssh/target.js'

/** One node's facts and where they came from. */
export interface ProbedNode {
  source: NodeSource
  origin: string
  facts: FactSet
  reachable: boolean
  /** Its bundle, or the collector's output, has no end line: every fact is unknown (truncated). */
  cutShort?: true
  /** Why the node could not be probed, or where its bundle was cut short, as the report prints it. */
  reason?: string
  /** Why the node could not be probed. */
  failure?: ProbeFailure
}

export async function probeThisMachine(timeoutSeconds: number): Promise<ProbedNode> {
  return collectedNode('local', 'this machine', hostname(), await runCollectorLocally(timeoutSeconds * 1000))
}

/**
 * Probes nodes over SSH: one ProbedNode per target, in the targets' order, with source `ssh` and
 * origin `user@host:port`. A node that could not be probed is unreachable, with its failure
 * (`auth`, `host-key`, `timeout`, …). A target's `name`, when
 * given, names the node; else the hostname the collector read does. Targets that resolve to the
 * same connection share one result. Throws a UsageError before any connection for a target,
 * key or configuration line that cannot be used.
 */
export async function probeNodesOverSsh(targets: SshTarget[], options: SshProbeOptions): Promise<ProbedNode[]> {
  // ssh2 and the SSH machinery load only when SSH is used, so local and API runs start faster.
  const {runCollectorOverSsh} = await import('../ssh/fleet.js')
  return runCollectorOverSsh(targets, options, (run) => {
    const node = collectedNode('ssh', run.origin, run.target.name ?? run.target.host, run)
    if (run.target.name) node.facts.set('node.name', run.target.name)
    if (run.sudoRefused) blameSudo(node.facts, run.sudoRefused)
    return node
  })
}

/** A quoted message is kept to this length: it lands in every check of the node. */
const MESSAGE_LENGTH = 300

/** A message from the API server or the node, on one line and of bounded length. */
export function quoteMessage(message: string): string {
  const line = message.replaceAll(/\s+/g, ' ').trim()
  return line.length > MESSAGE_LENGTH ? `${line.slice(0, MESSAGE_LENGTH)}…` : line
}

/** A node that could not be probed: every fact unknown, with why. */
export function unreachable(source: NodeSource, origin: string, name: string, failure: ProbeFailure): ProbedNode {
  const reason = describeFailure(failure)
  return {source, origin, facts: unknownNodeFacts(name, 'node-unreachable', reason), reachable: false, reason, failure}
}

/**
 * A node from the text of its bundle, from a file or a collector run alike: one that was cut short
 * says so. Throws a BundleError for text that is no bundle.
 */
export function bundledNode(source: NodeSource, origin: string, fallbackName: string, text: string): ProbedNode {
  const bundle = parseBundle(text)
  const node: ProbedNode = {source, origin, facts: deriveNodeFacts(bundle, fallbackName), reachable: true}
  return bundle.cut ? {...node, cutShort: true, reason: describeCut(bundle.cut)} : node
}

/** A node from a collector run: its facts, or unreachable with why the run or its bundle failed. */
export function collectedNode(source: NodeSource, origin: string, fallbackName: string, run: CollectorRun): ProbedNode {
  if (!run.ok) return unreachable(source, origin, fallbackName, run.failure)
  try {
    return bundledNode(source, origin, fallbackName, run.stdout)
  } catch (error) {
    if (!(error instanceof BundleError)) throw error
    return unreachable(source, origin, fallbackName, {class: 'collector', detail: `printed a malformed bundle (line ${error.line}: ${error.message})`})
  }
}

/** With --sudo refused, the collector ran as the login user: what it could not read without root says why. */
function blameSudo(facts: FactSet, refusal: string): void {
  for (const [path, why] of facts.unknownEntries()) {
    if (why.reason === 'permission-denied') facts.unknown(path, 'permission-denied', why.detail ? `${refusal}; ${why.detail}` : refusal)
  }
}
