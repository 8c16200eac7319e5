/** Waiting for a run's probe pods to finish, with one list of all of them per poll. */
import type {KubeClient} from '../../cluster/kube-client.js'
import {namespacePath} from './manifest.js'
import {failed, type Finished, podOutcome, type PodStatus, stillWaiting} from './status.js'

/**
 * The run's pods, listed by its label every `pollMilliseconds` while any is awaited: one request for
 * all of them, however many nodes there are.
 */
export class PodWatcher {
  private readonly waiting = new Map<string, {deadline: number; seconds: number; resolve: (outcome: Finished) => void; reject: (reason: unknown) => void}>()
  private readonly last = new Map<string, PodStatus>()
  private timer?: NodeJS.Timeout
  private polling = false

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly selector: string,
    private readonly pollMilliseconds: number,
    private readonly signal: AbortSignal,
  ) {
    // One listener for every wait: an abort ends them all.
    signal.addEventListener('abort', () => {
      for (const waiter of this.waiting.values()) waiter.reject(signal.reason)
      this.waiting.clear()
    }, {once: true})
  }

  /** Resolves when the pod has finished or failed for good, or `waitMilliseconds` from now; rejects with the signal's reason when it aborts. */
  finished(name: string, waitMilliseconds: number): Promise<Finished> {
    return new Promise((resolve, reject) => {
      if (this.signal.aborted) {
        reject(this.signal.reason)
        return
      }

      this.waiting.set(name, {
        deadline: Date.now() + waitMilliseconds,
        seconds: Math.round(waitMilliseconds / 1000),
        resolve: (outcome) => {
          this.waiting.delete(name)
          resolve(outcome)
        },
        reject,
      })
      this.schedule()
    })
  }

  stop(): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }

  private schedule(): void {
    if (this.timer || this.polling || this.waiting.size === 0 || this.signal.aborted) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.poll().finally(() => {
        this.polling = false
        this.schedule()
      })
    }, this.pollMilliseconds)
  }

  private async poll(): Promise<void> {
    this.polling = true
    const seen = new Map<string, PodStatus>()
    try {
      await this.client.list(`${namespacePath(this.namespace)}/pods`, {labelSelector: this.selector}, (items) => {
        for (const pod of items as PodStatus[]) if (pod.metadata?.name) seen.set(pod.metadata.name, pod)
      })
    } catch {
      // A failed list is tried again at the next poll (an abort ends the waits by itself); the deadlines still hold.
      this.expire()
      return
    }

    for (const [name, waiter] of this.waiting) {
      const pod = seen.get(name)
      if (!pod) {
        if (this.last.has(name)) waiter.resolve(failed({class: 'pod', detail: 'the probe pod was deleted before it finished (evicted, or deleted by someone else)'}))
        continue
      }

      this.last.set(name, pod)
      const outcome = podOutcome(pod)
      if (outcome) waiter.resolve(outcome)
    }

    this.expire()
  }

  private expire(): void {
    const now = Date.now()
    for (const [name, waiter] of this.waiting) {
      if (now >= waiter.deadline) waiter.resolve(failed(stillWaiting(this.last.get(name), waiter.seconds)))
    }
  }
}
