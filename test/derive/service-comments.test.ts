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

/** Each Service's over-long comments, by namespace/name. */
function longComments(snapshot: ClusterSnapshot): Record<string, unknown> {
  return Object.fromEntries(deriveClusterModel(snapshot).services.map(({namespace, name, facts}) => [`${namespace}/${name}`, facts.get('service.longComments')]))
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
    const found = longComments(
      withServices([
        service(NAMESPACE, NAME, [{name: 'grpc-settlement', port: 8443}, {name: 'http', port: 80}]), // 143 and 132 bytes, the first the longest a valid name allows
        service(NAMESPACE, `${NAME.slice(0, -1)}w`, [{port: 80}]), // 127 bytes
        service(NAMESPACE, `${NAME.slice(0, -1)}x`, [{name: 'grpc-settlement', port: 8443}], {clusterIP: 'None', clusterIPs: ['None']}),
        service(NAMESPACE, `${NAME.slice(0, -1)}y`, [{name: 'grpc-settlement', port: 8443}], {type: 'ExternalName', externalName: 'ledger.example.com', clusterIP: undefined}),
      ]),
    )
    assert.deepEqual(found, {
      [`${NAMESPACE}/${NAME}`]: [`${NAMESPACE}/${NAME}:grpc-settlement (143 bytes)`, `${NAMESPACE}/${NAME}:http (132 bytes)`],
      [`${NAMESPACE}/${NAME.slice(0, -1)}w`]: [],
      [`${NAMESPACE}/${NAME.slice(0, -1)}x`]: [],
      [`${NAMESPACE}/${NAME.slice(0, -1)}y`]: [],
    })
  })

  it('counts bytes, not characters', () => {
    // Names are DNS labels, ASCII only; a port name is too. A Service read from a hand-edited snapshot may not be.
    const found = longComments(withServices([service('default', 'é'.repeat(60), [{name: 'ü'.repeat(3), port: 80}])]))
    assert.deepEqual(Object.values(found), [[`default/${'é'.repeat(60)}:${'ü'.repeat(3)} (${'default/'.length + 120 + 1 + 6} bytes)`]])
  })

  it('names every over-long port on its own Service, however many Services have one', () => {
    const many = Array.from({length: 150}, (_, index) => service(NAMESPACE, `${NAME.slice(0, -3)}${String(index).padStart(3, '0')}`, [{name: 'grpc-settlement', port: 8443}]))
    const found = Object.values(longComments(withServices(many))) as string[][]
    assert.deepEqual([found.length, found.every((comments) => comments.length === 1)], [150, true])
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
