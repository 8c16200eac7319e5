import {ApiException, CoreV1Api, KubeConfig} from '@kubernetes/client-node'
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync} from 'node:fs'
import type {IncomingHttpHeaders} from 'node:http'
import {request} from 'node:https'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {KubeObject} from '../../src/sources/cluster/snapshot.js'
import {loadScenario, type Scenario, scenarioNames} from './apiserver-scenario.js'
import {type ApiServer, type ApiServerOptions, OTHER_CONTEXT, startApiServer, writeKubeconfig} from './apiserver.js'

interface Reply {
  status: number
  headers: IncomingHttpHeaders
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
}

interface RequestOptions {
  /** Default: the server's token; null sends no Authorization header. */
  token?: null | string
  method?: string
  /** Default: the server's CA; null trusts only the system CAs. */
  ca?: null
  timeoutMs?: number
  /** A body to send (JSON), with its content type (default application/json). */
  body?: unknown
  contentType?: string
}

/** A plain node:https request, TLS verified against the server's test CA. */
function get(server: ApiServer, path: string, options: RequestOptions = {}): Promise<Reply> {
  const token = options.token === undefined ? server.token : options.token
  return new Promise((resolve, reject) => {
    const outgoing = request(new URL(path, server.url), {
      method: options.method ?? 'GET',
      ca: options.ca === null ? undefined : server.ca,
      headers: {...(token === null ? {} : {Authorization: `Bearer ${token}`}), ...(options.body !== undefined && {'Content-Type': options.contentType ?? 'application/json'})},
      timeout: options.timeoutMs,
    })
    outgoing.on('timeout', () => outgoing.destroy(new Error('timed out')))
    outgoing.on('error', reject)
    outgoing.on('response', (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text)}))
    })
    outgoing.end(options.body === undefined ? undefined : JSON.stringify(options.body))
  })
}

const names = (list: {items: KubeObject[]}) => list.items.map((item) => item.metadata?.name)

function nodes(count: number): Scenario {
  return {objects: {'/api/v1/nodes': Array.from({length: count}, (_, index) => ({metadata: {name: `node-${index}`}}))}}
}

/** Starts a server for each test and closes it after, even when the test fails. */
function serve(options: ApiServerOptions): () => ApiServer {
  let server: ApiServer
  before(async () => (server = await startApiServer(options)))
  after(() => server.close())
  return () => server
}

describe('test API server: TLS, auth and discovery', () => {
  const server = serve({scenario: 'eks-old-vpc-cni'})

  it('serves TLS that verifies against the test CA, and only that', async () => {
    assert.equal((await get(server(), '/version')).status, 200)
    await assert.rejects(get(server(), '/version', {ca: null}), /certificate/)
  })

  it('answers a missing or wrong token with a real 401 Status', async () => {
    const unauthorized = {kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401}
    for (const token of [null, 'not-the-token']) {
      const reply = await get(server(), '/api/v1/nodes', {token})
      assert.equal(reply.status, 401)
      assert.deepEqual(reply.body, unauthorized)
    }
  })

  it('serves /version from the scenario, major and minor from gitVersion', async () => {
    const {body} = await get(server(), '/version')
    assert.equal(body.gitVersion, 'v1.33.5-eks-3025e55')
    assert.equal(body.major, '1')
    assert.equal(body.minor, '33')
    assert.equal(body.platform, 'linux/amd64')
  })

  it('serves discovery: API groups and their resources, without CRDs the scenario does not install', async () => {
    assert.deepEqual((await get(server(), '/api')).body.versions, ['v1'])
    const groups = (await get(server(), '/apis')).body.groups.map((group: {name: string}) => group.name)
    assert.deepEqual(groups.toSorted(), ['apps', 'batch', 'discovery.k8s.io', 'networking.k8s.io'])
    const core = (await get(server(), '/api/v1')).body
    assert.equal(core.kind, 'APIResourceList')
    assert.deepEqual(
      core.resources.find((resource: {name: string}) => resource.name === 'nodes'),
      {name: 'nodes', singularName: 'node', namespaced: false, kind: 'Node', verbs: ['get', 'list', 'update', 'patch']},
    )
    assert.equal((await get(server(), '/apis/discovery.k8s.io/v1')).body.resources[0].kind, 'EndpointSlice')
  })
})

describe('test API server: lists', () => {
  const eks = serve({scenario: 'eks-old-vpc-cni'})
  const fleet = serve({scenario: nodes(7)})

  it('lists a collection as a <Kind>List, sorted by namespace and name', async () => {
    const {status, body} = await get(eks(), '/api/v1/services')
    assert.equal(status, 200)
    assert.equal(body.kind, 'ServiceList')
    assert.equal(body.apiVersion, 'v1')
    assert.match(body.metadata.resourceVersion, /^\d+$/)
    assert.deepEqual(names(body), ['kubernetes', 'kube-dns', 'catalog', 'checkout', 'storefront'])
    assert.equal((await get(eks(), '/apis/apps/v1/daemonsets')).body.kind, 'DaemonSetList')
  })

  it('lists one namespace under /namespaces/<ns>/', async () => {
    const {body} = await get(eks(), '/api/v1/namespaces/shop/services')
    assert.deepEqual(names(body), ['catalog', 'checkout', 'storefront'])
    assert.deepEqual(names((await get(eks(), '/api/v1/namespaces/nowhere/services')).body), [])
  })

  it('makes a Namespace for every namespace in use', async () => {
    const namespaces = names((await get(eks(), '/api/v1/namespaces')).body)
    assert.deepEqual(namespaces, ['default', 'kube-node-lease', 'kube-public', 'kube-system', 'shop'])
  })

  it('adds the metadata a real server sets, keeping what items have', async () => {
    const [node] = (await get(eks(), '/api/v1/nodes')).body.items
    assert.equal(node.metadata.uid, 'd06a4e91-b2e9-4907-a60a-66fd3932aaea')
    const [generated] = (await get(fleet(), '/api/v1/nodes')).body.items
    assert.match(generated.metadata.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    assert.match(generated.metadata.resourceVersion, /^\d+$/)
    assert.equal(generated.kind, undefined)
  })

  it('pages with limit and opaque continue tokens, counting what remains', async () => {
    const seen: string[] = []
    const remaining: unknown[] = []
    let token = ''
    do {
      const {body} = await get(fleet(), `/api/v1/nodes?limit=3${token ? `&continue=${encodeURIComponent(token)}` : ''}`)
      seen.push(...names(body).map(String))
      remaining.push(body.metadata.remainingItemCount)
      token = body.metadata.continue ?? ''
    } while (token)

    assert.deepEqual(seen, ['node-0', 'node-1', 'node-2', 'node-3', 'node-4', 'node-5', 'node-6'])
    assert.deepEqual(remaining, [4, 1, undefined])
    const pages = fleet().requests.filter((recorded) => recorded.query.limit === '3')
    assert.deepEqual(
      pages.map((recorded) => [recorded.method, recorded.path, 'continue' in recorded.query, recorded.status]),
      [
        ['GET', '/api/v1/nodes', false, 200],
        ['GET', '/api/v1/nodes', true, 200],
        ['GET', '/api/v1/nodes', true, 200],
      ],
    )
  })

  it('rejects a continue token it did not make with 400', async () => {
    const {status, body} = await get(fleet(), '/api/v1/nodes?limit=2&continue=bm9wZQ')
    assert.equal(status, 400)
    assert.equal(body.reason, 'BadRequest')
  })
})

describe('test API server: selectors', () => {
  const pod = (namespace: string, name: string, labels: Record<string, string>) => ({metadata: {name, namespace, labels}})
  const server = serve({
    scenario: {
      objects: {
        '/api/v1/pods': [
          pod('kube-system', 'kube-proxy-a', {component: 'kube-proxy', tier: 'control-plane'}),
          pod('kube-system', 'kube-proxy-b', {component: 'kube-proxy', tier: 'node'}),
          pod('kube-system', 'coredns-x', {'k8s-app': 'kube-dns'}),
          pod('shop', 'web-1', {app: 'web', tier: 'frontend'}),
          pod('shop', 'web-2', {app: 'web'}),
        ],
      },
    },
  })
  const select = async (query: string) => names((await get(server(), `/api/v1/pods?${query}`)).body)
  const labels = (selector: string) => select(`labelSelector=${encodeURIComponent(selector)}`)

  it('selects by label: equality, inequality, sets and existence', async () => {
    assert.deepEqual(await labels('component=kube-proxy'), ['kube-proxy-a', 'kube-proxy-b'])
    assert.deepEqual(await labels('component==kube-proxy,tier=node'), ['kube-proxy-b'])
    assert.deepEqual(await labels('tier!=node'), ['coredns-x', 'kube-proxy-a', 'web-1', 'web-2'])
    assert.deepEqual(await labels('tier in (frontend, control-plane)'), ['kube-proxy-a', 'web-1'])
    assert.deepEqual(await labels('tier notin (node,frontend),app'), ['web-2'])
    assert.deepEqual(await labels('!tier'), ['coredns-x', 'web-2'])
  })

  it('selects by metadata.name and metadata.namespace', async () => {
    assert.deepEqual(await select('fieldSelector=metadata.name%3Dweb-2'), ['web-2'])
    assert.deepEqual(await select('fieldSelector=metadata.namespace!%3Dkube-system'), ['web-1', 'web-2'])
    const kubeSystem = (await get(server(), '/api/v1/namespaces/kube-system/pods?labelSelector=component%3Dkube-proxy')).body
    assert.deepEqual(names(kubeSystem), ['kube-proxy-a', 'kube-proxy-b'])
  })

  it('pages a selection without remainingItemCount, as the real server does', async () => {
    const {body} = await get(server(), '/api/v1/pods?labelSelector=component%3Dkube-proxy&limit=1')
    assert.deepEqual(names(body), ['kube-proxy-a'])
    assert.ok(body.metadata.continue)
    assert.equal(body.metadata.remainingItemCount, undefined)
  })

  it('answers a selector it cannot read with 400', async () => {
    for (const path of ['/api/v1/pods?labelSelector=a%20%3D%3D%3D%20b', '/api/v1/services?fieldSelector=spec.nodeName%3Dx', '/api/v1/pods?fieldSelector=spec.hostname%3Dx']) {
      const {status, body} = await get(server(), path)
      assert.equal(status, 400, path)
      assert.equal(body.reason, 'BadRequest')
    }

    assert.equal((await get(server(), '/api/v1/services?fieldSelector=spec.nodeName%3Dx')).body.message, 'field label not supported: spec.nodeName')
  })
})

describe('test API server: Pods by node, deleted and brought back', () => {
  const server = serve({scenario: 'kubeadm-calico'})
  const onNode = async (node: string) => names((await get(server(), `/api/v1/namespaces/kube-system/pods?fieldSelector=spec.nodeName%3D${node}`)).body)

  it('selects Pods by spec.nodeName and status.phase, as the real server does', async () => {
    assert.deepEqual(await onNode('k8s-worker-01'), ['kube-proxy-kd9f4'])
    assert.deepEqual(names((await get(server(), '/api/v1/pods?fieldSelector=status.phase%21%3DRunning')).body), [])
  })

  it('deletes a Pod, and a DaemonSet brings back a Ready one on the same node under a new name', async () => {
    const deleted = await get(server(), '/api/v1/namespaces/kube-system/pods/kube-proxy-kd9f4', {method: 'DELETE'})
    assert.equal(deleted.status, 200)
    assert.equal(deleted.body.metadata.name, 'kube-proxy-kd9f4')
    assert.equal((await get(server(), '/api/v1/namespaces/kube-system/pods/kube-proxy-kd9f4')).status, 404)
    const onWorker = await onNode('k8s-worker-01')
    assert.equal(onWorker.length, 1)
    const replacement = String(onWorker[0])
    assert.match(replacement, /^kube-proxy-[0-9a-f]{5}$/)
    const pod = (await get(server(), `/api/v1/namespaces/kube-system/pods/${replacement}`)).body
    assert.equal(pod.spec.nodeName, 'k8s-worker-01')
    assert.equal(pod.status.conditions.find((condition: {type: string}) => condition.type === 'Ready').status, 'True')
    assert.deepEqual(pod.status.containerStatuses.map((status: {restartCount: number}) => status.restartCount), [0])
  })

  it('registers a Node that joins, as its kubelet POSTs it; one of the same name already exists', async () => {
    const node = {apiVersion: 'v1', kind: 'Node', metadata: {name: 'k8s-worker-09', labels: {'kubernetes.io/os': 'linux'}}, status: {nodeInfo: {kernelVersion: '6.8.0-45-generic'}}}
    assert.equal((await get(server(), '/api/v1/nodes', {method: 'POST', body: node})).status, 201)
    assert.equal((await get(server(), '/api/v1/nodes/k8s-worker-09')).body.status.nodeInfo.kernelVersion, '6.8.0-45-generic')
    assert.equal((await get(server(), '/api/v1/nodes', {method: 'POST', body: node})).body.reason, 'AlreadyExists')
  })

  it('allows no other write: POST and DELETE of anything but a Pod, a Namespace, a ConfigMap or a DaemonSet (and POST of a Node), and PUT or PATCH of anything but a ConfigMap, a DaemonSet or a Node, are 405', async () => {
    for (const [method, path] of [['DELETE', '/api/v1/namespaces/default/services/kubernetes'], ['PATCH', '/api/v1/namespaces/default/services/kubernetes'], ['PUT', '/api/v1/namespaces/kube-system/pods/kube-proxy-kd9f4'], ['POST', '/api/v1/namespaces/kube-system/services'], ['POST', '/api/v1/pods']]) {
      assert.equal((await get(server(), path, {method})).status, 405, `${method} ${path}`)
    }
  })
})

describe('test API server: updates, as kube-apiserver checks resourceVersion', () => {
  const server = serve({scenario: 'kubeadm-calico'})
  const CONFIG_MAP = '/api/v1/namespaces/kube-system/configmaps/kube-proxy'

  it('answers a PUT whose resourceVersion is not the stored one with 409 Conflict, and takes one without a resourceVersion', async () => {
    const stored = (await get(server(), CONFIG_MAP)).body
    const labelled = await get(server(), CONFIG_MAP, {method: 'PUT', body: {...stored, metadata: {...stored.metadata, labels: {app: 'kube-proxy', first: 'yes'}}}})
    assert.equal(labelled.status, 200)
    assert.notEqual(labelled.body.metadata.resourceVersion, stored.metadata.resourceVersion, 'every write is a new version')
    assert.equal(labelled.body.metadata.uid, stored.metadata.uid)

    const stale = await get(server(), CONFIG_MAP, {method: 'PUT', body: stored})
    assert.deepEqual(stale.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Operation cannot be fulfilled on configmaps "kube-proxy": the object has been modified; please apply your changes to the latest version and try again',
      reason: 'Conflict',
      details: {name: 'kube-proxy', kind: 'configmaps'},
      code: 409,
    })
    assert.deepEqual((await get(server(), CONFIG_MAP)).body.metadata.labels, {app: 'kube-proxy', first: 'yes'})

    const {resourceVersion, uid, ...unversioned} = stored.metadata // eslint-disable-line @typescript-eslint/no-unused-vars
    const restored = await get(server(), CONFIG_MAP, {method: 'PUT', body: {...stored, metadata: unversioned}})
    assert.equal(restored.status, 200)
    assert.deepEqual(restored.body.metadata.labels, {app: 'kube-proxy'})
  })

  it('applies merge and JSON patches, with the same precondition when the patch names a resourceVersion', async () => {
    const merged = await get(server(), CONFIG_MAP, {method: 'PATCH', contentType: 'application/merge-patch+json', body: {metadata: {labels: {patched: 'merge'}}}})
    assert.equal(merged.status, 200)
    assert.equal(merged.body.metadata.labels.patched, 'merge')
    const stale = await get(server(), CONFIG_MAP, {method: 'PATCH', contentType: 'application/merge-patch+json', body: {metadata: {resourceVersion: '1', labels: {patched: 'stale'}}}})
    assert.equal(stale.status, 409)
    const json = await get(server(), CONFIG_MAP, {method: 'PATCH', contentType: 'application/json-patch+json', body: [{op: 'remove', path: '/metadata/labels/patched'}]})
    assert.equal(json.body.metadata.labels.patched, undefined)
    const missing = await get(server(), CONFIG_MAP, {method: 'PATCH', contentType: 'application/json-patch+json', body: [{op: 'remove', path: '/metadata/labels/patched'}]})
    assert.equal(missing.status, 422)
  })

  it('refuses a create that sets a resourceVersion, as etcd\'s storage does, and deletes a DaemonSet with its pods', async () => {
    const copy = {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'kube-proxy-copy', namespace: 'kube-system', resourceVersion: '5'}, data: {}}
    assert.equal((await get(server(), '/api/v1/namespaces/kube-system/configmaps', {method: 'POST', body: copy})).status, 500)
    assert.equal((await get(server(), '/api/v1/namespaces/kube-system/configmaps', {method: 'POST', body: {...copy, metadata: {name: 'kube-proxy-copy'}}})).status, 201)
    assert.equal((await get(server(), '/api/v1/namespaces/kube-system/configmaps', {method: 'POST', body: {...copy, metadata: {name: 'kube-proxy-copy'}}})).body.reason, 'AlreadyExists')

    const podsOf = () => server().objects('/api/v1/pods').filter((pod) => pod.metadata.ownerReferences?.some((owner: {name: string}) => owner.name === 'kube-proxy'))
    assert.equal(podsOf().length, 3)
    assert.equal((await get(server(), '/apis/apps/v1/namespaces/kube-system/daemonsets/kube-proxy', {method: 'DELETE'})).status, 200)
    assert.equal(podsOf().length, 0)
  })
})

describe('test API server: gets by name', () => {
  const eks = serve({scenario: 'eks-old-vpc-cni'})
  const openshift = serve({scenario: 'openshift-ovn'})

  it('gets an object with its kind and apiVersion', async () => {
    const {status, body} = await get(eks(), '/api/v1/namespaces/kube-system/configmaps/kube-proxy-config')
    assert.equal(status, 200)
    assert.equal(body.kind, 'ConfigMap')
    assert.equal(body.apiVersion, 'v1')
    assert.match(body.data.config, /^mode: "iptables"$/m)
    const network = (await get(openshift(), '/apis/config.openshift.io/v1/networks/cluster')).body
    assert.equal(network.kind, 'Network')
    assert.equal(network.apiVersion, 'config.openshift.io/v1')
    assert.equal(network.spec.networkType, 'OVNKubernetes')
  })

  it('answers a missing object with a NotFound Status naming it', async () => {
    const {status, body} = await get(eks(), '/api/v1/namespaces/kube-system/configmaps/cilium-config')
    assert.equal(status, 404)
    assert.deepEqual(body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "cilium-config" not found',
      reason: 'NotFound',
      details: {name: 'cilium-config', kind: 'configmaps'},
      code: 404,
    })
  })

  it('answers a CRD that is not installed, or an unknown path, with the real 404', async () => {
    for (const path of ['/apis/operator.tigera.io/v1/installations/default', '/apis/config.openshift.io/v1/networks/cluster', '/api/v1/widgets']) {
      const {status, body} = await get(eks(), path)
      assert.equal(status, 404, path)
      assert.equal(body.message, 'the server could not find the requested resource')
      assert.deepEqual(body.details, {})
    }
  })

  it('answers only GET, and records every request', async () => {
    const reply = await get(eks(), '/api/v1/nodes', {method: 'DELETE'})
    assert.equal(reply.status, 405)
    assert.deepEqual(eks().requests.at(-1), {method: 'DELETE', path: '/api/v1/nodes', query: {}, status: 405})
  })
})

describe('test API server: faults', () => {
  it('answers 403 with the real message, for lists and gets, core and named groups', async () => {
    const server = await startApiServer({scenario: 'eks-old-vpc-cni', faults: [{path: /./, kind: 'forbidden'}]})
    try {
      const messages = await Promise.all(
        ['/api/v1/services', '/api/v1/namespaces/kube-system/configmaps/kube-proxy', '/apis/apps/v1/daemonsets', '/version'].map(async (path) => {
          const {status, body} = await get(server, path)
          assert.equal(status, 403)
          assert.equal(body.reason, 'Forbidden')
          return body.message
        }),
      )
      assert.deepEqual(messages, [
        'services is forbidden: User "system:serviceaccount:default:kpx" cannot list resource "services" in API group "" at the cluster scope',
        'configmaps "kube-proxy" is forbidden: User "system:serviceaccount:default:kpx" cannot get resource "configmaps" in API group "" in the namespace "kube-system"',
        'daemonsets.apps is forbidden: User "system:serviceaccount:default:kpx" cannot list resource "daemonsets" in API group "apps" at the cluster scope',
        'forbidden: User "system:serviceaccount:default:kpx" cannot get path "/version"',
      ])
    } finally {
      await server.close()
    }
  })

  it('fails the first N requests with 500, then answers', async () => {
    const server = await startApiServer({scenario: nodes(2), faults: [{path: '/api/v1/nodes', kind: 'error', times: 2}]})
    try {
      const statuses = []
      for (let attempt = 0; attempt < 3; attempt++) statuses.push((await get(server, '/api/v1/nodes')).status)
      assert.deepEqual(statuses, [500, 500, 200])
      assert.equal((await get(server, '/version')).status, 200)
    } finally {
      await server.close()
    }
  })

  it('throttles with 429 and Retry-After', async () => {
    const server = await startApiServer({faults: [{path: '/api/v1/nodes', kind: 'throttle', times: 1, retryAfterSeconds: 2}]})
    try {
      const throttled = await get(server, '/api/v1/nodes')
      assert.equal(throttled.status, 429)
      assert.equal(throttled.headers['retry-after'], '2')
      assert.deepEqual(throttled.body.details, {retryAfterSeconds: 2})
      assert.equal((await get(server, '/api/v1/nodes')).status, 200)
    } finally {
      await server.close()
    }
  })

  it('fails a later page of a list with `after`', async () => {
    const server = await startApiServer({scenario: nodes(4), faults: [{path: '/api/v1/nodes', kind: 'error', status: 503, after: 1, times: 1}]})
    try {
      const first = await get(server, '/api/v1/nodes?limit=2')
      const second = await get(server, `/api/v1/nodes?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`)
      assert.deepEqual([first.status, second.status, second.body.reason], [200, 503, 'ServiceUnavailable'])
    } finally {
      await server.close()
    }
  })

  it('answers slowly, or never, and still closes at once', async () => {
    const server = await startApiServer({
      faults: [
        {path: '/api/v1/nodes', kind: 'slow', delayMs: 150},
        {path: '/api/v1/services', kind: 'hang'},
      ],
    })
    try {
      const started = performance.now()
      assert.equal((await get(server, '/api/v1/nodes')).status, 200)
      assert.ok(performance.now() - started >= 140)
      await assert.rejects(get(server, '/api/v1/services', {timeoutMs: 100}), /timed out/)
      const hanging = get(server, '/api/v1/services').catch((error: Error) => error)
      const pendingSlow = get(server, '/api/v1/nodes').catch((error: Error) => error)
      // Both requests are in (received, so their connections are the server's to close): then close.
      const received = (path: string) => server.requests.filter((recorded) => recorded.path === path).length
      while (received('/api/v1/services') < 2 || received('/api/v1/nodes') < 2) await new Promise((resolve) => setTimeout(resolve, 5))
      const closing = performance.now()
      await server.close()
      // A close that waited for the hanging answer would never end; a loaded machine may still take a while.
      assert.ok(performance.now() - closing < 2000)
      assert.ok((await hanging) instanceof Error)
      assert.ok((await pendingSlow) instanceof Error)
      assert.equal(server.requests.find((recorded) => recorded.path === '/api/v1/services')?.status, undefined)
    } finally {
      await server.close()
    }
  })
})

describe('test API server: kubeconfig, through @kubernetes/client-node', () => {
  const server = serve({scenario: 'aks'})
  let dir: string
  before(() => (dir = mkdtempSync(join(tmpdir(), 'kpx-kubeconfig-'))))
  after(() => rmSync(dir, {recursive: true, force: true}))

  it('writes a kubeconfig client-node trusts, with a second context that the server rejects', async () => {
    const kubeconfig = new KubeConfig()
    kubeconfig.loadFromFile(writeKubeconfig(dir, server(), {context: 'aks-test'}))
    assert.deepEqual(
      kubeconfig.getContexts().map((context) => context.name),
      ['aks-test', OTHER_CONTEXT],
    )
    const list = await kubeconfig.makeApiClient(CoreV1Api).listNode()
    assert.equal(list.items.length, 3)
    kubeconfig.setCurrentContext(OTHER_CONTEXT)
    await assert.rejects(kubeconfig.makeApiClient(CoreV1Api).listNode(), (error: unknown) => error instanceof ApiException && error.code === 401)
  })

  it('points the second context at another server when asked', async () => {
    const other = await startApiServer({scenario: 'k3s'})
    try {
      const kubeconfig = new KubeConfig()
      kubeconfig.loadFromFile(writeKubeconfig(dir, server(), {other}))
      kubeconfig.setCurrentContext(OTHER_CONTEXT)
      const list = await kubeconfig.makeApiClient(CoreV1Api).listNode()
      assert.deepEqual(names(list as {items: KubeObject[]}), ['k3s-agent-1', 'k3s-agent-2', 'k3s-server-1'])
    } finally {
      await other.close()
    }
  })
})

describe('cluster scenarios', () => {
  for (const name of scenarioNames()) {
    it(`${name} is self-consistent`, () => {
      const {version, objects} = loadScenario(name)
      const nodeNames = new Set(objects['/api/v1/nodes'].map((node) => node.metadata?.name))
      const minor = /^v1\.(\d+)\./.exec(version?.gitVersion ?? '')?.[1]
      assert.ok(minor, 'gitVersion')
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const read = (object: KubeObject) => object as any
      for (const node of objects['/api/v1/nodes']) assert.match(read(node).status.nodeInfo.kubeletVersion, new RegExp(String.raw`^v1\.${minor}\.`), node.metadata?.name)
      for (const pod of objects['/api/v1/pods'] ?? []) assert.ok(nodeNames.has(read(pod).spec.nodeName), pod.metadata?.name)
      for (const slice of objects['/apis/discovery.k8s.io/v1/endpointslices'] ?? []) {
        const service = slice.metadata?.labels?.['kubernetes.io/service-name']
        assert.ok(objects['/api/v1/services'].some((candidate) => candidate.metadata?.name === service && candidate.metadata?.namespace === slice.metadata?.namespace), service)
        for (const endpoint of read(slice).endpoints) assert.ok(nodeNames.has(endpoint.nodeName), endpoint.nodeName)
      }

      const kubeProxyImages = [...(objects['/apis/apps/v1/daemonsets'] ?? []), ...(objects['/api/v1/pods'] ?? [])]
        .flatMap((workload) => (read(workload).spec.template?.spec ?? read(workload).spec).containers)
        .filter((container: {name: string}) => container.name === 'kube-proxy')
        .map((container: {image: string}) => container.image)
      for (const image of kubeProxyImages) assert.match(image, new RegExp(String.raw`:v1\.${minor}\.`), image)
      for (const daemonSet of objects['/apis/apps/v1/daemonsets'] ?? []) {
        const desired = read(daemonSet).status?.desiredNumberScheduled
        if (desired !== undefined) assert.equal(desired, nodeNames.size, daemonSet.metadata?.name)
      }
    })
  }
})
