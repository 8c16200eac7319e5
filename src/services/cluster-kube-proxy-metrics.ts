/**
 * `kpx-check cluster --kube-proxy-metrics`: kube-proxy's own answers (its mode, the localhost-NodePort,
 * conntrack and nftables sync counters) for each Linux Node, through the API server's pod proxy, where
 * kube-proxy's configuration serves them beyond the node's loopback. Where it does not (the default
 * 127.0.0.1:10249), nothing is asked and every node says why.
 */
import {podProxyPort} from '../derive/kube-proxy-config.js'
import {deriveKubeProxyConfig} from '../derive/kube-proxy.js'
import {KUBE_PROXY_METRIC_FAMILIES} from '../derive/node/node-facts.js'
import {deriveKubeProxyEndpoints, type KubeProxyEndpointRead} from '../derive/node/probed-node.js'
import {isWindowsNode} from '../derive/nodes.js'
import type {ClusterSnapshot} from '../sources/cluster/snapshot.js'
import {readKubeProxyMetrics} from '../sources/node/kube-proxy-metrics.js'
import type {ConnectionOptions} from './cluster-reads.js'
import {runSilently, type StepRunner} from './progress.js'

/** kube-proxy's answers for each Linux Node of the snapshot, by name, as one more step in the progress view. */
export async function readClusterKubeProxyMetrics(
  snapshot: ClusterSnapshot,
  connection: ConnectionOptions,
  progress: StepRunner = runSilently,
  {healthz = false}: {healthz?: boolean} = {},
): Promise<ReadonlyMap<string, KubeProxyEndpointRead>> {
  const outcome = snapshot.resources.nodes
  const names = (outcome?.status === 'ok' ? outcome.items : []).filter((node) => !isWindowsNode(node)).map((node) => node.metadata?.name ?? '')
  const config = deriveKubeProxyConfig(snapshot)
  const endpoint = podProxyPort(config, 'metrics')
  let read: ReadonlyMap<string, KubeProxyEndpointRead> = new Map()
  await progress(
    [
      {
        title: `Read kube-proxy's metrics of ${names.length} node(s) through the API server's pod proxy`,
        async task(_, task) {
          read = deriveKubeProxyEndpoints(await readKubeProxyMetrics(names, {connection, endpoint, families: KUBE_PROXY_METRIC_FAMILIES, ...(healthz ? {healthz: podProxyPort(config, 'healthz')} : {})}))
          const unread = [...read.values()].filter((node) => node.reason !== undefined).length
          task.title = `Read kube-proxy's metrics of ${names.length - unread} of ${names.length} node(s) through the API server's pod proxy`
          if (unread > 0) task.fellShort(`${unread} could not be read, see each node's checks`)
        },
      },
    ],
    {},
  )
  return read
}
