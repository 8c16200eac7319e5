/**
 * A real HTTPS server that speaks the part of the Kubernetes API kpx-check reads, for driving real
 * clients (client-node, node:https, kubectl) against it, as style.md §C1 recommends.
 *
 * - TLS with a test CA made per process (apiserver-tls.ts); bearer-token auth, anything else → 401.
 * - Discovery: /version, /api, /apis, /api/v1, /apis/<group>, /apis/<group>/<version>.
 * - Lists, cluster-wide (/api/v1/services) or in a namespace (/api/v1/namespaces/<ns>/pods), as
 *   real `<Kind>List` objects sorted by namespace/name like etcd, with `limit` and opaque
 *   `continue` tokens (`metadata.continue`, `remainingItemCount`), `labelSelector` (=, ==, !=, in,
 *   notin, key, !key) and `fieldSelector` (metadata.name, metadata.namespace; a Pod's spec.nodeName and status.phase).
 * - DELETE of a Pod (anything else but GET, and the writes below → 405). A Pod a DaemonSet owns comes back as its
 *   controller and the node's kubelet would bring it: a new name on the same node, Running and Ready
 *   (the server stands in for both, as no kubelet runs here). A watch (`?watch=true`) sees no change
 *   and ends after its timeout (5 s at most); a Pod's log is empty, unless a kubelet ran it (below).
 * - POST of a Pod, and POST and DELETE of a Namespace (its objects go with it). A Pod created in a
 *   namespace whose `pod-security.kubernetes.io/enforce` label is baseline or restricted and that asks
 *   for host namespaces, privilege or hostPath volumes is refused with Pod Security's own message; a
 *   created Pod bound to a Node is run by that node's stand-in kubelet (apiserver-kubelet.ts), its log
 *   the command's output. For 300 ms after a namespace is created, pods in it are refused for want of
 *   its `default` service account, as the ServiceAccount admission refuses them until its controller has
 *   made one. POST of a Node, as a kubelet registers its node.
 * - PUT and PATCH (merge, JSON and strategic merge patch: apiserver-writes.ts) of ConfigMaps, DaemonSets and
 *   Nodes, with kube-apiserver's optimistic concurrency: a body whose `metadata.resourceVersion` is not the
 *   stored one is a 409 Conflict, and every write gives the object a new resourceVersion. POST and DELETE of
 *   ConfigMaps and DaemonSets (a DaemonSet's pods go with it; a create that sets a resourceVersion is refused as
 *   etcd's storage refuses it). No controller runs: a created or changed DaemonSet makes no pods.
 * - Gets by name. A missing object → 404 NotFound Status with `details: {name, kind}`; an unknown
 *   resource or a custom resource whose CRD is not installed → the real 404 "the server could not
 *   find the requested resource".
 * - Faults per path: 403 Forbidden, 500/503 or 429 with Retry-After (for the first N requests or
 *   all), slow answers, no answer at all, a 200 with any body (malformed pages, endless paging), the
 *   connection cut halfway through the body, a body sent a few bytes at a time.
 * - pods/exec over WebSocket (v5 and v4 channel protocols), the command run for real in a stand-in for
 *   the upstream kube-proxy image (apiserver-exec.ts); an exec's faults: forbidden (403), hang (the
 *   upgrade is never answered), no-shell (the image has no shell: exec of sh fails as the runtime says).
 * - For benchmarks, execs past the first N answered with a recorded output (`execReplay`), so that thousands of
 *   simulated nodes do not cost as many runs of the command.
 * - pods/proxy (GET …/pods/<pod>:<port>/proxy/<path>), as the API server relays it to the pod's own HTTP server:
 *   what `podHttp` says the pods serve on that port (a body, or a status and a body: kube-proxy's /healthz 503; a list of
 *   them answered in turn, per pod, the last one again and again), else 503 "error trying to reach service" as when
 *   nothing listens there; the faults above apply to these paths too (forbidden: the pods/proxy 403).
 * - Every request is recorded (method, path, query, status; 101 for an exec that was upgraded).
 *
 * Objects come from a scenario (apiserver-scenario.ts: a folder of test/fixtures/clusters, or a
 * Scenario object) and are serialised once at start; a page is its items' JSON joined, so pages
 * of a 300,000-endpoint cluster cost no more than string concatenation. Items keep the fields they
 * have; the server adds only the metadata it would have set itself when missing (uid,
 * resourceVersion, creationTimestamp), and `kind`/`apiVersion` on a get by name. Namespace objects
 * are made for every namespace the scenario uses, unless it lists namespaces itself.
 */
import {createHash} from 'node:crypto'
import {once} from 'node:events'
import {writeFileSync} from 'node:fs'
import {type IncomingMessage, type ServerResponse, STATUS_CODES} from 'node:http'
import {createServer} from 'node:https'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import type {Duplex} from 'node:stream'
import {setTimeout as sleep} from 'node:timers/promises'
import {stringify as toYaml} from 'yaml'

import type {KubeObject} from '../../src/sources/cluster/snapshot.js'
import {ExecEndpoint, type ExecProtocol} from './apiserver-exec.js'
import {type KubeletOptions, Kubelets} from './apiserver-kubelet.js'
import {loadScenario, type Scenario, type VersionInfo} from './apiserver-scenario.js'
import {fieldSelector, labelSelector, type Matcher, SelectorError} from './apiserver-selectors.js'
import {testTls} from './apiserver-tls.js'
import {patched, PatchError, updatedObject, updateRefusal} from './apiserver-writes.js'

const DEFAULT_TOKEN = 'kpx-test-token'
export const DEFAULT_USER = 'system:serviceaccount:default:kpx'

export interface RecordedRequest {
  method: string
  path: string
  query: Record<string, string>
  /** The status answered; unset while the request waits (or forever, for a `hang` fault). */
  status?: number
  /** What a POST sent, parsed. */
  body?: Record<string, unknown>
}

export type Fault = {
  /** The request path (without query): equal to the string, or matching the RegExp. */
  path: RegExp | string
  /** Lets this many matching requests through first (1: the second page of a list fails). */
  after?: number
  /** How many matching requests it applies to; then the server answers normally. Default: all. */
  times?: number
  /** Only requests of this method (POST: the creates of a collection whose lists go through). Default: any. */
  method?: string
} & (
  | {kind: 'body'; body: string}
  | {kind: 'drip'; bytesPerSecond: number}
  | {kind: 'error'; status?: 500 | 503}
  | {kind: 'reset'}
  | {kind: 'forbidden'}
  | {kind: 'hang'}
  | {kind: 'no-shell'}
  /** An answer of this status with this message: an admission webhook's refusal, say. */
  | {kind: 'reject'; status: number; message: string}
  | {kind: 'slow'; delayMs: number}
  | {kind: 'throttle'; retryAfterSeconds?: number}
)

export interface ApiServerOptions {
  /** A folder of test/fixtures/clusters, or the objects themselves. Default: an empty cluster. */
  scenario?: Scenario | string
  /** The one bearer token the server accepts. */
  token?: string
  /** Whom the token authenticates, as 403 messages name them. */
  user?: string
  faults?: Fault[]
  /** Fields of GET /version that override the scenario's. */
  version?: Partial<VersionInfo>
  /** The pods/exec subprotocols served, most preferred first. Default: v5 and v4. */
  execProtocols?: ExecProtocol[]
  /** Benchmarks: after the first `realRuns` execs, answer each with this recorded stdout instead of running the command. */
  execReplay?: {stdout: string; realRuns: number}
  /**
   * What the pods' own HTTP servers answer through pods/proxy: the port every pod listens on, each path's
   * body (Prometheus text for /metrics), and other bodies for some pods by name; one per port (kube-proxy's
   * metrics and health servers). Unset: no pod listens.
   */
  podHttp?: PodHttp | PodHttp[]
  /** What the nodes' kubelets do with created pods. */
  kubelet?: KubeletOptions
  /** Labels of namespaces made for the scenario (such as Pod Security's). */
  namespaceLabels?: Record<string, Record<string, string>>
}

/** A pod's answer: its body (200), or its status and body. */
type PodReply = string | {status: number; body: string}

export interface PodHttp {
  port: number
  /** Each path's answer, or its answers in turn (per pod: a second read gets the second; the last repeats). */
  paths: Record<string, PodReply | PodReply[]>
  byPod?: Record<string, Record<string, PodReply | PodReply[]>>
}

export interface ApiServer {
  /** https://127.0.0.1:<port> */
  url: string
  /** PEM of the CA that signed the server's certificate. */
  ca: string
  token: string
  /** Every request received, in order. */
  requests: RecordedRequest[]
  /** The objects a collection holds now (`/api/v1/pods`, `/api/v1/namespaces`), parsed. */
  objects(collectionPath: string): AnyObject[]
  close(): Promise<void>
}

type AnyObject = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

// --- resources ------------------------------------------------------------------------------------

interface ResourceType {
  groupVersion: string
  resource: string
  kind: string
  namespaced: boolean
  /** A custom resource: served only when the scenario holds its collection (its CRD is installed). */
  custom?: true
  /** Field labels its objects can be selected by besides metadata's, and how each is read. */
  fields?: Record<string, (object: AnyObject) => string>
}

const RESOURCE_TYPES: ResourceType[] = [
  {groupVersion: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false},
  {groupVersion: 'v1', resource: 'nodes', kind: 'Node', namespaced: false},
  {
    groupVersion: 'v1',
    resource: 'pods',
    kind: 'Pod',
    namespaced: true,
    fields: {'spec.nodeName': (pod) => pod.spec?.nodeName ?? '', 'status.phase': (pod) => pod.status?.phase ?? ''},
  },
  {groupVersion: 'v1', resource: 'services', kind: 'Service', namespaced: true},
  {groupVersion: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true},
  {groupVersion: 'apps/v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true},
  {groupVersion: 'apps/v1', resource: 'deployments', kind: 'Deployment', namespaced: true},
  {groupVersion: 'apps/v1', resource: 'statefulsets', kind: 'StatefulSet', namespaced: true},
  {groupVersion: 'batch/v1', resource: 'jobs', kind: 'Job', namespaced: true},
  {groupVersion: 'batch/v1', resource: 'cronjobs', kind: 'CronJob', namespaced: true},
  {groupVersion: 'discovery.k8s.io/v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true},
  {groupVersion: 'networking.k8s.io/v1', resource: 'ingresses', kind: 'Ingress', namespaced: true},
  {groupVersion: 'operator.tigera.io/v1', resource: 'installations', kind: 'Installation', namespaced: false, custom: true},
  {groupVersion: 'crd.projectcalico.org/v1', resource: 'felixconfigurations', kind: 'FelixConfiguration', namespaced: false, custom: true},
  {groupVersion: 'monitoring.coreos.com/v1', resource: 'prometheusrules', kind: 'PrometheusRule', namespaced: true, custom: true},
  {groupVersion: 'config.openshift.io/v1', resource: 'networks', kind: 'Network', namespaced: false, custom: true},
]

const groupOf = (type: ResourceType) => (type.groupVersion.includes('/') ? type.groupVersion.split('/', 1)[0] : '')
const groupVersionPath = (groupVersion: string) => (groupVersion === 'v1' ? '/api/v1' : `/apis/${groupVersion}`)
const collectionPath = (type: ResourceType) => `${groupVersionPath(type.groupVersion)}/${type.resource}`
/** `services`, `daemonsets.apps`: how Status messages name a resource. */
const qualifiedName = (type: ResourceType) => (groupOf(type) ? `${type.resource}.${groupOf(type)}` : type.resource)

const DEFAULT_VERSION: VersionInfo = {
  major: '1',
  minor: '33',
  gitVersion: 'v1.33.5',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-09-09T19:44:50Z',
  goVersion: 'go1.24.6',
  compiler: 'gc',
  platform: 'linux/amd64',
}

/** Namespaces every cluster has. */
const SYSTEM_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system']
/** Set on objects that have no creationTimestamp (manifests rather than captures). */
const CREATED_AT = '2026-01-05T08:00:00Z'

interface StoredObject {
  name: string
  namespace: string
  /** `namespace/name` or `name`: the sort order of lists and the position a continue token holds. */
  key: string
  labels: Record<string, string>
  fields: Record<string, string>
  /** The object as JSON, UTF-8 encoded once: a page is these buffers written one after another. */
  json: Buffer
  hasTypeMeta: boolean
}

interface Collection {
  type: ResourceType
  objects: StoredObject[]
}

type Route =
  | {kind: 'document'; body: string}
  | {kind: 'exec'; collection: Collection; namespace: string; name: string}
  | {kind: 'get'; collection: Collection; namespace?: string; name: string}
  | {kind: 'list'; collection: Collection; namespace?: string}
  | {kind: 'log'; collection: Collection; namespace: string; name: string}
  | {kind: 'proxy'; collection: Collection; namespace: string; name: string; port: string; path: string}
  | {kind: 'unknown'}

interface Answer {
  status: number
  /** A page of a list comes in pieces, written in turn rather than joined (11 MB join: 50 ms). */
  body: Buffer[] | string
  headers?: Record<string, string>
  /**
   * How the body goes out: whole (default), cut off halfway with the connection, a few bytes at a
   * time, or as a watch that sees no change and ends after its timeout.
   */
  delivery?: {bytesPerSecond: number; kind: 'drip'} | {kind: 'reset'} | {kind: 'watch'; seconds: number}
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
}

/** A `Status` object, as the API server answers every error. */
function statusAnswer(code: number, message: string, details?: Record<string, unknown>, headers?: Record<string, string>, reason = REASONS[code]): Answer {
  const body = {kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details && {details}), code}
  return {status: code, body: JSON.stringify(body), headers}
}

const COMMA = Buffer.from(',')
const LIST_END = Buffer.from(']}')

const NOT_FOUND = statusAnswer(404, 'the server could not find the requested resource', {})

/** The objects of a scenario, serialised once, and the answers to GETs for them. */
class ObjectStore {
  private readonly collections = new Map<string, Collection>()
  private resourceVersion = 1_000_000
  private podsReplaced = 0

  constructor(
    scenario: Scenario,
    private readonly namespaceLabels: Record<string, Record<string, string>> = {},
  ) {
    const typesByPath = new Map(RESOURCE_TYPES.map((type) => [collectionPath(type), type]))
    for (const [path, objects] of Object.entries(scenario.objects)) {
      const type = typesByPath.get(path)
      if (!type) throw new Error(`test API server: no resource type for the collection ${path}; add it to RESOURCE_TYPES`)
      this.collections.set(path, {type, objects: objects.map((object) => this.store(type, object)).toSorted(byKey)})
    }

    for (const type of RESOURCE_TYPES) {
      if (!type.custom && !this.collections.has(collectionPath(type))) this.collections.set(collectionPath(type), {type, objects: []})
    }

    const namespaces = this.collections.get('/api/v1/namespaces')!
    if (namespaces.objects.length === 0) namespaces.objects = this.namespaceObjects(namespaces.type)
  }

  /** The resource types served: built-in ones and the custom resources the scenario installs. */
  get types(): ResourceType[] {
    return [...this.collections.values()].map((collection) => collection.type)
  }

  get listResourceVersion(): string {
    return String(this.resourceVersion)
  }

  route(path: string): Route {
    const match = /^(\/api\/v1|\/apis\/[^/]+\/[^/]+)\/(.+)$/.exec(path)
    if (!match) return {kind: 'unknown'}
    const [, prefix, rest] = match
    const segments = rest.split('/')
    const collection = (resource: string) => this.collections.get(`${prefix}/${resource}`)
    const clusterScoped = collection(segments[0])
    if (clusterScoped && segments.length <= 2 && (segments.length === 1 || !clusterScoped.type.namespaced)) {
      return segments.length === 1 ? {kind: 'list', collection: clusterScoped} : {kind: 'get', collection: clusterScoped, name: segments[1]}
    }

    if (segments[0] === 'namespaces' && segments[2] === 'pods' && segments[4] === 'proxy' && collection('pods')) {
      // pods/<[scheme:]name[:port]>/proxy/<path>: the pod's own server, on its port.
      const [name, port = ''] = segments[3].replace(/^https?:/, '').split(':')
      return {kind: 'proxy', collection: collection('pods')!, namespace: segments[1], name, port, path: `/${segments.slice(5).join('/')}`}
    }

    const namespaced = segments[0] === 'namespaces' && segments.length <= 5 ? collection(segments[2]) : undefined
    if (!namespaced?.type.namespaced) return {kind: 'unknown'}
    const namespace = segments[1]
    if (segments.length === 5) {
      const subresource = segments[2] === 'pods' && (segments[4] === 'log' || segments[4] === 'exec') ? segments[4] : undefined
      return subresource ? {kind: subresource, collection: namespaced, namespace, name: segments[3]} : {kind: 'unknown'}
    }


    return segments.length === 3 ? {kind: 'list', collection: namespaced, namespace} : {kind: 'get', collection: namespaced, namespace, name: segments[3]}
  }

  get(collection: Collection, name: string, namespace = ''): Answer {
    const key = namespace ? `${namespace}/${name}` : name
    const object = collection.objects.find((candidate) => candidate.key === key)
    const {type} = collection
    if (!object) {
      return statusAnswer(404, `${qualifiedName(type)} "${name}" not found`, {name, ...(groupOf(type) && {group: groupOf(type)}), kind: type.resource})
    }

    const typeMeta = Buffer.from(`{"kind":"${type.kind}","apiVersion":"${type.groupVersion}",`)
    return {status: 200, body: object.hasTypeMeta ? [object.json] : [typeMeta, object.json.subarray(1)]}
  }

  /** The object itself, parsed, or undefined when there is none. */
  object(collection: Collection, name: string, namespace = ''): AnyObject | undefined {
    const key = namespace ? `${namespace}/${name}` : name
    const object = collection.objects.find((candidate) => candidate.key === key)
    return object && (JSON.parse(object.json.toString('utf8')) as AnyObject)
  }

  list(collection: Collection, query: URLSearchParams, namespace?: string): Answer {
    const matchers: Matcher[] = []
    if (namespace !== undefined) matchers.push((object) => object.namespace === namespace)
    const selectors = [query.get('labelSelector'), query.get('fieldSelector')]
    try {
      if (selectors[0]) matchers.push(labelSelector(selectors[0]))
      if (selectors[1]) matchers.push(fieldSelector(selectors[1], Object.keys(collection.type.fields ?? {})))
    } catch (error) {
      if (error instanceof SelectorError) return statusAnswer(400, error.message)
      throw error
    }

    const matching = matchers.length === 0 ? collection.objects : collection.objects.filter((object) => matchers.every((matches) => matches(object)))
    let start = 0
    const token = query.get('continue')
    if (token) {
      const startKey = decodeContinue(token)
      if (startKey === undefined) return statusAnswer(400, `continue key is not valid: ${token}`)
      start = firstIndexAtOrAfter(matching, startKey)
    }

    const limit = Number(query.get('limit'))
    const end = limit > 0 ? Math.min(start + limit, matching.length) : matching.length
    const page = matching.slice(start, end)
    const metadata: Record<string, number | string> = {resourceVersion: this.listResourceVersion}
    if (end < matching.length) {
      metadata.continue = encodeContinue(this.listResourceVersion, page.at(-1)!.key)
      // As the real server: the count of what is left is known only for an unfiltered list.
      if (!selectors[0] && !selectors[1]) metadata.remainingItemCount = matching.length - end
    }

    const {type} = collection
    const body: Buffer[] = [Buffer.from(`{"kind":"${type.kind}List","apiVersion":"${type.groupVersion}","metadata":${JSON.stringify(metadata)},"items":[`)]
    for (const [index, object] of page.entries()) {
      if (index > 0) body.push(COMMA)
      body.push(object.json)
    }

    body.push(LIST_END)
    return {status: 200, body}
  }

  collectionAt(path: string): Collection | undefined {
    return this.collections.get(path)
  }

  /** Every object of the collection at `path`, parsed. */
  all(path: string): AnyObject[] {
    return (this.collections.get(path)?.objects ?? []).map((object) => JSON.parse(object.json.toString('utf8')) as AnyObject)
  }

  /** Adds an object the client created; 409 when one of its name is there. */
  create(collection: Collection, object: AnyObject): Answer {
    const {type} = collection
    const key = object.metadata.namespace ? `${object.metadata.namespace}/${object.metadata.name}` : object.metadata.name
    if (collection.objects.some((candidate) => candidate.key === key)) {
      return statusAnswer(409, `${qualifiedName(type)} "${object.metadata.name}" already exists`, {name: object.metadata.name, kind: type.resource}, undefined, 'AlreadyExists')
    }

    const stored = this.store(type, {...object, metadata: {...object.metadata, creationTimestamp: object.metadata.creationTimestamp ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z')}})
    collection.objects.push(stored)
    collection.objects.sort(byKey)
    return {status: 201, body: [stored.json]}
  }

  /** Replaces an object's status; false when it is gone. */
  setStatus(collection: Collection, key: string, status: AnyObject): boolean {
    const index = collection.objects.findIndex((candidate) => candidate.key === key)
    if (index === -1) return false
    const object = JSON.parse(collection.objects[index].json.toString('utf8')) as AnyObject
    collection.objects[index] = this.store(collection.type, {...object, metadata: {...object.metadata, resourceVersion: undefined}, status})
    return true
  }

  /**
   * Replaces an object as PUT does (or as a PATCH, applied to it, does): 404 when it is not there, 409 when the
   * body's resourceVersion or uid is not the stored one; the new object gets a new resourceVersion.
   */
  update(collection: Collection, name: string, namespace: string, next: (current: AnyObject) => AnyObject): Answer {
    const key = namespace ? `${namespace}/${name}` : name
    const index = collection.objects.findIndex((candidate) => candidate.key === key)
    if (index === -1) return this.get(collection, name, namespace)
    const current = JSON.parse(collection.objects[index].json.toString('utf8')) as AnyObject
    let wanted: AnyObject
    try {
      wanted = next(current)
    } catch (error) {
      if (error instanceof PatchError) return statusAnswer(error.status, error.message)
      throw error
    }

    const {type} = collection
    const refusal = updateRefusal(current, wanted, {qualified: `${qualifiedName(type)} "${name}"`, name})
    if (refusal) return statusAnswer(refusal.status, refusal.message, {name, ...(groupOf(type) && {group: groupOf(type)}), kind: type.resource})
    const stored = this.store(type, {...updatedObject(current, wanted), kind: type.kind, apiVersion: type.groupVersion})
    collection.objects[index] = stored
    return {status: 200, body: [stored.json]}
  }

  /** Deletes an object; a DaemonSet's pods go with it, as the garbage collector takes them. */
  remove(collection: Collection, name: string, namespace: string): Answer {
    const index = collection.objects.findIndex((candidate) => candidate.key === `${namespace}/${name}`)
    if (index === -1) return this.get(collection, name, namespace)
    const [deleted] = collection.objects.splice(index, 1)
    if (collection.type.resource === 'daemonsets') {
      const pods = this.collections.get('/api/v1/pods')!
      const owned = (object: StoredObject) => {
        const references = (JSON.parse(object.json.toString('utf8')) as AnyObject).metadata.ownerReferences as Array<{kind: string; name: string}> | undefined
        return object.namespace === namespace && (references ?? []).some((reference) => reference.kind === 'DaemonSet' && reference.name === name)
      }

      pods.objects = pods.objects.filter((object) => !owned(object))
    }

    return {status: 200, body: [deleted.json]}
  }

  /** Deletes a Namespace and every object in it. */
  deleteNamespace(collection: Collection, name: string, removed: (object: StoredObject, type: ResourceType) => void): Answer {
    const index = collection.objects.findIndex((candidate) => candidate.key === name)
    if (index === -1) return this.get(collection, name)
    const [deleted] = collection.objects.splice(index, 1)
    for (const other of this.collections.values()) {
      other.objects = other.objects.filter((object) => {
        if (object.namespace !== name) return true
        removed(object, other.type)
        return false
      })
    }

    return {status: 200, body: [deleted.json]}
  }

  private store(type: ResourceType, object: KubeObject): StoredObject {
    const name = object.metadata?.name
    const namespace = object.metadata?.namespace ?? ''
    if (!name) throw new Error(`test API server: a ${type.kind} without metadata.name`)
    if (type.namespaced !== (namespace !== '')) {
      throw new Error(`test API server: ${type.kind} ${name} ${type.namespaced ? 'needs a metadata.namespace' : 'is cluster-scoped and has a namespace'}`)
    }

    const key = namespace ? `${namespace}/${name}` : name
    const given = object.metadata as Record<string, unknown>
    const metadata = {
      ...given,
      uid: given.uid ?? uidOf(`${collectionPath(type)}/${key}`),
      resourceVersion: given.resourceVersion ?? String(++this.resourceVersion),
      creationTimestamp: given.creationTimestamp ?? CREATED_AT,
    }
    const json = Buffer.from(JSON.stringify({...object, metadata}))
    const fields = Object.fromEntries(Object.entries(type.fields ?? {}).map(([field, read]) => [field, read(object)]))
    return {name, namespace, key, labels: object.metadata?.labels ?? {}, fields, json, hasTypeMeta: object.kind !== undefined}
  }

  /**
   * Deletes a Pod at once (no grace period), answering with the object as the real server does. The
   * Pod a DaemonSet owns is replaced, as its controller and the node's kubelet would: a new name on
   * the same node, Running and Ready, its containers started afresh.
   */
  deletePod(collection: Collection, name: string, namespace: string): Answer {
    const index = collection.objects.findIndex((candidate) => candidate.key === `${namespace}/${name}`)
    if (index === -1) return this.get(collection, name, namespace)
    const [deleted] = collection.objects.splice(index, 1)
    const pod = JSON.parse(deleted.json.toString('utf8')) as AnyObject
    const owner = (pod.metadata.ownerReferences as Array<{kind: string; name: string}> | undefined)?.find((reference) => reference.kind === 'DaemonSet')
    if (owner) {
      this.podsReplaced += 1
      const started = '2026-01-05T09:00:00Z'
      const containers = (pod.spec?.containers ?? []) as Array<{image: string; name: string}>
      const replacement = {
        ...pod,
        metadata: {...pod.metadata, name: `${owner.name}-${uidOf(`${name}/${this.podsReplaced}`).slice(0, 5)}`, uid: undefined, resourceVersion: undefined, creationTimestamp: started},
        status: {
          ...pod.status,
          phase: 'Running',
          startTime: started,
          conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({type, status: 'True', lastTransitionTime: started})),
          containerStatuses: containers.map((container) => ({name: container.name, image: container.image, ready: true, started: true, restartCount: 0, state: {running: {startedAt: started}}})),
        },
      }
      collection.objects.push(this.store(collection.type, replacement))
      collection.objects.sort(byKey)
    }

    return {status: 200, body: [deleted.json]}
  }

  private namespaceObjects(type: ResourceType): StoredObject[] {
    const used = [...this.collections.values()].flatMap((collection) => collection.objects.map((object) => object.namespace))
    const names = [...new Set([...SYSTEM_NAMESPACES, ...used])].filter((name) => name !== '')
    return names
      .map((name) =>
        this.store(type, {
          metadata: {name, labels: {'kubernetes.io/metadata.name': name, ...this.namespaceLabels[name]}},
          spec: {finalizers: ['kubernetes']},
          status: {phase: 'Active'},
        }),
      )
      .toSorted(byKey)
  }
}

const byKey = (a: StoredObject, b: StoredObject) => (a.key < b.key ? -1 : (a.key > b.key ? 1 : 0))

/** A stable, UUID-shaped uid: the same object gets the same uid every run. */
function uidOf(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

/** Shaped like the real server's tokens: base64 of the list's resourceVersion and the next etcd key. */
function encodeContinue(resourceVersion: string, lastKey: string): string {
  return Buffer.from(JSON.stringify({v: 'meta.k8s.io/v1', rv: Number(resourceVersion), start: `${lastKey}\u0000`})).toString('base64')
}

function decodeContinue(token: string): string | undefined {
  try {
    const decoded = JSON.parse(Buffer.from(token, 'base64').toString('utf8'))
    return decoded.v === 'meta.k8s.io/v1' && typeof decoded.start === 'string' ? decoded.start : undefined
  } catch {
    return undefined
  }
}

function firstIndexAtOrAfter(objects: StoredObject[], key: string): number {
  let low = 0
  let high = objects.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (objects[middle].key < key) low = middle + 1
    else high = middle
  }

  return low
}

// --- discovery ------------------------------------------------------------------------------------

function discoveryDocuments(types: ResourceType[], version: VersionInfo, serverAddress: string): Map<string, string> {
  const groupVersions = [...new Set(types.map((type) => type.groupVersion))]
  const apiGroup = (groupVersion: string) => {
    const [name, groupVersionNumber] = groupVersion.split('/')
    const preferred = {groupVersion, version: groupVersionNumber}
    return {name, versions: [preferred], preferredVersion: preferred}
  }

  const named = groupVersions.filter((groupVersion) => groupVersion !== 'v1')
  const documents: Array<[string, unknown]> = [
    ['/version', version],
    ['/api', {kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{clientCIDR: '0.0.0.0/0', serverAddress}]}],
    ['/apis', {kind: 'APIGroupList', apiVersion: 'v1', groups: named.map((groupVersion) => apiGroup(groupVersion))}],
    ...named.map((groupVersion): [string, unknown] => [`/apis/${groupVersion.split('/', 1)[0]}`, {kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(groupVersion)}]),
    ...groupVersions.map((groupVersion): [string, unknown] => [
      groupVersionPath(groupVersion),
      {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion,
        resources: types
          .filter((type) => type.groupVersion === groupVersion)
          .map((type) => ({name: type.resource, singularName: type.kind.toLowerCase(), namespaced: type.namespaced, kind: type.kind, verbs: verbsOf(type)})),
      },
    ]),
    ...openApiDocuments(types),
  ]
  return new Map(documents.map(([path, document]) => [path, JSON.stringify(document)]))
}

function verbsOf(type: ResourceType): string[] {
  return ['get', 'list', ...(WRITABLE.has(type.resource) ? ['create', 'delete'] : []), ...(UPDATABLE.has(type.resource) ? ['update', 'patch'] : [])]
}

/**
 * /openapi/v3 as far as kubectl reads it before it writes: the root names each group version's document, and
 * each document says which kind a path's PATCH is for and that it takes `fieldValidation`, so kubectl leaves
 * validation to the server (`?fieldValidation=Strict`) instead of downloading schemas. No schemas are served.
 */
function openApiDocuments(types: ResourceType[]): Array<[string, unknown]> {
  const groupVersions = [...new Set(types.map((type) => type.groupVersion))]
  const documentPath = (groupVersion: string) => `/openapi/v3${groupVersionPath(groupVersion)}`
  const root: [string, unknown] = ['/openapi/v3', {paths: Object.fromEntries(groupVersions.map((groupVersion) => [documentPath(groupVersion).slice('/openapi/v3/'.length), {serverRelativeURL: documentPath(groupVersion)}]))}]
  const fieldValidation = {name: 'fieldValidation', in: 'query', schema: {type: 'string', uniqueItems: true}}
  return [
    root,
    ...groupVersions.map((groupVersion): [string, unknown] => {
      const [group, version] = groupVersion.includes('/') ? groupVersion.split('/') : ['', groupVersion]
      const paths = types
        .filter((type) => type.groupVersion === groupVersion)
        .map((type) => {
          const path = `${groupVersionPath(groupVersion)}/${type.namespaced ? 'namespaces/{namespace}/' : ''}${type.resource}/{name}`
          const operation = {parameters: [fieldValidation], 'x-kubernetes-group-version-kind': {group, version, kind: type.kind}}
          return [path, {get: {'x-kubernetes-group-version-kind': {group, version, kind: type.kind}}, ...(UPDATABLE.has(type.resource) ? {put: operation, patch: operation} : {})}]
        })
      return [documentPath(groupVersion), {openapi: '3.0.0', info: {title: 'Kubernetes', version: 'unversioned'}, paths: Object.fromEntries(paths)}]
    }),
  ]
}

/** The body of GET /version; major and minor follow gitVersion (`v1.33.5-eks-3025e55` → "1", "33") unless given. */
function versionInfo(scenario?: Partial<VersionInfo>, override?: Partial<VersionInfo>): VersionInfo {
  const given = {...scenario, ...override}
  const [, major, minor] = /^v(\d+)\.(\d+)/.exec(given.gitVersion ?? '') ?? []
  return {...DEFAULT_VERSION, ...(major && {major, minor}), ...given}
}

// --- faults ---------------------------------------------------------------------------------------

class FaultPlan {
  private readonly seen: number[]

  constructor(private readonly faults: Fault[]) {
    this.seen = faults.map(() => 0)
  }

  /** The fault this request meets, if any; every fault whose path (and method) matches counts the request. */
  next(path: string, method = 'GET'): Fault | undefined {
    let chosen: Fault | undefined
    for (const [index, fault] of this.faults.entries()) {
      if (typeof fault.path === 'string' ? fault.path !== path : !fault.path.test(path)) continue
      if (fault.method !== undefined && fault.method !== method) continue
      const count = ++this.seen[index]
      const after = fault.after ?? 0
      if (!chosen && count > after && count <= after + (fault.times ?? Number.POSITIVE_INFINITY)) chosen = fault
    }

    return chosen
  }
}

function forbidden(route: Route, user: string, path: string, method: string): Answer {
  if (route.kind === 'exec') {
    const message = `pods "${route.name}" is forbidden: User "${user}" cannot create resource "pods/exec" in API group "" in the namespace "${route.namespace}"`
    return statusAnswer(403, message, {name: route.name, kind: 'pods'})
  }

  if (route.kind === 'proxy') {
    const name = `${route.name}${route.port ? `:${route.port}` : ''}`
    return statusAnswer(403, `pods "${name}" is forbidden: User "${user}" cannot get resource "pods/proxy" in API group "" in the namespace "${route.namespace}"`, {name, kind: 'pods'})
  }

  if (route.kind !== 'get' && route.kind !== 'list') return statusAnswer(403, `forbidden: User "${user}" cannot get path "${path}"`, {})
  const {type} = route.collection
  const group = groupOf(type)
  const subject = route.kind === 'get' ? `${qualifiedName(type)} "${route.name}"` : qualifiedName(type)
  const scope = route.namespace === undefined ? 'at the cluster scope' : `in the namespace "${route.namespace}"`
  const verb = {POST: 'create', DELETE: 'delete'}[method] ?? route.kind
  const message = `${subject} is forbidden: User "${user}" cannot ${verb} resource "${type.resource}" in API group "${group}" ${scope}`
  return statusAnswer(403, message, {...(route.kind === 'get' && {name: route.name}), ...(group && {group}), kind: type.resource})
}

// --- server ---------------------------------------------------------------------------------------

export async function startApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  const scenario = typeof options.scenario === 'string' ? loadScenario(options.scenario) : (options.scenario ?? {objects: {}})
  const store = new ObjectStore(scenario, options.namespaceLabels)
  const tls = await testTls()
  const token = options.token ?? DEFAULT_TOKEN
  const user = options.user ?? DEFAULT_USER
  const faults = new FaultPlan(options.faults ?? [])
  const requests: RecordedRequest[] = []
  /** How often each pod was asked each path through pods/proxy: its next answer in turn. */
  const podHttpAsked = new Map<string, number>()
  let execs = 0
  let documents = new Map<string, string>()
  const abort = new AbortController()

  const answer = async (request: IncomingMessage, record: RecordedRequest, url: URL): Promise<Answer | undefined> => {
    if (request.headers.authorization !== `Bearer ${token}`) return statusAnswer(401, 'Unauthorized')
    const document = documents.get(record.path)
    const route: Route = document === undefined ? store.route(record.path) : {kind: 'document', body: document}
    const resource = route.kind === 'get' || route.kind === 'list' ? route.collection.type.resource : ''
    const deletes = request.method === 'DELETE' && route.kind === 'get' && WRITABLE.has(resource)
    const creates = request.method === 'POST' && route.kind === 'list' && (resource === 'nodes' || (WRITABLE.has(resource) && (resource === 'namespaces' || route.namespace !== undefined)))
    const updates = (request.method === 'PUT' || request.method === 'PATCH') && route.kind === 'get' && UPDATABLE.has(resource)
    if (request.method !== 'GET' && !deletes && !creates && !updates) return statusAnswer(405, 'the server does not allow this method on the requested resource', {})
    const body = creates || updates ? await readBody(request) : undefined
    if (body !== undefined) record.body = parsedOrNothing(body)
    const fault = faults.next(record.path, request.method)
    switch (fault?.kind) {
      case 'hang': {
        return undefined
      }
      case 'slow': {
        await sleep(fault.delayMs, undefined, {signal: abort.signal})
        break
      }
      case 'throttle': {
        const seconds = fault.retryAfterSeconds ?? 1
        return statusAnswer(429, 'Too many requests, please try again later.', {retryAfterSeconds: seconds}, {'Retry-After': String(seconds)})
      }

      case 'error': {
        return fault.status === 503
          ? statusAnswer(503, 'the server is currently unable to handle the request', {})
          : statusAnswer(500, 'Internal error occurred: injected by the test API server', {causes: [{message: 'injected by the test API server'}]})
      }
      case 'forbidden': {
        return forbidden(route, user, record.path, request.method ?? 'GET')
      }
      case 'reject': {
        return statusAnswer(fault.status, fault.message, {})
      }
      case 'body': {
        return {status: 200, body: fault.body}
      }
    }

    if (creates && route.kind === 'list') return createObject(route.collection, route.namespace, body!)
    if (updates && route.kind === 'get') return updateObject(route.collection, route.name, route.namespace ?? '', body!, request)
    const result = deletes && route.kind === 'get' ? deleteObject(route.collection, route.name, route.namespace) : routeAnswer(route, url)
    if (fault?.kind === 'reset') return {...result, delivery: {kind: 'reset'}}
    if (fault?.kind === 'drip') return {...result, delivery: {kind: 'drip', bytesPerSecond: fault.bytesPerSecond}}
    return result
  }

  const routeAnswer = (route: Route, url: URL): Answer => {
    switch (route.kind) {
      case 'document': {
        return {status: 200, body: route.body}
      }
      case 'get': {
        return store.get(route.collection, route.name, route.namespace)
      }
      case 'list': {
        if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') {
          return {status: 200, body: [], delivery: {kind: 'watch', seconds: Math.min(Number(url.searchParams.get('timeoutSeconds')) || 5, 5)}}
        }

        return store.list(route.collection, url.searchParams, route.namespace)
      }
      case 'log': {
        // The kubelet streams the container's log: what a pod it ran printed, else nothing.
        const pod = store.get(route.collection, route.name, route.namespace)
        const limit = Number(url.searchParams.get('limitBytes')) || Number.POSITIVE_INFINITY
        const log = Buffer.from(kubelets.log(route.namespace, route.name) ?? '')
        return pod.status === 200 ? {status: 200, body: [log.subarray(0, Math.min(limit, log.length))], headers: {'Content-Type': 'text/plain'}} : pod
      }
      case 'exec': {
        return statusAnswer(400, 'Upgrade request required')
      }
      case 'proxy': {
        return podHttpAnswer(store, route, [options.podHttp ?? []].flat(), podHttpAsked)
      }
      case 'unknown': {
        return NOT_FOUND
      }
    }
  }

  /** What answers an exec upgrade instead of the command: a refusal, a hang (undefined), or nothing (undefined too, once upgraded). */
  const upgradeRefusal = (request: IncomingMessage, record: RecordedRequest, url: URL, socket: Duplex, head: Buffer): Answer | undefined => {
    if (request.headers.authorization !== `Bearer ${token}`) return statusAnswer(401, 'Unauthorized')
    const route = store.route(record.path)
    if (route.kind !== 'exec') return statusAnswer(400, 'the server could not upgrade this request', {})
    const fault = faults.next(record.path)
    if (fault?.kind === 'hang') {
      hanging.add(socket)
      return undefined
    }

    if (fault?.kind === 'forbidden') return forbidden(route, user, record.path, request.method ?? 'GET')
    const pod = store.object(route.collection, route.name, route.namespace)
    if (!pod) return store.get(route.collection, route.name, route.namespace)
    const containers = ((pod.spec?.containers ?? []) as Array<{name: string}>).map((container) => container.name)
    const container = url.searchParams.get('container') ?? (containers.length === 1 ? containers[0] : '')
    if (!containers.includes(container)) return statusAnswer(400, `container ${container} is not valid for pod ${route.name}`)
    if (pod.status?.phase !== 'Running') return statusAnswer(400, `unable to upgrade connection: pod ${route.name} is not running (phase ${pod.status?.phase ?? 'unknown'})`)
    if (!exec.speaksProtocol(request)) return statusAnswer(400, 'unable to upgrade connection: the client offers none of the subprotocols this server speaks')
    record.status = 101
    const replay = options.execReplay && ++execs > options.execReplay.realRuns ? {replay: options.execReplay.stdout} : {}
    exec.upgrade(request, socket, head, {command: url.searchParams.getAll('command'), stdin: url.searchParams.get('stdin') === 'true', noShell: fault?.kind === 'no-shell', ...replay})
    return undefined
  }

  const upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'https://127.0.0.1')
    const record: RecordedRequest = {method: request.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams)}
    requests.push(record)
    socket.on('error', () => {}) // a client that gives up mid-exchange
    const refusal = upgradeRefusal(request, record, url, socket, head)
    if (!refusal) return
    record.status = refusal.status
    const body = typeof refusal.body === 'string' ? refusal.body : Buffer.concat(refusal.body).toString('utf8')
    socket.end(`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  }

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'https://127.0.0.1')
    const record: RecordedRequest = {method: request.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams)}
    requests.push(record)
    answer(request, record, url).then(
      (result) => {
        if (!result) return
        record.status = result.status
        if (result.delivery?.kind === 'watch') {
          response.writeHead(200, {'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked'})
          response.flushHeaders()
          const timer = setTimeout(() => response.end(), result.delivery.seconds * 1000)
          response.on('close', () => clearTimeout(timer))
          return
        }

        const pieces = typeof result.body === 'string' ? [Buffer.from(result.body)] : result.body
        const length = pieces.reduce((total, piece) => total + piece.length, 0)
        response.writeHead(result.status, {'Content-Type': 'application/json', 'Content-Length': String(length), ...result.headers})
        if (result.delivery?.kind === 'reset') {
          const body = Buffer.concat(pieces)
          response.write(body.subarray(0, Math.floor(body.length / 2)), () => response.socket?.destroy())
        } else if (result.delivery?.kind === 'drip') {
          drip(response, Buffer.concat(pieces), result.delivery.bytesPerSecond, abort.signal)
        } else {
          response.cork()
          for (const piece of pieces) response.write(piece)
          response.end()
        }
      },
      (error: Error) => {
        // A `slow` answer cut short by close() has nobody left to answer.
        if (error.name !== 'AbortError') response.destroy(error)
      },
    )
  }

  const namespacesMade = new Map<string, number>()
  /** A created Pod (in an existing namespace, past Pod Security) goes to its node's kubelet; a Namespace or a Node is stored. */
  const createObject = (collection: Collection, namespace: string | undefined, body: string): Answer => {
    let object: AnyObject
    try {
      object = JSON.parse(body) as AnyObject
    } catch {
      return statusAnswer(400, 'the body of the request was in an unknown format')
    }

    if (typeof object?.metadata?.name !== 'string') return statusAnswer(422, `${collection.type.kind} is invalid: metadata.name: Required value: name or generateName is required`)
    if (namespace === undefined) {
      if (collection.type.resource === 'namespaces') namespacesMade.set(object.metadata.name, Date.now())
      return store.create(collection, object)
    }

    const namespaceObject = store.all('/api/v1/namespaces').find((candidate) => candidate.metadata.name === namespace)
    if (!namespaceObject) return statusAnswer(404, `namespaces "${namespace}" not found`, {name: namespace, kind: 'namespaces'})
    // As etcd's storage refuses it: a create names no version of the object.
    if (object.metadata.resourceVersion) return statusAnswer(500, 'Internal error occurred: resourceVersion should not be set on objects to be created', {causes: [{message: 'resourceVersion should not be set on objects to be created'}]})
    if (collection.type.resource !== 'pods') return store.create(collection, {...object, metadata: {...object.metadata, namespace}})
    // As the ServiceAccount admission does until the controller has made a new namespace's default service account.
    if (Date.now() - (namespacesMade.get(namespace) ?? 0) < SERVICE_ACCOUNT_DELAY_MS) {
      return statusAnswer(403, `pods "${object.metadata.name}" is forbidden: error looking up service account ${namespace}/default: serviceaccount "default" not found`, {name: object.metadata.name, kind: 'pods'})
    }

    const pod = {...object, metadata: {...object.metadata, namespace}}
    const violation = podSecurityViolation(pod, namespaceObject.metadata.labels?.['pod-security.kubernetes.io/enforce'])
    if (violation) return statusAnswer(403, violation, {name: pod.metadata.name, kind: 'pods'})
    const created = store.create(collection, {...pod, status: {phase: 'Pending'}})
    if (created.status === 201) store.setStatus(collection, `${namespace}/${pod.metadata.name}`, kubelets.admit(pod))
    return created
  }

  /** A PUT replaces the object with the body; a PATCH applies the body to it (merge, JSON or strategic merge patch). */
  const updateObject = (collection: Collection, name: string, namespace: string, body: string, request: IncomingMessage): Answer =>
    store.update(collection, name, namespace, (current) => {
      if (request.method === 'PATCH') return patched(current, body, request.headers['content-type'])
      const object = parsedOrNothing(body)
      if (!object) throw new PatchError(400, 'the body of the request was in an unknown format')
      return object
    })

  const deleteObject = (collection: Collection, name: string, namespace?: string): Answer => {
    if (collection.type.resource === 'namespaces') {
      return store.deleteNamespace(collection, name, (object, type) => type.resource === 'pods' && kubelets.forget(object.namespace, object.name))
    }

    if (collection.type.resource !== 'pods') return store.remove(collection, name, namespace ?? '')

    kubelets.forget(namespace ?? '', name)
    return store.deletePod(collection, name, namespace ?? '')
  }

  const kubelets = await Kubelets.start(options.kubelet ?? {}, {
    node: (name) => store.all('/api/v1/nodes').find((node) => node.metadata.name === name),
    setStatus: (namespace, name, status) => store.setStatus(store.collectionAt('/api/v1/pods')!, `${namespace}/${name}`, status),
  })
  const exec = await ExecEndpoint.start(options.execProtocols)
  const hanging = new Set<Duplex>()
  const server = createServer({key: tls.key, cert: tls.cert}, handle)
  server.on('upgrade', upgrade)
  try {
    // On a free port of 127.0.0.1. once() rejects on an 'error' (no port left), which would otherwise be an uncaught
    // exception, the caller waiting for ever for a 'listening' that never comes.
    await once(server.listen(0, '127.0.0.1'), 'listening')
  } catch (error) {
    await Promise.all([exec.close(), kubelets.close()])
    throw error
  }

  const {port} = server.address() as AddressInfo
  documents = discoveryDocuments(store.types, versionInfo(scenario.version, options.version), `127.0.0.1:${port}`)
  return {
    url: `https://127.0.0.1:${port}`,
    ca: tls.ca,
    token,
    requests,
    objects: (path) => store.all(path),
    async close() {
      abort.abort()
      for (const socket of hanging) socket.destroy()
      await exec.close()
      await kubelets.close()
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * A pod's own HTTP server through pods/proxy: its answer, 404 for a path it does not serve (as Go's
 * mux says it), or the API server's 503 when nothing listens on the port asked.
 */
function podHttpAnswer(store: ObjectStore, route: Extract<Route, {kind: 'proxy'}>, servers: readonly PodHttp[], asked: Map<string, number>): Answer {
  const pod = store.object(route.collection, route.name, route.namespace)
  if (!pod) return store.get(route.collection, route.name, route.namespace)
  const address = `${pod.status?.podIP ?? pod.status?.hostIP ?? '10.0.0.1'}:${route.port || '80'}`
  const served = servers.find((server) => route.port === String(server.port))
  if (!served) return statusAnswer(503, `error trying to reach service: dial tcp ${address}: connect: connection refused`, {})
  const replies = [(served.byPod?.[route.name] ?? served.paths)[route.path] ?? []].flat()
  const key = `${route.name}:${route.port}${route.path}`
  const turn = asked.get(key) ?? 0
  asked.set(key, turn + 1)
  const reply = replies[Math.min(turn, replies.length - 1)]
  if (reply === undefined) return {status: 404, body: '404 page not found\n', headers: {'Content-Type': 'text/plain; charset=utf-8'}}
  const {status, body} = typeof reply === 'string' ? {status: 200, body: reply} : reply
  const contentType = route.path === '/metrics' ? 'text/plain; version=0.0.4; charset=utf-8' : (route.path === '/healthz' ? 'application/json' : 'text/plain; charset=utf-8')
  return {status, body, headers: {'Content-Type': contentType}}
}

function parsedOrNothing(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>
  } catch {
    return undefined
  }
}

/** How long after a namespace is created its `default` service account is missing, and pods in it refused. */
const SERVICE_ACCOUNT_DELAY_MS = 300

/**
 * What a client may create and delete: probe pods and the namespace they run in, and the ConfigMaps and
 * DaemonSets a migration plan copies and restores.
 */
const WRITABLE = new Set(['pods', 'namespaces', 'configmaps', 'daemonsets'])
/** What a client may update (PUT) and patch: what a migration plan changes, and the labels of Nodes. */
const UPDATABLE = new Set(['configmaps', 'daemonsets', 'nodes'])

/** A request's body, at most 4 MiB (more is refused as the real server's limit would). */
function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let length = 0
    request.on('data', (chunk: Buffer) => {
      length += chunk.length
      if (length > 4 * 1024 * 1024) request.destroy(new Error('request body too large'))
      else chunks.push(chunk)
    })
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    request.on('error', reject)
  })
}

/**
 * Pod Security admission's refusal of a pod at the namespace's enforced level, in its own words
 * (`violates PodSecurity "baseline:latest": host namespaces (…), privileged (…), hostPath volumes (…)`);
 * undefined when the level allows the pod (privileged, or no label: the cluster's default here).
 */
function podSecurityViolation(pod: AnyObject, level: string | undefined): string | undefined {
  if (level !== 'baseline' && level !== 'restricted') return undefined
  const plural = (names: string[], one: string) => `${names.length === 1 ? one : `${one}s`} ${names.map((name) => `"${name}"`).join(', ')}`
  const hostNamespaces = ['hostNetwork', 'hostPID', 'hostIPC'].filter((field) => pod.spec?.[field] === true).map((field) => `${field}=true`)
  const privileged = ((pod.spec?.containers ?? []) as AnyObject[]).filter((container) => container.securityContext?.privileged === true).map((container) => container.name as string)
  const hostPaths = ((pod.spec?.volumes ?? []) as AnyObject[]).filter((volume) => volume.hostPath).map((volume) => volume.name as string)
  const violations = [
    ...(hostNamespaces.length > 0 ? [`host namespaces (${hostNamespaces.join(', ')})`] : []),
    ...(privileged.length > 0 ? [`privileged (${plural(privileged, 'container')} must not set securityContext.privileged=true)`] : []),
    ...(hostPaths.length > 0 ? [`hostPath volumes (${plural(hostPaths, 'volume')})`] : []),
  ]
  return violations.length > 0 ? `pods "${pod.metadata.name}" is forbidden: violates PodSecurity "${level}:latest": ${violations.join(', ')}` : undefined
}

/** Writes the body a few bytes at a time, until it is all out or the server closes. */
function drip(response: ServerResponse, body: Buffer, bytesPerSecond: number, signal: AbortSignal): void {
  let sent = 0
  const timer = setInterval(() => {
    if (signal.aborted || response.destroyed) {
      clearInterval(timer)
      return
    }

    const next = body.subarray(sent, sent + Math.max(1, Math.round(bytesPerSecond / 10)))
    sent += next.length
    if (sent >= body.length) {
      clearInterval(timer)
      response.end(next)
    } else {
      response.write(next)
    }
  }, 100)
}

// --- kubeconfig -----------------------------------------------------------------------------------

/** The second context of every kubeconfig written here, for `--context` tests. */
export const OTHER_CONTEXT = 'other'

interface KubeconfigOptions {
  /** Name of the current context, and of its cluster and user. Default: kpx-test. */
  context?: string
  /** The current context's token. Default: the one the server accepts. */
  token?: string
  /** The server of the context `other`. Default: this server, with a token it rejects (→ 401). */
  other?: ApiServer
}

/** Writes `<dir>/kubeconfig` for `server` (CA inline, bearer token) and returns its path. */
export function writeKubeconfig(dir: string, server: ApiServer, options: KubeconfigOptions = {}): string {
  const context = options.context ?? 'kpx-test'
  return writeContexts(dir, [
    {name: context, server, token: options.token ?? server.token},
    {name: OTHER_CONTEXT, server: options.other ?? server, token: options.other?.token ?? 'not-the-token'},
  ])
}

/** A context of a kubeconfig: a server (its URL, and its CA inline; without one, the system's CAs are trusted) and the token to send it. */
export interface KubeconfigContext {
  name: string
  server: Partial<Pick<ApiServer, 'ca'>> & Pick<ApiServer, 'url'>
  token: string
}

/** Writes `<dir>/kubeconfig` with these contexts, each of its own cluster and user, the first one current; returns its path. */
export function writeContexts(dir: string, entries: KubeconfigContext[]): string {
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: entries.map((entry) => ({
      name: entry.name,
      cluster: {server: entry.server.url, ...(entry.server.ca === undefined ? {} : {'certificate-authority-data': Buffer.from(entry.server.ca).toString('base64')})},
    })),
    users: entries.map((entry) => ({name: entry.name, user: {token: entry.token}})),
    contexts: entries.map((entry) => ({name: entry.name, context: {cluster: entry.name, user: entry.name}})),
    'current-context': entries[0].name,
  }
  const file = join(dir, 'kubeconfig')
  writeFileSync(file, toYaml(kubeconfig), {mode: 0o600})
  return file
}
