/**
 * `cluster --node-probe pod`: a short-lived probe pod on each Linux node, on the image its kube-proxy
 * runs (pinned by digest, `IfNotPresent`: an air-gapped node has it already), pinned to the node by
 * `nodeName`, with the host's network and PID namespaces, privileged, the host's files it reads mounted
 * read-only, tolerating every taint and bounded by `activeDeadlineSeconds`. It runs the collector (its
 * command line, so no ConfigMap), which prints the bundle to its log; kpx-check polls the run's pods
 * (one list for all of them), reads the log and deletes the pod. Everything it creates carries the
 * labels below and is deleted on success, on failure and when `signal` aborts; a later run deletes the
 * pods an interrupted one left (sweepLeftovers). A node that cannot be probed is unreachable with its
 * failure (ProbeFailure).
 */
import {createHash, randomBytes} from 'node:crypto'
import {readFile} from 'node:fs/promises'

import {InterruptedError} from '../../../util/errors.js'
import {COLLECTOR_SCRIPT} from '../../../util/paths.js'
import {forEachConcurrently} from '../../../util/pool.js'
import {ApiError, type ConnectOptions, KubeClient} from '../../cluster/kube-client.js'
import {collectorFailed} from '../../collector/local.js'
import {type ProbeFailure, type ProbeOptions, progressCounter} from '../../probe.js'
import {KUBE_PROXY_NAMESPACE, type KubeProxyPod, runningKubeProxyPods} from '../kube-proxy-exec.js'
import {collectedNode, nodeProbedAt, type ProbedNode, quoteMessage as quote, unreachable} from '../node-probes.js'
import {namespacePath, PRIVILEGED_NAMESPACE_LABEL, PROBE_CONTAINER, PROBE_LABELS, probePodManifest, RUN_LABEL} from './manifest.js'
import {createRefusal, type PodStatus} from './status.js'
import {PodWatcher} from './watch.js'

/** A bundle is well under 1 MB; a log longer than this is no bundle (the same bound as exec and SSH). */
const LOG_LIMIT = 16 * 1024 * 1024

/** Past its own deadline, how long a probe pod is left to its kubelet to be reported Failed before kpx-check stops waiting. */
const DEADLINE_GRACE_SECONDS = 10
/** The ServiceAccount admission's refusal in a namespace whose `default` service account is not made yet, and how often (every 0.5 s) it is tried again. */
const NO_SERVICE_ACCOUNT_YET = /error looking up service account [^ ]+\/default: serviceaccount "default" not found/
const SERVICE_ACCOUNT_TRIES = 20
/** A probe pod of another run this much past its deadline is a leftover: its run has given up on it. */
const LEFTOVER_AFTER_SECONDS = 60

interface PodProbeOptions extends ProbeOptions {
  connection: Omit<ConnectOptions, 'signal'>
  /** Per node: the pod's activeDeadlineSeconds, and how long kpx-check waits for it (plus a grace for the kubelet to report it). */
  timeoutSeconds: number
  /** --probe-namespace: a namespace kpx-check creates for its pods (Pod Security `privileged`) and deletes; default kube-system. */
  namespace?: string
  /** Aborted (SIGINT, SIGTERM): no more pods are made, every one made is deleted, and the probe rejects with the signal's reason. */
  signal?: AbortSignal
  /** How often the run's pods are listed while some are unfinished. */
  pollMilliseconds?: number
}

/** A Linux Node to probe: its name, and whether it is an EKS Fargate node (no host access there). */
export interface PodProbeTarget {
  name: string
  fargate: boolean
}

interface PodProbeResult {
  probed: Map<string, ProbedNode>
  /** Probe pods earlier runs left behind, deleted before this run's were made. */
  swept: string[]
  /** What this run made and could not delete (`pod NS/NAME: why`, `namespace NS: why`). */
  leftBehind: string[]
}

/** Probes each target in a probe pod; one ProbedNode per name, with source `pod` and origin `<namespace>/<pod>`. */
export async function probeNodesByPod(targets: readonly PodProbeTarget[], options: PodProbeOptions): Promise<PodProbeResult> {
  options.signal?.throwIfAborted()
  const namespace = options.namespace ?? KUBE_PROXY_NAMESPACE
  const client = await KubeClient.connect(options.connection)
  const run = new ProbeRun(client, namespace, options)
  const outcome = await run.probe(targets).then((result) => ({result}), (error: unknown) => ({error}))
  const leftBehind = await run.cleanUp()
  client.close()
  if ('result' in outcome) return {...outcome.result, leftBehind}
  throw outcome.error instanceof InterruptedError && leftBehind.length > 0 ? new InterruptedError(outcome.error.signal, leftBehind) : outcome.error
}

class ProbeRun {
  readonly id = randomBytes(4).toString('hex')
  /** Pods this run made and has not deleted yet. */
  private readonly created = new Set<string>()
  /** Why the last try to delete each of them failed. */
  private readonly deleteFailures = new Map<string, string>()
  private namespaceCreated = false
  private readonly watcher: PodWatcher
  private readonly signal: AbortSignal

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly options: PodProbeOptions,
  ) {
    this.signal = options.signal ?? new AbortController().signal
    this.watcher = new PodWatcher(client, namespace, `${RUN_LABEL}=${this.id}`, options.pollMilliseconds ?? 1000, this.signal)
  }

  async probe(targets: readonly PodProbeTarget[]): Promise<Omit<PodProbeResult, 'leftBehind'>> {
    const probed = new Map<string, ProbedNode>()
    const ended = progressCounter(targets.length, this.options.onProgress)
    const record = (name: string, node: ProbedNode) => {
      probed.set(name, node)
      ended('bundle' in node)
    }

    const setUp = await this.prepare()
    if ('class' in setUp) {
      // No node can be probed: each says why, and no pod is made.
      this.signal.throwIfAborted()
      for (const target of targets) record(target.name, unreachable(nodeProbedAt('pod', this.namespace, target.name), setUp))
      return {probed, swept: []}
    }

    const script = await readFile(COLLECTOR_SCRIPT, 'utf8')
    // Interrupted, every worker ends its node (deleting its pod) before the run cleans up and rejects.
    await forEachConcurrently(targets, this.options.concurrency, async (target) => {
      if (this.signal.aborted) return
      if (target.fargate) {
        record(target.name, unreachable(nodeProbedAt('pod', this.namespace, target.name), {class: 'fargate', detail: 'an EKS Fargate node runs no host-network or privileged pods: not probed, no pod made'}))
        return
      }

      try {
        record(target.name, await this.probeNode(target.name, setUp.images, script))
      } catch (error) {
        if (!this.signal.aborted) throw error
      }
    })
    this.signal.throwIfAborted()
    return {probed, swept: setUp.swept}
  }

  /** Deletes every pod this run made that is still there, and the namespace it made; never stopped by the signal. What it could not delete, with why. */
  async cleanUp(): Promise<string[]> {
    this.watcher.stop()
    await Promise.all([...this.created].map((name) => this.deletePod(name)))
    const leftBehind = [...this.created].map((name) => `pod ${this.namespace}/${name}: ${this.deleteFailures.get(name)}`)
    if (this.namespaceCreated) {
      try {
        await this.client.delete(namespacePath(this.namespace))
      } catch (error) {
        leftBehind.push(`namespace ${this.namespace}: ${quote((error as Error).message)}`)
      }
    }

    return leftBehind
  }

  /**
   * The namespace (made, with --probe-namespace), the leftovers of earlier runs swept, and the images by
   * node; or why no node can be probed.
   */
  private async prepare(): Promise<ProbeFailure | {images: Images; swept: string[]}> {
    if (this.options.namespace !== undefined) {
      const refused = await this.createNamespace()
      if (refused) return refused
    }

    const pods = await runningKubeProxyPods(this.client)
    if (!(pods instanceof Map)) return {class: 'no-probe-image', detail: pods.detail}
    return {images: new Images(pods), swept: await this.sweepLeftovers()}
  }

  /** Creates the probe namespace, labelled for privileged pods; one an interrupted run left is taken over. */
  private async createNamespace(): Promise<ProbeFailure | undefined> {
    const labels = {...PROBE_LABELS, ...PRIVILEGED_NAMESPACE_LABEL, [RUN_LABEL]: this.id}
    try {
      await this.client.create('/api/v1/namespaces', {apiVersion: 'v1', kind: 'Namespace', metadata: {name: this.namespace, labels}})
      this.namespaceCreated = true
      return undefined
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      if (error.code !== 409) return {class: 'probe-namespace', detail: `cannot create namespace ${this.namespace}: ${quote(error.message)}`}
    }

    const existing = (await this.client.get(namespacePath(this.namespace)).catch(() => ({}))) as PodStatus
    if (existing.metadata?.labels?.['app.kubernetes.io/managed-by'] !== PROBE_LABELS['app.kubernetes.io/managed-by']) {
      return {
        class: 'probe-namespace',
        detail: `namespace ${this.namespace} exists and kpx-check did not make it: --probe-namespace names one kpx-check creates and deletes (leave it out to use ${KUBE_PROXY_NAMESPACE})`,
      }
    }

    this.namespaceCreated = true
    return undefined
  }

  /** Deletes the probe pods of earlier runs that are past their deadline (a run still going keeps its own). */
  private async sweepLeftovers(): Promise<string[]> {
    const leftovers: string[] = []
    const now = Date.now()
    const selector = Object.entries(PROBE_LABELS).map(([key, value]) => `${key}=${value}`).join(',')
    try {
      await this.client.list(`${namespacePath(this.namespace)}/pods`, {labelSelector: selector}, (items) => {
        for (const pod of items as PodStatus[]) {
          const created = Date.parse(pod.metadata?.creationTimestamp ?? '')
          const deadline = (pod.spec?.activeDeadlineSeconds ?? 0) + DEADLINE_GRACE_SECONDS + LEFTOVER_AFTER_SECONDS
          if (pod.metadata?.name && pod.metadata.labels?.[RUN_LABEL] !== this.id && Number.isFinite(created) && created + deadline * 1000 < now) leftovers.push(pod.metadata.name)
        }
      })
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      return [] // not allowed to list them: nothing to sweep that this run could see
    }

    const deleted = await Promise.all(leftovers.map((name) => this.deletePod(name)))
    return leftovers.filter((_, index) => deleted[index])
  }

  private async probeNode(node: string, images: Images, script: string): Promise<ProbedNode> {
    const image = images.for(node)
    if (!image) return unreachable(nodeProbedAt('pod', this.namespace, node), {class: 'no-probe-image', detail: `no running kube-proxy pod in ${KUBE_PROXY_NAMESPACE} gives an image to run the probe pod on`})
    const name = `kpx-check-probe-${this.id}-${createHash('sha256').update(node).digest('hex').slice(0, 10)}`
    const origin = nodeProbedAt('pod', `${this.namespace}/${name}`, node)
    const manifest = probePodManifest({name, namespace: this.namespace, node, image, runId: this.id, timeoutSeconds: this.options.timeoutSeconds, script})
    const refusal = await this.createPod(manifest)
    if (refusal) return unreachable(origin, refusal)

    this.created.add(name)
    try {
      const outcome = await this.watcher.finished(name, (this.options.timeoutSeconds + DEADLINE_GRACE_SECONDS) * 1000)
      if (outcome.kind === 'failed') return unreachable(origin, outcome.failure)
      const log = await this.readLog(name)
      if (typeof log !== 'string') return unreachable(origin, log)
      const exitCode = outcome.exitCode
      return collectedNode(origin, exitCode === 0 ? {ok: true, stdout: log} : collectorFailed(`exited ${exitCode}`))
    } finally {
      await this.deletePod(name)
    }
  }

  /**
   * Creates the pod; or why it was refused. In a namespace just made, the ServiceAccount admission refuses
   * pods until the controller has made its `default` service account: that refusal is tried again.
   */
  private async createPod(manifest: Record<string, unknown>): Promise<ProbeFailure | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.create(`${namespacePath(this.namespace)}/pods`, manifest)
        return undefined
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        if (!NO_SERVICE_ACCOUNT_YET.test(error.message) || attempt >= SERVICE_ACCOUNT_TRIES || this.signal.aborted) return createRefusal(error)
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
    }
  }

  private async readLog(name: string): Promise<ProbeFailure | string> {
    try {
      return await this.client.getText(`${namespacePath(this.namespace)}/pods/${name}/log?container=${PROBE_CONTAINER}&limitBytes=${LOG_LIMIT + 1}`, 'text/plain', LOG_LIMIT + 1)
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      return {class: 'pod-log', detail: `cannot read the probe pod's log: ${quote(error.message)}`}
    }
  }

  /** Deletes a pod: whether it is gone. One of this run's that is not is left for cleanUp, which says so if it cannot delete it either. */
  private async deletePod(name: string): Promise<boolean> {
    try {
      await this.client.delete(`${namespacePath(this.namespace)}/pods/${name}?gracePeriodSeconds=0`)
      this.created.delete(name)
      return true
    } catch (error) {
      this.deleteFailures.set(name, quote((error as Error).message))
      return false
    }
  }
}

/** The image each node's probe pod runs: its own kube-proxy pod's, else the one most of the cluster's kube-proxy pods run. */
class Images {
  private readonly common?: string

  constructor(private readonly pods: ReadonlyMap<string, KubeProxyPod>) {
    const counts = new Map<string, number>()
    for (const pod of pods.values()) if (pod.image) counts.set(pod.image, (counts.get(pod.image) ?? 0) + 1)
    this.common = [...counts].toSorted((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0]
  }

  for(node: string): string | undefined {
    return this.pods.get(node)?.image ?? this.common
  }
}
