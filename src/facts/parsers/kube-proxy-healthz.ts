/**
 * kube-proxy's /healthz answer, from its health server (healthzBindAddress, pkg/proxy/healthcheck/proxy_health.go):
 * JSON with lastUpdated, currentTime, nodeEligible and, from kube-proxy 1.33, `healthy` and `status` per IP family
 * (`{"IPv4": {"lastUpdated": …, "healthy": true}}`). It answers 200 when healthy and its Node is eligible, else 503,
 * with the same body.
 */
const FAMILIES = new Set(['IPv4', 'IPv6'])

interface KubeProxyHealth {
  /** Its proxiers' health (`healthy`, kube-proxy 1.33+); undefined in an older answer, which does not say it. */
  healthy?: boolean
  /** false when its Node is being deleted (a deletionTimestamp, or the ToBeDeletedByClusterAutoscaler taint). */
  nodeEligible?: boolean
  /** Each IP family's health (`status`, kube-proxy 1.33+), by family name; empty in an older answer. */
  families: ReadonlyMap<string, boolean>
}

/** The answer, or undefined when it is not kube-proxy's JSON (another server, an error page). */
export function parseKubeProxyHealth(text: string): KubeProxyHealth | undefined {
  let answer: unknown
  try {
    answer = JSON.parse(text)
  } catch {
    return undefined
  }

  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return undefined
  const {currentTime, healthy, nodeEligible, status} = answer as Record<string, unknown>
  // Every kube-proxy answer has currentTime; a field present with another type is not kube-proxy's.
  if (typeof currentTime !== 'string' || !isOptional(healthy, 'boolean') || !isOptional(nodeEligible, 'boolean') || !isOptional(status, 'object')) return undefined
  const families = new Map<string, boolean>()
  for (const [family, health] of Object.entries(status ?? {})) {
    const familyHealthy = (health as Record<string, unknown> | null)?.healthy
    if (!FAMILIES.has(family) || typeof familyHealthy !== 'boolean') return undefined
    families.set(family, familyHealthy)
  }

  return {...(healthy === undefined ? {} : {healthy: healthy as boolean}), ...(nodeEligible === undefined ? {} : {nodeEligible: nodeEligible as boolean}), families}
}

function isOptional(value: unknown, type: 'boolean' | 'object'): boolean {
  return value === undefined || (typeof value === type && value !== null)
}
