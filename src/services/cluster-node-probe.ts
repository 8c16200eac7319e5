/**
 * `kpx-check cluster --node-probe ssh`: the cluster's Linux Nodes become SSH targets (an address
 * from the Node put into a host template), the collector runs on them, and what it finds replaces
 * what the API could tell about each node.
 */
import {nodeTargets, unmatchedInventory} from '../derive/ssh-targets.js'
import type {ClusterNodeProbes} from '../derive/subjects.js'
import type {ClusterSnapshot} from '../sources/cluster/snapshot.js'
import type {ProbedNode} from '../sources/node/node-probes.js'
import type {SshProbeOptions} from '../sources/ssh/options.js'
import type {SshTarget} from '../sources/ssh/target.js'
import {runSilently, type StepRunner} from './progress.js'
import {probeOverSshWithProgress} from './ssh-probe.js'

export interface NodeProbeOptions {
  probe: SshProbeOptions
  /** --ssh-user; else ~/.ssh/config's, then the login name. */
  user?: string
  hostTemplate: string
  /** --inventory hosts, only to report those that are no Node. */
  inventory: SshTarget[]
}

export interface NodeProbeResult extends ClusterNodeProbes {
  /** Inventory hosts that match no Node, when an inventory was given. */
  unmatchedInventory?: string[]
  /** --facts bundles whose hostname names no Linux Node (or one another bundle is for already). */
  unmatchedBundles?: string[]
}

/** Probes the snapshot's Linux Nodes over SSH, as one more step in the progress view. */
export async function probeClusterNodes(snapshot: ClusterSnapshot, options: NodeProbeOptions, progress: StepRunner = runSilently): Promise<NodeProbeResult> {
  const outcome = snapshot.resources.nodes
  const nodes = outcome?.status === 'ok' ? outcome.items : []
  const {targets, unaddressed} = nodeTargets(nodes, options)
  const probed = new Map<string, ProbedNode>()
  await progress(
    [
      {
        title: `Probe ${targets.length} node(s) over SSH`,
        async task(_, task) {
          const results = targets.length > 0 ? await probeOverSshWithProgress(targets, options.probe, task) : []
          for (const [index, target] of targets.entries()) probed.set(target.name!, results[index])
        },
      },
    ],
    {},
  )
  return {probed, unaddressed, ...(options.inventory.length > 0 ? {unmatchedInventory: unmatchedInventory(options.inventory, nodes)} : {})}
}
