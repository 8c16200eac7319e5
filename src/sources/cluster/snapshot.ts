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

/**
 * What one read of the API gave. A 404 on a named object (a CRD that is not installed, a ConfigMap
 * that does not exist) is an `ok` without that object: a fact, not an error. `malformed`: the server
 * answered with something that is not what the API defines (not JSON, `items` not a list, …).
 */
export type ResourceOutcome =
  | {status: 'error' | 'forbidden' | 'malformed' | 'unauthorized'; message: string}
  | {status: 'ok'; items: KubeObject[]}

/** Everything the cluster checks read, live or from `kpx-check snapshot -o FILE`. */
export interface ClusterSnapshot {
  apiVersion: typeof SNAPSHOT_API_VERSION
  kind: 'ClusterSnapshot'
  capturedAt: string
  /** Where it came from (context and server URL; never credentials). */
  source: {context?: string; server?: string}
  resources: Partial<Record<ResourceName, ResourceOutcome>>
}
