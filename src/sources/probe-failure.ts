/**
 * Why a node could not be probed, as a class and its detail: callers decide on the class (a probe pod
 * after exec failed, say), never on the text, and the report prints `class: detail`.
 */

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
