/**
 * The nodes' kubelets for the test API server, for the pods a client creates (the probe pods): a pod
 * bound to a Node (`spec.nodeName`) goes Pending → Running → Succeeded or Failed, with the container
 * statuses a kubelet reports, and its log is what its command printed (stdout and stderr together, as
 * a kubelet keeps them). The command really runs, on this machine, in the same stand-in for the
 * kube-proxy image as pods/exec (apiserver-exec.ts: its program looked up, and PATH set, in a folder of
 * links to the image's tools), with KPX_HOST_ROOT pointing at a folder that stands in for the host
 * files the pod mounts. `activeDeadlineSeconds` is kept as a kubelet keeps it: the pod is killed and
 * Failed with reason DeadlineExceeded.
 *
 * What a node does with a pod can be set per node (KubeletBehaviour): run it (default), leave it
 * Pending (a NotReady node, one without a kubelet), fail to pull its image (an air-gapped node that
 * lacks it), fail to start its shell (an image without /bin/sh), or run it until its deadline. A Node
 * with a taint the pod does not tolerate refuses it, as kubelet admission does.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {basename, join} from 'node:path'

import {imageToolsFolder} from './apiserver-exec.js'

type AnyObject = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

type KubeletBehaviour = 'hang' | 'image-missing' | 'no-shell' | 'pending' | 'run'

export interface KubeletOptions {
  /** What each node does with the pods bound to it (default: `run`). */
  nodes?: Record<string, KubeletBehaviour>
  /** The folder that stands in for the host's files the pod mounts (KPX_HOST_ROOT). */
  hostRoot?: string
}

/** How the kubelet sees the API server's store: the Node a pod is bound to, and writing the pod's status back. */
interface KubeletStore {
  node(name: string): AnyObject | undefined
  /** Replaces the pod's status; false when the pod is gone. */
  setStatus(namespace: string, name: string, status: AnyObject): boolean
}

const STARTED = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z')

export class Kubelets {
  private readonly children = new Map<string, ChildProcess>()
  private readonly logs = new Map<string, string>()
  private readonly timers = new Set<NodeJS.Timeout>()

  private constructor(
    private readonly tools: {dir: string; remove(): Promise<void>},
    private readonly options: KubeletOptions,
    private readonly store: KubeletStore,
  ) {}

  static async start(options: KubeletOptions, store: KubeletStore): Promise<Kubelets> {
    return new Kubelets(await imageToolsFolder(), options, store)
  }

  /** The pod's log so far; undefined before its container started. */
  log(namespace: string, name: string): string | undefined {
    return this.logs.get(`${namespace}/${name}`)
  }

  /** A pod was created: its node's kubelet takes it up (status Pending at once, the rest shortly after). */
  admit(pod: AnyObject): AnyObject {
    const pending = {phase: 'Pending', qosClass: 'BestEffort'}
    this.later(() => this.run(pod))
    return pending
  }

  /** The pod was deleted: its command is killed. */
  forget(namespace: string, name: string): void {
    const key = `${namespace}/${name}`
    this.children.get(key)?.kill('SIGKILL')
    this.children.delete(key)
    this.logs.delete(key)
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer)
    for (const child of this.children.values()) child.kill('SIGKILL')
    await this.tools.remove()
  }

  private later(work: () => void, ms = 50): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      work()
    }, ms)
    this.timers.add(timer)
  }

  private run(pod: AnyObject): void {
    const {name, namespace} = pod.metadata as {name: string; namespace: string}
    const nodeName = pod.spec?.nodeName as string | undefined
    const node = nodeName ? this.store.node(nodeName) : undefined
    const behaviour = (nodeName && this.options.nodes?.[nodeName]) ?? 'run'
    // No Node, or one whose kubelet does not take pods: the pod stays Pending, nothing reports on it.
    if (!node || behaviour === 'pending') return
    const container = (pod.spec.containers as AnyObject[])[0]
    const untolerated = ((node.spec?.taints ?? []) as AnyObject[]).find((taint) => taint.effect !== 'PreferNoSchedule' && !tolerates(pod.spec.tolerations ?? [], taint))
    if (untolerated) {
      this.store.setStatus(namespace, name, {
        phase: 'Failed',
        reason: 'TaintToleration',
        message: `Pod was rejected: Predicate TaintToleration failed: node(s) had untolerated taint {${untolerated.key}: ${untolerated.value ?? ''}}`,
      })
      return
    }

    const startTime = STARTED()
    const base = {qosClass: 'BestEffort', startTime, hostIP: '10.0.0.1', podIP: '10.0.0.1'}
    const containerStatus = (state: AnyObject, ready = false) => ({name: container.name, image: container.image, imageID: '', ready, started: ready, restartCount: 0, state})
    if (behaviour === 'image-missing') {
      this.store.setStatus(namespace, name, {...base, phase: 'Pending', containerStatuses: [containerStatus({waiting: {reason: 'ErrImagePull', message: `failed to pull and unpack image "${container.image}": failed to resolve reference "${container.image}": dial tcp: lookup registry on 10.0.0.2:53: no such host`}})]})
      this.later(() => this.store.setStatus(namespace, name, {...base, phase: 'Pending', containerStatuses: [containerStatus({waiting: {reason: 'ImagePullBackOff', message: `Back-off pulling image "${container.image}"`}})]}), 200)
      return
    }

    if (behaviour === 'no-shell') {
      const message = `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "${container.command?.[0]}": stat ${container.command?.[0]}: no such file or directory: unknown`
      this.store.setStatus(namespace, name, {...base, phase: 'Failed', containerStatuses: [containerStatus({terminated: {exitCode: 128, reason: 'StartError', message, startedAt: '1970-01-01T00:00:00Z', finishedAt: startTime}})]})
      return
    }

    const key = `${namespace}/${name}`
    this.logs.set(key, '')
    this.store.setStatus(namespace, name, {...base, phase: 'Running', containerStatuses: [containerStatus({running: {startedAt: startTime}}, true)]})
    const deadline = pod.spec.activeDeadlineSeconds as number | undefined
    if (deadline !== undefined) {
      this.later(() => {
        if (!this.logs.has(key)) return // deleted meanwhile
        this.children.get(key)?.kill('SIGKILL')
        this.children.delete(key)
        this.store.setStatus(namespace, name, {
          ...base,
          phase: 'Failed',
          reason: 'DeadlineExceeded',
          message: 'Pod was active on the node longer than the specified deadline',
          containerStatuses: [containerStatus({terminated: {exitCode: 137, reason: 'Error', startedAt: startTime, finishedAt: STARTED()}})],
        })
      }, deadline * 1000)
    }

    if (behaviour === 'hang') return
    const [program = '', ...args] = [...(container.command ?? []), ...(container.args ?? [])] as string[]
    const child = spawn(join(this.tools.dir, basename(program)), args, {
      argv0: program,
      cwd: '/',
      env: {PATH: this.tools.dir, ...(this.options.hostRoot ? {KPX_HOST_ROOT: this.options.hostRoot} : {})},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    this.children.set(key, child)
    const append = (chunk: Buffer) => this.logs.has(key) && this.logs.set(key, this.logs.get(key)! + chunk.toString('utf8'))
    child.stdout!.on('data', append)
    child.stderr!.on('data', append)
    child.on('close', (code) => {
      if (this.children.get(key) !== child) return // killed: deleted, or past its deadline
      this.children.delete(key)
      const exitCode = code ?? 137
      this.store.setStatus(namespace, name, {
        ...base,
        phase: exitCode === 0 ? 'Succeeded' : 'Failed',
        containerStatuses: [containerStatus({terminated: {exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: startTime, finishedAt: STARTED()}})],
      })
    })
  }
}

/** Whether the tolerations tolerate the taint, as the scheduler and kubelet match them. */
function tolerates(tolerations: AnyObject[], taint: AnyObject): boolean {
  return tolerations.some((toleration) => {
    if (toleration.effect && toleration.effect !== taint.effect) return false
    if (toleration.operator === 'Exists') return !toleration.key || toleration.key === taint.key
    return toleration.key === taint.key && (toleration.value ?? '') === (taint.value ?? '')
  })
}
