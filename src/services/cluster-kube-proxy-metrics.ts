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
import {kubeProxyMetricsRead, type MetricsRead, setSyncWatchFacts} from '../derive/node/sync-watch.js'
import {isWindowsNode} from '../derive/nodes.js'
import type {ClusterSnapshot} from '../sources/cluster/snapshot.js'
import {type KubeProxyAnswers, readKubeProxyMetrics} from '../sources/node/kube-proxy-metrics.js'
import type {ConnectionOptions} from './cluster-reads.js'
import {runSilently, type StepRunner} from './progress.js'
import {waitForSecondRead} from './watch-wait.js'

interface KubeProxyMetricsReads {
  /** verify: read /healthz too. */
  healthz?: boolean
  /** verify --watch: read every node twice, this many seconds apart; the watch facts compare the reads, the others are the second's. */
  watchSeconds?: number
  /** Ends the watch's wait (Ctrl-C): the read rejects with its reason. */
  signal?: AbortSignal
}

/** kube-proxy's answers for each Linux Node of the snapshot, by name, as one more step in the progress view. */
export async function readClusterKubeProxyMetrics(
  snapshot: ClusterSnapshot,
  connection: ConnectionOptions,
  progress: StepRunner = runSilently,
  {healthz = false, watchSeconds, signal}: KubeProxyMetricsReads = {},
): Promise<ReadonlyMap<string, KubeProxyEndpointRead>> {
  const outcome = snapshot.resources.nodes
  const names = (outcome?.status === 'ok' ? outcome.items : []).filter((node) => !isWindowsNode(node)).map((node) => node.metadata?.name ?? '')
  const config = deriveKubeProxyConfig(snapshot)
  const endpoint = podProxyPort(config, 'metrics')
  const readAll = (withHealthz: boolean) => readKubeProxyMetrics(names, {connection, endpoint, families: KUBE_PROXY_METRIC_FAMILIES, ...(withHealthz ? {healthz: podProxyPort(config, 'healthz')} : {})})
  let read: ReadonlyMap<string, KubeProxyEndpointRead> = new Map()
  await progress(
    [
      {
        title: `Read kube-proxy's metrics of ${names.length} node(s) through the API server's pod proxy`,
        async task(_, task) {
          let first: Map<string, KubeProxyAnswers> | undefined
          if (watchSeconds !== undefined) {
            // The watch compares the first read's /metrics alone: its /healthz is not asked, unless the metrics port is out of
            // reach, where asking /healthz is what sends the read to the pods at all, and so decides what its /metrics say.
            first = await readAll(healthz && 'unreachable' in endpoint)
            task.title = `Watch kube-proxy's metrics of ${names.length} node(s) for ${watchSeconds}s`
            await waitForSecondRead(watchSeconds, signal, "the second read of kube-proxy's metrics")
          }

          const answers = await readAll(healthz)
          read = deriveKubeProxyEndpoints(answers)
          if (first) for (const [name, {facts}] of read) setSyncWatchFacts(facts, metricsRead(first.get(name)), metricsRead(answers.get(name)))
          const unread = [...read.values()].filter((node) => node.reason !== undefined).length
          task.title = `Read kube-proxy's metrics of ${names.length - unread} of ${names.length} node(s) through the API server's pod proxy${watchSeconds === undefined ? '' : `, twice ${watchSeconds}s apart`}`
          if (unread > 0) task.fellShort(`${unread} could not be read, see each node's checks`)
        },
      },
    ],
    {},
  )
  return read
}

/** A node's /metrics of one read, as the watch compares them. */
function metricsRead(answers: KubeProxyAnswers | undefined): MetricsRead {
  return answers ? kubeProxyMetricsRead(answers, answers.readAt) : {reason: 'not-collected', detail: 'the node was not read'}
}
