import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'

import {deriveClusterModel} from '../../src/derive/cluster-facts.js'
import type {ClusterSnapshot, KubeObject} from '../../src/sources/cluster/snapshot.js'
import {trimObject} from '../../src/sources/cluster/trim.js'
import {FIXTURES} from '../helpers/paths.js'

const BASE = join(FIXTURES, 'rules', 'service-comment-length', 'pass.comment-128-bytes.json')

/** The fixture's cluster with these Services, as the API returns them, trimmed as the probe keeps them. */
function withServices(services: object[]): ClusterSnapshot {
  const snapshot = JSON.parse(readFileSync(BASE, 'utf8')) as ClusterSnapshot
  snapshot.resources.services = {status: 'ok', items: services.map((service) => trimObject('services', service as KubeObject))}
  return snapshot
}

/** A Service as `kubectl get service -o json` shows it, with only what these tests vary. */
function service(namespace: string, name: string, ports: Array<{name?: string; port: number}>, spec: object = {}): object {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {name, namespace, uid: '0d1f3c2e-7f55-4d8e-9a51-3b7f1d2c9e10', resourceVersion: '4121'},
    spec: {type: 'ClusterIP', clusterIP: '10.96.14.7', clusterIPs: ['10.96.14.7'], ports: ports.map((port) => ({protocol: 'TCP', targetPort: port.port, ...port})), ...spec},
    status: {loadBalancer: {}},
  }
}

const NAMESPACE = 'tenant-northwind-traders-payments-settlement-reconciliation-prd' // 63 bytes
const NAME = 'ledger-reconciliation-batch-scheduler-eu-central1-workers-green' // 63 bytes

describe("kube-proxy's nftables comment of each Service port", () => {
  it('is <namespace>/<name>:<port name>, and <namespace>/<name> for an unnamed port; headless and ExternalName Services get none', () => {
    const {cluster} = deriveClusterModel(
      withServices([
        service(NAMESPACE, NAME, [{name: 'grpc-settlement', port: 8443}]), // 143 bytes, the longest a valid name allows
        service(NAMESPACE, NAME, [{port: 80}]), // 127 bytes
        service(NAMESPACE, `${NAME.slice(0, -1)}x`, [{name: 'grpc-settlement', port: 8443}], {clusterIP: 'None', clusterIPs: ['None']}),
        service(NAMESPACE, `${NAME.slice(0, -1)}y`, [{name: 'grpc-settlement', port: 8443}], {type: 'ExternalName', externalName: 'ledger.example.com', clusterIP: undefined}),
      ]),
    )
    assert.deepEqual(cluster.get('services.longComments'), [`${NAMESPACE}/${NAME}:grpc-settlement (143 bytes)`])
    assert.equal(cluster.get('services.longCommentCount'), 1)
    assert.equal(cluster.get('services.longestComment'), 143)
  })

  it('counts bytes, not characters', () => {
    // Names are DNS labels, ASCII only; a port name is too. A Service read from a hand-edited snapshot may not be.
    const {cluster} = deriveClusterModel(withServices([service('default', 'é'.repeat(60), [{name: 'ü'.repeat(3), port: 80}])]))
    assert.equal(cluster.get('services.longestComment'), 'default/'.length + 120 + 1 + 6)
    assert.equal(cluster.get('services.longCommentCount'), 1)
  })

  it('names the first 100 over-long ports and counts all of them', () => {
    const many = Array.from({length: 150}, (_, index) => service(NAMESPACE, `${NAME.slice(0, -3)}${String(index).padStart(3, '0')}`, [{name: 'grpc-settlement', port: 8443}]))
    const {cluster} = deriveClusterModel(withServices(many))
    assert.equal((cluster.get('services.longComments') as string[]).length, 100)
    assert.equal(cluster.get('services.longCommentCount'), 150)
  })

  it('the probe keeps of a Service port only its name, and its ClusterIP (what a ping reaches); clusterIPs only when there are two', () => {
    assert.deepEqual(trimObject('services', service('web', 'shop', [{name: 'http', port: 80}, {port: 81}]) as KubeObject), {
      metadata: {name: 'shop', namespace: 'web'},
      spec: {type: 'ClusterIP', clusterIP: '10.96.14.7', ports: [{name: 'http'}, {}]},
      status: {loadBalancer: {ingress: []}},
    })
    const spec = (object: object) => (trimObject('services', object as KubeObject) as {spec: {clusterIP?: string; clusterIPs?: string[]}}).spec
    assert.equal(spec(service('web', 'shop', [], {clusterIP: 'None', clusterIPs: ['None']})).clusterIP, 'None')
    assert.deepEqual(spec(service('web', 'shop', [], {clusterIP: '10.96.14.7', clusterIPs: ['10.96.14.7', 'fd00:10:96::e07']})).clusterIPs, ['10.96.14.7', 'fd00:10:96::e07'])
  })
})
