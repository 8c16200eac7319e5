/**
 * `kpx-check cluster --node-probe ssh|exec`: the cluster's Linux Nodes are probed and what the
 * collector finds replaces what the API could tell about each node. Over SSH, each Node becomes an
 * SSH target (an address from the Node put into a host template); by exec, the collector runs in
 * each Node's running kube-proxy pod, through the API server.
 */
import {isWindowsNode} from '../derive/cluster-facts.js'
import {nodeTargets, unmatchedInventory} from '../derive/ssh-targets.js'
import type {ClusterNodeProbes} from '../derive/subjects.js'
import type {ClusterSnapshot, KubeObject} from '../sources/cluster/snapshot.js'
import {probeNodesByExec} from '../sources/node/kube-proxy-exec.js'
import type {ProbedNode} from '../sources/node/node-probes.js'
import type {SshProbeOptions} from '../sources/ssh/options.js'
import type {SshTarget} from '../sources/ssh/target.js'
import type {ConnectionOptions} from './cluster-reads.js'
import {runSilently, type StepRunner} from './progress.js'
import {probeOverSshWithProgress} from './ssh-probe.js'

export interface SshNodeProbeOptions {
  method: 'ssh'
  probe: SshProbeOptions
  /** --ssh-user; else ~/.ssh/config's, then the login name. */
  user?: string
  hostTemplate: string
  /** --inventory hosts, only to report those that are no Node. */
  inventory: SshTarget[]
}

export interface ExecNodeProbeOptions {
  method: 'exec'
  concurrency: number
  /** Per node, from opening the exec to the end of parsing the collector's output. */
  timeoutSeconds: number
}

export type NodeProbeOptions = ExecNodeProbeOptions | SshNodeProbeOptions

export interface NodeProbeResult extends ClusterNodeProbes {
  /** Inventory hosts that match no Node, when an inventory was given. */
  unmatchedInventory?: string[]
  /** --facts bundles whose hostname names no Linux Node (or one another bundle is for already). */
  unmatchedBundles?: string[]
}

/** Probes the snapshot's Linux Nodes over SSH or by exec (through `connection`), as one more step in the progress view. */
export async function probeClusterNodes(
  snapshot: ClusterSnapshot,
  options: NodeProbeOptions,
  connection: ConnectionOptions,
  progress: StepRunner = runSilently,
): Promise<NodeProbeResult> {
  const outcome = snapshot.resources.nodes
  const nodes = outcome?.status === 'ok' ? outcome.items : []
  return options.method === 'exec' ? probeByExec(nodes, options, connection, progress) : probeOverSsh(nodes, options, progress)
}

async function probeOverSsh(nodes: KubeObject[], options: SshNodeProbeOptions, progress: StepRunner): Promise<NodeProbeResult> {
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

async function probeByExec(nodes: KubeObject[], options: ExecNodeProbeOptions, connection: ConnectionOptions, progress: StepRunner): Promise<NodeProbeResult> {
  const names = nodes.filter((node) => !isWindowsNode(node)).map((node) => node.metadata?.name ?? '')
  let probed = new Map<string, ProbedNode>()
  await progress(
    [
      {
        title: `Probe ${names.length} node(s) in their kube-proxy pods`,
        async task(_, task) {
          if (names.length === 0) return
          let failed = 0
          probed = await probeNodesByExec(names, {
            connection,
            concurrency: options.concurrency,
            timeoutSeconds: options.timeoutSeconds,
            onProgress(update) {
              failed = update.failed
              task.status(`${update.succeeded} done, ${update.failed} failed, ${update.remaining} remaining`)
            },
          })
          task.title = `Probed ${names.length} node(s) in their kube-proxy pods: ${names.length - failed} done, ${failed} failed`
        },
      },
    ],
    {},
  )
  return {probed, unaddressed: new Map()}
}
