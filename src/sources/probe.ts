/**
 * What every node probe shares, over SSH, by exec or in probe pods: how it is bounded and reports its
 * progress, and why a node could not be probed, as a class and its detail: callers decide on the class
 * (a probe pod after exec failed, say), never on the text, and the report prints `class: detail`.
 */

/** How a probe of many nodes runs: each probe's own options extend these. */
export interface ProbeOptions {
  /** Nodes probed at once. */
  concurrency: number
  /** Per node, from the first request or connection to the end of reading the collector's output. */
  timeoutSeconds: number
  onProgress?: (progress: ProbeProgress) => void
}

/** How far a probe of many nodes is. */
export interface ProbeProgress {
  succeeded: number
  failed: number
  remaining: number
}

/** Counts a probe's nodes as each ends (probed, or not) and tells `onProgress` the counts after each. */
export function progressCounter(nodes: number, onProgress?: (progress: ProbeProgress) => void): (probed: boolean) => void {
  const progress: ProbeProgress = {succeeded: 0, failed: 0, remaining: nodes}
  return (probed) => {
    progress[probed ? 'succeeded' : 'failed'] += 1
    progress.remaining -= 1
    onProgress?.({...progress})
  }
}

/**
 * - every probe: `collector` (the collector failed, or printed no bundle), `timeout`;
 * - SSH: `auth`, `dns`, `dropped`, `host-key`, `network`, `protocol`, `refused`;
 * - exec: `exec-forbidden`, `no-kube-proxy-pod`, `no-shell`, `exec` (anything else);
 * - probe pod: `admission`, `autopilot`, `container`, `deadline`, `fargate`, `image`, `no-probe-image`,
 *   `no-shell`, `pod`, `pod-forbidden`, `pod-log`, `pod-security`, `probe-namespace`, `scc`, `unschedulable`.
 */
export type ProbeFailureClass =
  | 'admission'
  | 'auth'
  | 'autopilot'
  | 'collector'
  | 'container'
  | 'deadline'
  | 'dns'
  | 'dropped'
  | 'exec'
  | 'exec-forbidden'
  | 'fargate'
  | 'host-key'
  | 'image'
  | 'network'
  | 'no-kube-proxy-pod'
  | 'no-probe-image'
  | 'no-shell'
  | 'pod'
  | 'pod-forbidden'
  | 'pod-log'
  | 'pod-security'
  | 'probe-namespace'
  | 'protocol'
  | 'refused'
  | 'scc'
  | 'timeout'
  | 'unschedulable'

export interface ProbeFailure {
  class: ProbeFailureClass
  detail: string
}

/** A failure as the report prints it. */
export function describeFailure(failure: ProbeFailure): string {
  return `${failure.class}: ${failure.detail}`
}
