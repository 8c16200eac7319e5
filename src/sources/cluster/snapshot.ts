import type {ResourceName} from './resources.js'

export const SNAPSHOT_API_VERSION = 'kpx-check/snapshot/v1'

/** A Kubernetes object as kpx-check keeps it: the fields its checks read, nothing else. */
export interface KubeObject {
  apiVersion?: string
  kind?: string
  metadata?: {
    name?: string
    namespace?: string
    labels?: Record<string, string>
    annotations?: Record<string, string>
  }
  [field: string]: unknown
}

/** How a read of the API failed: refused (403, 401), an answer that is not what the API defines, or anything else. */
export type FailedStatus = 'error' | 'forbidden' | 'malformed' | 'unauthorized'

/** An object read by name that could not be read, and why. */
export interface UnreadableObject {
  name: string
  namespace?: string
  status: FailedStatus
  message: string
}

/**
 * What one read of the API gave. A 404 on a named object (a CRD that is not installed, a ConfigMap
 * that does not exist) is an `ok` without that object: a fact, not an error. A resource read by name
 * lists the objects whose own read failed in `unreadable`; the others stand. `malformed`: the server
 * answered with something that is not what the API defines (not JSON, `items` not a list, …).
 */
export type ResourceOutcome = {status: FailedStatus; message: string} | {status: 'ok'; items: KubeObject[]; unreadable?: UnreadableObject[]}

/** Everything the cluster checks read, live or from `kpx-check snapshot -o FILE`. */
export interface ClusterSnapshot {
  apiVersion: typeof SNAPSHOT_API_VERSION
  kind: 'ClusterSnapshot'
  capturedAt: string
  /** Where it came from (context and server URL; never credentials). */
  source: {context?: string; server?: string}
  resources: Partial<Record<ResourceName, ResourceOutcome>>
}
