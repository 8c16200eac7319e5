/**
 * `kpx-check cluster --node-probe ssh`: the cluster's Linux Nodes become SSH targets (an address
 * from the Node put into a host template), the collector runs on them, and what it finds replaces
 * what the API could tell about each node.
 */
import {isWindowsNode} from '../derive/cluster-facts.js'
import type {ClusterSnapshot, KubeObject} from '../sources/cluster/snapshot.js'
import {UsageError} from '../util/errors.js'
import {FactSet} from '../facts/fact-set.js'
import type {SshProbeOptions} from '../sources/node/ssh/index.js'
import {isValidHost, type SshTarget} from '../sources/node/ssh/target.js'
import {type ProgressMode, runWithProgress} from '../cli/progress.js'
import type {ProbedNode} from './node-check.js'
import {expandHostTemplate, HOST_PLACEHOLDERS, type HostPlaceholder} from '../sources/node/ssh/host-template.js'

export interface NodeProbeOptions {
  probe: SshProbeOptions
  /** --ssh-user; else ~/.ssh/config's, then the login name. */
  user?: string
  hostTemplate: string
  /** --inventory hosts, only to report those that are no Node. */
  inventory: SshTarget[]
}

export interface NodeProbeResult {
  /** Probed Nodes by name, reachable or not. */
  probed: Map<string, ProbedNode>
  /** Linux Nodes that could not be probed because the template had no address for them, with why. */
  unaddressed: Map<string, string>
  /** Inventory hosts that match no Node, when an inventory was given. */
  unmatchedInventory?: string[]
}

function address(node: KubeObject, type: 'ExternalIP' | 'InternalIP'): string | undefined {
  const addresses = ((node as {status?: {addresses?: Array<{address?: unknown; type?: unknown}>}}).status?.addresses ?? [])
  const found = addresses.find((entry) => entry.type === type && typeof entry.address === 'string' && entry.address !== '')
  return found?.address as string | undefined
}

function snapshotNodes(snapshot: ClusterSnapshot): KubeObject[] {
  const outcome = snapshot.resources.nodes
  return outcome?.status === 'ok' ? outcome.items : []
}

/** One target per Linux Node the template gives an address for, named after the Node; the others with why not. */
export function nodeTargets(nodes: KubeObject[], options: Pick<NodeProbeOptions, 'hostTemplate' | 'user'>): {targets: SshTarget[]; unaddressed: Map<string, string>} {
  const targets: SshTarget[] = []
  const unaddressed = new Map<string, string>()
  for (const node of nodes.filter((candidate) => !isWindowsNode(candidate))) {
    const name = node.metadata?.name ?? ''
    const values = {name, internalIP: address(node, 'InternalIP'), externalIP: address(node, 'ExternalIP')}
    const missing = (Object.keys(HOST_PLACEHOLDERS) as HostPlaceholder[]).find((placeholder) => options.hostTemplate.includes(`{${placeholder}}`) && !values[placeholder])
    if (missing) {
      unaddressed.set(name, `no ${HOST_PLACEHOLDERS[missing]} to reach it over SSH`)
      continue
    }

    const host = expandHostTemplate(options.hostTemplate, values)
    if (!isValidHost(host)) throw new UsageError(`--ssh-host-template ${options.hostTemplate}: gives "${host}" for node ${name}, not a host name or IP address`)
    targets.push({host, name, ...(options.user ? {user: options.user} : {})})
  }

  return {targets, unaddressed}
}

/** Inventory hosts that are no Node: neither by name nor by the Node's InternalIP. */
export function unmatchedInventory(inventory: SshTarget[], nodes: KubeObject[]): string[] {
  const known = new Set(nodes.flatMap((node) => [node.metadata?.name, address(node, 'InternalIP')]).filter(Boolean))
  return inventory.filter((host) => !known.has(host.host) && !(host.name && known.has(host.name))).map((host) => host.name ?? host.host)
}

/** Probes the snapshot's Linux Nodes over SSH, as one more task in the progress view. */
export async function probeClusterNodes(snapshot: ClusterSnapshot, options: NodeProbeOptions, progress: ProgressMode): Promise<NodeProbeResult> {
  const nodes = snapshotNodes(snapshot)
  const {targets, unaddressed} = nodeTargets(nodes, options)
  const probed = new Map<string, ProbedNode>()
  await runWithProgress(
    progress,
    [
      {
        title: `Probe ${targets.length} node(s) over SSH`,
        async task(_, task) {
          // Loaded here, not with this module: a cluster check without --node-probe never needs it.
          const {probeWithProgress} = await import('./node-check.js')
          const results = targets.length > 0 ? await probeWithProgress(targets, options.probe, progress, task) : []
          for (const [index, target] of targets.entries()) probed.set(target.name!, results[index])
        },
      },
    ],
    {},
  )
  return {probed, unaddressed, ...(options.inventory.length > 0 ? {unmatchedInventory: unmatchedInventory(options.inventory, nodes)} : {})}
}

/** What the cluster rules take from the API about a node's kube-proxy when the node itself could not tell. */
const API_FALLBACK = ['kubeProxy.mode', 'kubeProxy.runtime', 'kubeProxy.skipKernelCheck']

/**
 * A probed node's facts for evaluation: the bundle's (the better evidence), named after the Node,
 * with the kube-proxy facts the bundle could not see taken from the API.
 */
export function mergeNodeFacts(name: string, bundle: FactSet, api: FactSet): FactSet {
  const merged = new FactSet()
  for (const path of bundle.knownPaths()) merged.set(path, bundle.get(path)!)
  for (const [path, why] of bundle.unknownEntries()) merged.unknown(path, why.reason, why.detail)
  for (const path of API_FALLBACK) {
    if (!merged.has(path) && api.has(path)) merged.set(path, api.get(path)!)
  }

  return merged.set('node.name', name)
}
