/**
 * Nodes from a collector run: on this machine, over SSH, in a kube-proxy pod (kube-proxy-exec.ts) or
 * in a probe pod (pod/run.ts). A run that fails, or prints something that is no bundle, gives the
 * node's failure instead of a bundle; its facts are then all unknown (src/derive/node/), never passed.
 */
import {hostname} from 'node:os'

import type {NodeSource} from '../../contract/report.js'
import {type Bundle, BundleError, parseBundle} from '../../facts/bundle.js'
import {type CollectorRun, runCollectorLocally} from '../collector/local.js'
import type {ProbeFailure} from '../probe.js'
import type {SshProbeOptions} from '../ssh/options.js'
import type {SshTarget} from '../ssh/target.js'

/**
 * What probing one node gave, before any fact is derived from it (src/derive/node/ does that): where
 * it came from, what names it, and its bundle or why there is none.
 */
export type ProbedNode = ProbeOrigin & ({bundle: Bundle; sudoRefused?: string} | {failure: ProbeFailure})

interface ProbeOrigin {
  source: NodeSource
  origin: string
  /** The node's name as the probe was asked for it (the Node's; an SSH target's given name): it names the node whatever the bundle says. */
  name?: string
  /** Names the node when `name` does not and the bundle names no host: the bundle file's name, the SSH host, this machine's host name. */
  fallbackName: string
}

export async function probeThisMachine(timeoutSeconds: number): Promise<ProbedNode> {
  return collectedNode({source: 'local', origin: 'this machine', fallbackName: hostname()}, await runCollectorLocally(timeoutSeconds * 1000))
}

/**
 * Probes nodes over SSH: one ProbedNode per target, in the targets' order, with source `ssh` and
 * origin `user@host:port`. A node that could not be probed has its failure (`auth`, `host-key`,
 * `timeout`, …). A target's `name`, when given, names the node; else the hostname the collector read
 * does. Targets that resolve to the same connection share one result. Throws a UsageError before any
 * connection for a target, key or configuration line that cannot be used.
 */
export async function probeNodesOverSsh(targets: SshTarget[], options: SshProbeOptions): Promise<ProbedNode[]> {
  // ssh2 and the SSH machinery load only when SSH is used, so local and API runs start faster.
  const {runCollectorOverSsh} = await import('../ssh/fleet.js')
  return runCollectorOverSsh(targets, options, (run) => {
    const origin: ProbeOrigin = {source: 'ssh', origin: run.origin, fallbackName: run.target.name ?? run.target.host, ...(run.target.name ? {name: run.target.name} : {})}
    const node = collectedNode(origin, run)
    return run.sudoRefused && 'bundle' in node ? {...node, sudoRefused: run.sudoRefused} : node
  })
}

/** A quoted message is kept to this length: it lands in every check of the node. */
const MESSAGE_LENGTH = 300

/** A message from the API server or the node, on one line and of bounded length. */
export function quoteMessage(message: string): string {
  const line = message.replaceAll(/\s+/g, ' ').trim()
  return line.length > MESSAGE_LENGTH ? `${line.slice(0, MESSAGE_LENGTH)}…` : line
}

/** Where a probe of the Node `name` ran: that name names the node. */
export function nodeProbedAt(source: NodeSource, origin: string, name: string): ProbeOrigin {
  return {source, origin, name, fallbackName: name}
}

/** A node that could not be probed, and why. */
export function unreachable(origin: ProbeOrigin, failure: ProbeFailure): ProbedNode {
  return {...origin, failure}
}

/**
 * A node from the text of its bundle, from a file or a collector run alike (one cut short says so
 * itself). Throws a BundleError for text that is no bundle.
 */
export function bundledNode(origin: ProbeOrigin, text: string): ProbedNode {
  return {...origin, bundle: parseBundle(text)}
}

/** A node from a collector run: its bundle, or why the run or its bundle failed. */
export function collectedNode(origin: ProbeOrigin, run: CollectorRun): ProbedNode {
  if (!run.ok) return unreachable(origin, run.failure)
  try {
    return bundledNode(origin, run.stdout)
  } catch (error) {
    if (!(error instanceof BundleError)) throw error
    return unreachable(origin, {class: 'collector', detail: `printed a malformed bundle (line ${error.line}: ${error.message})`})
  }
}
