/**
 * `cluster --kube-proxy-metrics`: kube-proxy's own answers, `/proxyMode` and `/metrics`, read through
 * the API server's pod proxy (GET pods/proxy in kube-system), for clusters whose kube-proxy serves
 * them beyond its node's loopback (EKS: 0.0.0.0:10249); for verify, its health server's `/healthz` too
 * (0.0.0.0:10256 by default, so reachable where the metrics are not). Nothing runs on the node: the API server
 * connects to the pod's IP (the node's, as kube-proxy runs on the host network) and relays the answer.
 * Each answer is bounded (its size, and --request-timeout over the whole of it); of /metrics only
 * the families asked for are kept, as the collector's grep keeps them. The answers come back as the
 * bundle sections they stand for (`kube-proxy-mode`, `kube-proxy-metrics`), each text or unavailable
 * with why: what a node could not answer makes exactly the facts of that answer unknown (src/derive/node/).
 */
import type {UnknownReason} from '../../contract/finding.js'
import type {Bundle} from '../../facts/bundle.js'
import type {UnknownFact} from '../../facts/fact-set.js'
import {selectMetricFamilies} from '../../facts/parsers/kube-proxy.js'
import {forEachConcurrently} from '../../util/pool.js'
import {ApiError, type ConnectOptions, KubeClient} from '../cluster/kube-client.js'
import {describeFailure} from '../probe.js'
import {KUBE_PROXY_NAMESPACE, type KubeProxyPod, runningKubeProxyPods} from './kube-proxy-exec.js'

/** What the pod proxy gave for one node: kube-proxy's answers as bundle sections (text, or unavailable with why) and where they came from. */
export interface KubeProxyAnswers extends Pick<Bundle, 'sections' | 'unavailable'> {
  /** `kube-system/<pod>:<port>`, or the namespace when no pod was asked. */
  origin: string
  /** When /metrics was read, by this machine's clock. */
  readAt: Date
  /** Why nothing could be read, when nothing could. */
  reason?: string
}

/** A port of kube-proxy the pod proxy can reach, or why it cannot: then nothing is asked there. */
type KubeProxyPort = {port: number} | {unreachable: string}

interface KubeProxyMetricsOptions {
  connection: Omit<ConnectOptions, 'signal'>
  /** kube-proxy's metrics port, or why the pod proxy cannot reach it: then nothing is asked, and that is every node's reason. */
  endpoint: KubeProxyPort
  /** verify: kube-proxy's health server's port too (/healthz), or why it cannot be reached; unset: /healthz is not asked. */
  healthz?: KubeProxyPort
  /** The metric families kept of each /metrics page (the ones the node facts read). */
  families: ReadonlySet<string>
}

/** Nodes read at once: two small GETs each, waiting mostly on the API server and the node. */
const NODES_AT_ONCE = 32
/** /proxyMode answers one word. */
const MODE_BYTES = 1024
/** /healthz answers a line of JSON. */
const HEALTHZ_BYTES = 4096
/** A kube-proxy's whole /metrics is tens of KB; a page this large is not its. */
const METRICS_BYTES = 4 * 1024 * 1024
/** The text exposition format, which every Prometheus client serves; OpenMetrics is not asked for. */
const PROMETHEUS_TEXT = 'text/plain;version=0.0.4;q=1,*/*;q=0.1'
/** Reasons after which /metrics, on the same server as /proxyMode, is not asked. */
const SAME_SERVER_FAILURES = new Set<UnknownReason>(['permission-denied', 'timeout', 'unreachable'])

/** Reads each named Linux Node's kube-proxy answers through the pod proxy; one read per name. */
export async function readKubeProxyMetrics(nodeNames: readonly string[], options: KubeProxyMetricsOptions): Promise<Map<string, KubeProxyAnswers>> {
  const {endpoint, healthz} = options
  if ('unreachable' in endpoint && (!healthz || 'unreachable' in healthz)) {
    return new Map(nodeNames.map((name) => [name, unread(KUBE_PROXY_NAMESPACE, {reason: 'not-collected', detail: endpoint.unreachable}, healthz && {reason: 'not-collected', detail: healthz.unreachable})]))
  }

  const read = new Map<string, KubeProxyAnswers>()
  const client = await KubeClient.connect({...options.connection, concurrency: NODES_AT_ONCE})
  try {
    const pods = await runningKubeProxyPods(client)
    await forEachConcurrently(nodeNames, NODES_AT_ONCE, async (name) => {
      const pod = pods instanceof Map ? pods.get(name) : undefined
      const why: UnknownFact = {reason: 'unreachable', detail: pods instanceof Map ? `no running kube-proxy pod in ${KUBE_PROXY_NAMESPACE} on this node` : describeFailure(pods)}
      read.set(name, pod ? await readPod(client, pod, options) : unread(KUBE_PROXY_NAMESPACE, why, healthz && why))
    })
  } finally {
    client.close()
  }

  return read
}

/** Nothing read: why, for each answer asked (and for /healthz, its own why when it is asked). */
function unread(origin: string, why: UnknownFact, healthzWhy?: UnknownFact): KubeProxyAnswers {
  const unavailable = new Map([
    ['kube-proxy-mode', why],
    ['kube-proxy-metrics', why],
    ...(healthzWhy ? [['kube-proxy-healthz', healthzWhy] as const] : []),
  ])
  return {origin, sections: new Map(), unavailable, readAt: new Date(), reason: why.detail}
}

async function readPod(client: KubeClient, pod: KubeProxyPod, {endpoint, families, healthz}: KubeProxyMetricsOptions): Promise<KubeProxyAnswers> {
  const sections = new Map<string, string>()
  const unavailable = new Map<string, UnknownFact>()
  const metrics = 'port' in endpoint ? await readMetricsServer(client, pod, endpoint.port, families, sections, unavailable) : {readAt: new Date(), reason: endpoint.unreachable}
  if ('unreachable' in endpoint) {
    const why: UnknownFact = {reason: 'not-collected', detail: endpoint.unreachable}
    unavailable.set('kube-proxy-mode', why).set('kube-proxy-metrics', why)
  }

  if (healthz && 'port' in healthz) {
    const health = await answer(client, `${proxyPath(pod, healthz.port)}/healthz`, 'application/json', HEALTHZ_BYTES, `${KUBE_PROXY_NAMESPACE}/${pod.name}:${healthz.port}`, [503])
    if (typeof health === 'string') sections.set('kube-proxy-healthz', health)
    else unavailable.set('kube-proxy-healthz', health)
  } else if (healthz) unavailable.set('kube-proxy-healthz', {reason: 'not-collected', detail: healthz.unreachable})

  // Where the metrics server is not reached, the health server's port names where the answers came from.
  const port = 'port' in endpoint ? endpoint.port : (healthz as {port: number}).port
  // The metrics server's failure is the node's reason, unless /healthz answered where it was not even asked.
  const reason = 'port' in endpoint || !sections.has('kube-proxy-healthz') ? metrics.reason : undefined
  return {origin: `${KUBE_PROXY_NAMESPACE}/${pod.name}:${port}`, sections, unavailable, readAt: metrics.readAt, ...(reason === undefined ? {} : {reason})}
}

/** /proxyMode and /metrics of kube-proxy's metrics server, into the sections or unavailable; when the metrics were read, and why neither could be. */
async function readMetricsServer(
  client: KubeClient,
  pod: KubeProxyPod,
  port: number,
  families: ReadonlySet<string>,
  sections: Map<string, string>,
  unavailable: Map<string, UnknownFact>,
): Promise<{readAt: Date; reason?: string}> {
  const origin = `${KUBE_PROXY_NAMESPACE}/${pod.name}:${port}`
  const proxy = proxyPath(pod, port)
  const mode = await answer(client, `${proxy}/proxyMode`, 'text/plain', MODE_BYTES, origin)
  if (typeof mode === 'string') sections.set('kube-proxy-mode', mode)
  else unavailable.set('kube-proxy-mode', mode)
  if (typeof mode !== 'string' && SAME_SERVER_FAILURES.has(mode.reason)) {
    unavailable.set('kube-proxy-metrics', {reason: mode.reason, detail: `${mode.detail} (asking /proxyMode, the same server)`})
    return {readAt: new Date(), reason: mode.detail}
  }

  const metrics = await answer(client, `${proxy}/metrics`, PROMETHEUS_TEXT, METRICS_BYTES, origin)
  // kube-proxy's sync timestamps are by the node's clock, compared with this one: skew adds to a pending sync's wait.
  const readAt = new Date()
  const selected = typeof metrics === 'string' ? selectMetricFamilies(metrics, families) : undefined
  if (selected !== undefined) sections.set('kube-proxy-metrics', selected)
  else if (typeof metrics === 'string') unavailable.set('kube-proxy-metrics', {reason: 'unparseable', detail: `${origin}/metrics: not the Prometheus text format: ${firstLine(metrics)}`})
  else unavailable.set('kube-proxy-metrics', metrics)
  return {readAt}
}

function proxyPath(pod: KubeProxyPod, port: number): string {
  return `/api/v1/namespaces/${KUBE_PROXY_NAMESPACE}/pods/${encodeURIComponent(pod.name)}:${port}/proxy`
}

/** One answer through the pod proxy, or why there is none. */
async function answer(client: KubeClient, path: string, accept: string, maxBytes: number, origin: string, answers: readonly number[] = []): Promise<string | UnknownFact> {
  const asked = `${origin}${path.slice(path.lastIndexOf('/'))} through the API server's pod proxy`
  try {
    return (await client.getAnswer(path, accept, maxBytes, answers)).body
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    const message = firstLine(error.message)
    if (error.code === 403) return {reason: 'permission-denied', detail: `${asked}: ${message} (\`kpx-check rbac --kube-proxy-metrics\` prints the Role that allows it)`}
    if (error.code === 502 || error.code === 503) return {reason: 'unreachable', detail: `${asked}: ${error.code}: ${message}: kube-proxy does not serve its metrics there`}
    if (error.reason === 'Timeout') return {reason: 'timeout', detail: `${asked}: ${message}`}
    return {reason: 'failed', detail: `${asked}: ${error.code > 0 ? `${error.code}: ` : ''}${message}`}
  }
}

/** The start of a message or a body, on one line and of bounded length: it lands in every check of the node. */
function firstLine(text: string): string {
  const line = JSON.stringify(text.replaceAll(/\s+/g, ' ').trim())
  return line.length > 200 ? `${line.slice(0, 200)}…"` : line
}
