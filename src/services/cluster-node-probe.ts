/**
 * `kpx-check cluster --node-probe ssh|exec|pod|exec,pod`: the cluster's Linux Nodes are probed and what
 * the collector finds replaces what the API could tell about each node. Over SSH, each Node becomes an
 * SSH target (an address from the Node put into a host template); by exec, the collector runs in
 * each Node's running kube-proxy pod, through the API server; by pod, in a probe pod kpx-check makes
 * on each node and deletes; with `exec,pod`, by exec where that works and in a probe pod where the
 * node has no kube-proxy pod, its image no shell, or exec is forbidden.
 */
import {deriveProbedNodesByName} from '../derive/node/probed-node.js'
import {isWindowsNode} from '../derive/nodes.js'
import {nodeTargets, unmatchedInventory} from '../derive/ssh-targets.js'
import type {ClusterNodeProbes} from '../derive/subjects.js'
import type {ClusterSnapshot, KubeObject} from '../sources/cluster/snapshot.js'
import {probeNodesByExec} from '../sources/node/kube-proxy-exec.js'
import type {ProbedNode} from '../sources/node/node-probes.js'
import type {PodProbeTarget} from '../sources/node/pod/run.js'
import {describeFailure, type ProbeFailureClass} from '../sources/probe.js'
import type {SshProbeOptions} from '../sources/ssh/options.js'
import type {SshTarget} from '../sources/ssh/target.js'
import type {ConnectionOptions} from './cluster-reads.js'
import {runSilently, showProbeProgress, type StepRunner} from './progress.js'
import {probeOverSshWithProgress} from './ssh-probe.js'

interface SshNodeProbeOptions {
  method: 'ssh'
  probe: SshProbeOptions
  /** --ssh-user; else ~/.ssh/config's, then the login name. */
  user?: string
  hostTemplate: string
  /** --inventory hosts, only to report those that are no Node. */
  inventory: SshTarget[]
}

interface ExecNodeProbeOptions {
  method: 'exec'
  concurrency: number
  /** Per node, from opening the exec to the end of parsing the collector's output. */
  timeoutSeconds: number
}

interface PodNodeProbeOptions {
  /** `pod`: every Linux node in a probe pod; `exec,pod`: by exec, and in a probe pod where exec cannot run the collector. */
  method: 'exec,pod' | 'pod'
  concurrency: number
  /** Per node: the probe pod's activeDeadlineSeconds (and, by exec, as for exec). */
  timeoutSeconds: number
  /** --probe-namespace: a namespace made for the probe pods and deleted after; default kube-system. */
  namespace?: string
  /** Aborted by SIGINT, SIGTERM or SIGHUP: the probe pods (and namespace) are deleted and the probe rejects with its reason. */
  signal?: AbortSignal
}

export type NodeProbeOptions = ExecNodeProbeOptions | PodNodeProbeOptions | SshNodeProbeOptions

/** The exec failures after which a probe pod may still work: the node has no kube-proxy pod, its image no shell, or exec is not allowed. */
const POD_AFTER_EXEC: ReadonlySet<ProbeFailureClass> = new Set(['exec-forbidden', 'no-kube-proxy-pod', 'no-shell'])

export interface NodeProbeResult extends ClusterNodeProbes {
  /** --node-probe pod: what the probe made and could not delete, with why. */
  probeLeftovers?: string[]
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
  const {probed, ...rest} = await probeNodes(nodes, options, connection, progress)
  return {...rest, probed: deriveProbedNodesByName(probed)}
}

/** What the probe found of each node, before any fact is derived. */
type RawNodeProbes = Omit<NodeProbeResult, 'probed'> & {probed: Map<string, ProbedNode>}

function probeNodes(nodes: KubeObject[], options: NodeProbeOptions, connection: ConnectionOptions, progress: StepRunner): Promise<RawNodeProbes> {
  switch (options.method) {
    case 'exec': {
      return probeByExec(nodes, options, connection, progress)
    }

    case 'ssh': {
      return probeOverSsh(nodes, options, progress)
    }

    default: {
      return probeByPod(nodes, options, connection, progress)
    }
  }
}

async function probeOverSsh(nodes: KubeObject[], options: SshNodeProbeOptions, progress: StepRunner): Promise<RawNodeProbes> {
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

async function probeByExec(nodes: KubeObject[], options: Omit<ExecNodeProbeOptions, 'method'>, connection: ConnectionOptions, progress: StepRunner): Promise<RawNodeProbes> {
  const names = linuxNodes(nodes).map((node) => node.metadata?.name ?? '')
  let probed = new Map<string, ProbedNode>()
  await progress(
    [
      {
        title: `Probe ${names.length} node(s) in their kube-proxy pods`,
        async task(_, task) {
          if (names.length === 0) return
          const shown = showProbeProgress(task, names.length)
          probed = await probeNodesByExec(names, {connection, concurrency: options.concurrency, timeoutSeconds: options.timeoutSeconds, onProgress: shown.onProgress})
          const {failed} = shown.last()
          task.title = `Probed ${names.length} node(s) in their kube-proxy pods: ${names.length - failed} done, ${failed} failed`
        },
      },
    ],
    {},
  )
  return {probed, unaddressed: new Map()}
}

function linuxNodes(nodes: KubeObject[]): KubeObject[] {
  return nodes.filter((node) => !isWindowsNode(node))
}

/** An EKS Fargate node: a pod per VM, with no host network, no privilege and no DaemonSets. */
function isFargateNode(node: KubeObject): boolean {
  return (node.metadata?.labels as Record<string, string> | undefined)?.['eks.amazonaws.com/compute-type'] === 'fargate'
}

async function probeByPod(nodes: KubeObject[], options: PodNodeProbeOptions, connection: ConnectionOptions, progress: StepRunner): Promise<RawNodeProbes> {
  const byExec = options.method === 'exec,pod' ? (await probeByExec(nodes, options, connection, progress)).probed : new Map<string, ProbedNode>()
  const targets: PodProbeTarget[] = linuxNodes(nodes)
    .map((node) => ({name: node.metadata?.name ?? '', fargate: isFargateNode(node)}))
    .filter((target) => {
      const exec = byExec.get(target.name)
      return options.method === 'pod' || (exec !== undefined && 'failure' in exec && POD_AFTER_EXEC.has(exec.failure.class))
    })
  const probed = new Map(byExec)
  let leftBehind: string[] = []
  await progress(
    [
      {
        title: `Probe ${targets.length} node(s) in probe pods`,
        async task(_, task) {
          if (targets.length === 0) return
          const {probeNodesByPod} = await import('../sources/node/pod/run.js')
          const shown = showProbeProgress(task, targets.length)
          const result = await probeNodesByPod(targets, {
            connection,
            concurrency: options.concurrency,
            timeoutSeconds: options.timeoutSeconds,
            ...(options.namespace === undefined ? {} : {namespace: options.namespace}),
            ...(options.signal ? {signal: options.signal} : {}),
            onProgress: shown.onProgress,
          })
          const {failed} = shown.last()
          for (const [name, node] of result.probed) probed.set(name, afterExec(node, byExec.get(name)))
          leftBehind = result.leftBehind
          const swept = result.swept.length > 0 ? ` (deleted ${result.swept.length} probe pod(s) an earlier run left)` : ''
          const left = leftBehind.length > 0 ? `; could not delete ${leftBehind.length} object(s) it made` : ''
          task.title = `Probed ${targets.length} node(s) in probe pods: ${targets.length - failed} done, ${failed} failed${swept}${left}`
        },
      },
    ],
    {},
  )
  return {probed, unaddressed: new Map(), ...(leftBehind.length > 0 ? {probeLeftovers: leftBehind} : {})}
}

/** A probe pod's result for a node exec could not probe: when the pod failed too, its failure says why exec did not do. */
function afterExec(node: ProbedNode, exec: ProbedNode | undefined): ProbedNode {
  if (!('failure' in node) || exec === undefined || !('failure' in exec)) return node
  return {...node, failure: {...node.failure, detail: `${node.failure.detail}; by exec before it: ${describeFailure(exec.failure)}`}}
}
