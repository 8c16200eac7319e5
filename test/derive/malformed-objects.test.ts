import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {deriveClusterModel} from '../../src/derive/cluster-facts.js'
import {nodeTargets} from '../../src/derive/ssh-targets.js'
import type {ClusterSnapshot, KubeObject} from '../../src/sources/cluster/snapshot.js'

/**
 * A `--snapshot` file is checked only for objects with metadata (snapshot-file.ts): every other field may
 * hold any JSON value. Each object below holds the wrong type where a deriver reads, as a hand-edited file can.
 */
function snapshotOf(resources: Record<string, unknown[]>): ClusterSnapshot {
  return {
    apiVersion: 'kpx-check/snapshot/v1',
    kind: 'ClusterSnapshot',
    capturedAt: '',
    source: {},
    resources: Object.fromEntries(Object.entries(resources).map(([name, items]) => [name, {status: 'ok', items: items as KubeObject[]}])),
  }
}

const SNAPSHOT = snapshotOf({
  version: [{gitVersion: 135}],
  nodes: [
    {metadata: {name: 'status-is-a-string', labels: 'linux'}, spec: 7, status: 'Ready'},
    {metadata: {name: 'fields-of-wrong-types'}, spec: {providerID: ['kind://']}, status: {addresses: {type: 'InternalIP'}, nodeInfo: {kernelVersion: 6, osImage: null}}},
    {metadata: {name: 'addresses-null'}, status: {addresses: [null, 'x', {type: 'InternalIP', address: 10}], nodeInfo: []}},
  ],
  services: [
    {metadata: {namespace: 'a', name: 'ports-a-string'}, spec: {type: 'LoadBalancer', ports: 'http', externalIPs: '192.0.2.1'}, status: {loadBalancer: {ingress: 'x'}}},
    {metadata: {namespace: 'a', name: 'ports-of-null'}, spec: {ports: [null, 5], clusterIPs: 'x'}},
    {metadata: {namespace: 'a', name: 'spec-null'}, spec: null},
  ],
  daemonSets: [
    {metadata: {namespace: 'kube-system', name: 'kube-proxy'}, spec: {template: {spec: {containers: 'kube-proxy'}}}},
    {metadata: {namespace: 'kube-system', name: 'calico-node'}, spec: {template: {spec: {containers: [null, {name: 4, env: 'x', args: {}}]}}}},
  ],
  kubeProxyPods: [],
  configMaps: [{metadata: {namespace: 'kube-system', name: 'kube-proxy'}, data: 'mode: ipvs'}],
  deployments: [{metadata: {namespace: 'a', name: 'd'}, spec: {template: 'x'}}],
  statefulSets: [],
  jobs: [],
  cronJobs: [],
  endpointSlices: [{metadata: {name: 'e'}, endpointCount: 'many'}],
  ingresses: [{metadata: {namespace: 'a', name: 'i'}, status: {loadBalancer: {ingress: [null]}}}],
  prometheusRules: [{metadata: {namespace: 'a', name: 'r'}, spec: {groups: [null, {rules: 'x'}, {rules: [null, {expr: 5}]}]}}],
})

describe('objects whose fields hold the wrong type', () => {
  it('derive without a throw, and what they would tell is unknown or absent, never made up', () => {
    const model = deriveClusterModel(SNAPSHOT)
    const node = (name: string) => model.nodes.find((each) => each.name === name)!
    for (const name of ['status-is-a-string', 'fields-of-wrong-types', 'addresses-null']) {
      assert.equal(node(name).facts.get('kernel.release'), undefined, name)
      assert.equal(node(name).facts.whyUnknown('kernel.release')?.reason, 'not-present', name)
      assert.equal(node(name).windows, false, name)
    }

    assert.deepEqual(model.cluster.get('cluster.multiAddressNodes'), [])
    assert.equal(model.cluster.whyUnknown('cluster.oldestKernel')?.reason, 'not-present')
    const service = (name: string) => model.services.find((each) => each.name === name)!.facts
    assert.deepEqual(service('ports-a-string').get('service.externalIPs'), [])
    assert.deepEqual(service('ports-a-string').get('service.addresses'), [])
    assert.equal(service('ports-a-string').get('service.portCount'), 0)
    assert.deepEqual(service('ports-of-null').get('service.longComments'), [])
    assert.equal(model.cluster.get('services.total'), 3)
    assert.equal(model.cluster.get('services.withExternalIPs'), 0)
    assert.deepEqual(model.prometheusRules[0].facts.get('prometheusRule.iptablesMetricRules'), [])
  })

  it('give no SSH target from addresses that are not strings', () => {
    const nodes = SNAPSHOT.resources.nodes!.status === 'ok' ? SNAPSHOT.resources.nodes!.items : []
    const {targets, unaddressed} = nodeTargets(nodes, {hostTemplate: '{internalIP}'})
    assert.deepEqual(targets, [])
    assert.equal(unaddressed.size, 3)
  })
})
