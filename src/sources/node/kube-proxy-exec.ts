/**
 * `cluster --node-probe exec`: the collector runs inside each Linux node's running kube-proxy pod
 * (pods/exec), which is privileged, on the node's network and has the nft kube-proxy itself uses: no
 * new pod, no image pull. The script goes on stdin to `/bin/sh -s kube-proxy-pod` (a constant command
 * line, so nothing from the cluster reaches a shell); what the container cannot see of the node, the
 * bundle says is unavailable. Each node that cannot be probed is unreachable with its failure:
 * `exec-forbidden`, `no-kube-proxy-pod`, `no-shell`, `timeout`, `exec` (anything else), or the
 * collector's own.
 */
import {readFile} from 'node:fs/promises'

import {COLLECTOR_SCRIPT} from '../../util/paths.js'
import {forEachConcurrently} from '../../util/pool.js'
import {ApiError, type ConnectOptions, KubeClient} from '../cluster/kube-client.js'
import {execInPod, PodExecError} from '../cluster/pod-exec.js'
import {collectorFailed} from '../collector/local.js'
import {type ProbeFailure, type ProbeOptions, progressCounter} from '../probe.js'
import {collectedNode, nodeProbedAt, type ProbedNode, quoteMessage as quote, unreachable} from './node-probes.js'

export const KUBE_PROXY_NAMESPACE = 'kube-system'
/** The labels kube-proxy pods carry: kubeadm's, EKS's and GKE's DaemonSets (k8s-app), AKS's and RKE2's static pods (component). */
const KUBE_PROXY_SELECTORS = ['k8s-app=kube-proxy', 'component=kube-proxy'] as const
/** The image's shell reads the collector from stdin, in its kube-proxy-pod mode. */
const EXEC_COLLECTOR_COMMAND = ['/bin/sh', '-s', 'kube-proxy-pod'] as const

interface ExecProbeOptions extends ProbeOptions {
  connection: Omit<ConnectOptions, 'signal'>
  /** Per node, from opening the exec to the end of parsing the collector's output. */
  timeoutSeconds: number
}

/** A running kube-proxy pod, the container of it that is kube-proxy, and that container's image (pinned by digest when its status gives one). */
export interface KubeProxyPod {
  name: string
  container: string
  image?: string
}

interface ListedPod {
  metadata?: {name?: string}
  spec?: {containers?: Array<{image?: string; name?: string}>; nodeName?: string}
  status?: {containerStatuses?: Array<{imageID?: string; name?: string}>}
}

/** Probes each named Linux Node in its kube-proxy pod; one ProbedNode per name, by name, with source `exec` and origin `kube-system/<pod>`. */
export async function probeNodesByExec(nodeNames: readonly string[], options: ExecProbeOptions): Promise<Map<string, ProbedNode>> {
  const probed = new Map<string, ProbedNode>()
  const client = await KubeClient.connect(options.connection)
  try {
    const found = await runningKubeProxyPods(client)
    const script = await readFile(COLLECTOR_SCRIPT)
    const ended = progressCounter(nodeNames.length, options.onProgress)
    await forEachConcurrently(nodeNames, options.concurrency, async (name) => {
      const node = found instanceof Map ? await probeNode(client, name, found.get(name), script, options.timeoutSeconds) : unreachable(nodeProbedAt('exec', KUBE_PROXY_NAMESPACE, name), found)
      probed.set(name, node)
      ended('bundle' in node)
    })
  } finally {
    client.close()
  }

  return probed
}

/** Running kube-proxy pods by node; or, when they cannot be listed, why (every node's failure). */
export async function runningKubeProxyPods(client: KubeClient): Promise<Map<string, KubeProxyPod> | ProbeFailure> {
  const byNode = new Map<string, KubeProxyPod>()
  try {
    for (const labelSelector of KUBE_PROXY_SELECTORS) {
      await client.list(`/api/v1/namespaces/${KUBE_PROXY_NAMESPACE}/pods`, {labelSelector, fieldSelector: 'status.phase=Running'}, (items) => {
        for (const pod of items as ListedPod[]) {
          const nodeName = pod.spec?.nodeName
          const containers = pod.spec?.containers ?? []
          const container = containers.find((candidate) => candidate.name === 'kube-proxy') ?? containers.find((candidate) => /kube-proxy/.test(candidate.image ?? ''))
          if (!nodeName || !pod.metadata?.name || !container?.name || byNode.has(nodeName)) continue
          const imageID = pod.status?.containerStatuses?.find((status) => status.name === container.name)?.imageID
          const image = pinnedImage(container.image, imageID)
          byNode.set(nodeName, {name: pod.metadata.name, container: container.name, ...(image ? {image} : {})})
        }
      })
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    return {class: 'no-kube-proxy-pod', detail: `cannot list the kube-proxy pods in ${KUBE_PROXY_NAMESPACE}: ${quote(error.message)}`}
  }

  return byNode
}

async function probeNode(client: KubeClient, name: string, pod: KubeProxyPod | undefined, script: Buffer, timeoutSeconds: number): Promise<ProbedNode> {
  if (!pod) return unreachable(nodeProbedAt('exec', KUBE_PROXY_NAMESPACE, name), {class: 'no-kube-proxy-pod', detail: `no running kube-proxy pod in ${KUBE_PROXY_NAMESPACE} on this node`})
  const origin = nodeProbedAt('exec', `${KUBE_PROXY_NAMESPACE}/${pod.name}`, name)
  const deadline = AbortSignal.timeout(timeoutSeconds * 1000)
  try {
    const result = await execInPod(client, {namespace: KUBE_PROXY_NAMESPACE, pod: pod.name, container: pod.container, command: EXEC_COLLECTOR_COMMAND, stdin: script}, deadline)
    const detail = result.stderr.trim().split('\n').at(-1)?.trim()
    const run = result.exitCode === 0 ? {ok: true as const, stdout: result.stdout.toString('utf8')} : collectorFailed(`exited ${result.exitCode}${detail ? `: ${quote(detail)}` : ''}`)
    return collectedNode(origin, run)
  } catch (error) {
    if (deadline.aborted) return unreachable(origin, {class: 'timeout', detail: `no answer within ${timeoutSeconds}s (--timeout)`})
    if (!(error instanceof PodExecError)) throw error
    return unreachable(origin, execFailure(error))
  }
}

function execFailure(error: PodExecError): ProbeFailure {
  const message = quote(error.message)
  switch (error.kind) {
    case 'forbidden': {
      return {class: 'exec-forbidden', detail: message}
    }

    case 'not-found': {
      return {class: 'no-kube-proxy-pod', detail: message}
    }

    case 'runtime': {
      // The command is /bin/sh: the runtime could not start it, so the image has no (usable) shell.
      return error.message.includes(EXEC_COLLECTOR_COMMAND[0]) ? {class: 'no-shell', detail: `the kube-proxy image has no ${EXEC_COLLECTOR_COMMAND[0]}: ${message}`} : {class: 'exec', detail: message}
    }

    default: {
      return {class: 'exec', detail: message}
    }
  }
}

/** An image reference as a pod spec takes it: registry, path, tag and digest characters only. */
const IMAGE_REFERENCE = /^[a-z0-9][\w.\-/:]{0,254}(@sha256:[0-9a-f]{64})?$/i
/** A pullable digest in a container status: `registry/repo@sha256:…`, as containerd and CRI-O give it (Docker: `docker-pullable://…`). */
const PULLABLE_DIGEST = /^(?:docker-pullable:\/\/)?([a-z0-9][\w.\-/:]{0,254}@sha256:[0-9a-f]{64})$/i

/**
 * The image a container runs, pinned by the digest its status reports when that is a pullable one (so
 * a probe pod runs exactly it, and finds it on the node); else the spec's reference. Neither, or one
 * that is no image reference: undefined.
 */
function pinnedImage(image: string | undefined, imageID: string | undefined): string | undefined {
  const pinned = PULLABLE_DIGEST.exec(imageID ?? '')?.[1]
  if (pinned) return pinned
  return image !== undefined && IMAGE_REFERENCE.test(image) ? image : undefined
}
