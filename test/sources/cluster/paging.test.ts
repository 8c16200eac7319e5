import assert from 'node:assert/strict'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, it} from 'node:test'

import {collectLive} from '../../../src/services/cluster-reads.js'
import {nextPageLimit, PAGING} from '../../../src/sources/cluster/kube-client.js'
import type {ResourceOutcome} from '../../../src/sources/cluster/snapshot.js'
import {benchCluster} from '../../bench/big-cluster.js'
import {startApiServer, writeKubeconfig} from '../../helpers/apiserver.js'

const itemsOf = (outcome: ResourceOutcome | undefined) => (outcome?.status === 'ok' ? outcome.items.length : -1)

describe('list pages sized in bytes', () => {
  it('a next page holds about 2 MB of JSON to parse and at most 4 MB to receive, at the size the items have had', () => {
    const same = (length: number) => ({received: length, parsed: length})
    assert.equal(nextPageLimit(same(0), 0), PAGING.first)
    assert.equal(nextPageLimit(same(50_000), 100), PAGING.max, '0.5 kB items: as many as allowed')
    assert.equal(nextPageLimit(same(2_400_000), 100), 83, '24 kB items')
    assert.equal(nextPageLimit(same(100_000_000), 100), PAGING.min, '1 MB items: a few at a time')
    assert.equal(nextPageLimit({received: 2_400_000, parsed: 43_000}, 100), 167, '24 kB items of which 0.4 kB are parsed: 4 MB')
  })

  it('reads every item of small and large items alike, in pages that follow their size', async () => {
    const size = {nodes: 600, services: 3000, slices: 300, endpointsPerSlice: 100}
    const server = await startApiServer({scenario: benchCluster(size)})
    const dir = mkdtempSync(join(tmpdir(), 'kpx-paging-'))
    try {
      const snapshot = await collectLive({kubeconfig: writeKubeconfig(dir, server), requestTimeoutSeconds: 10, concurrency: 4})
      assert.deepEqual(
        [itemsOf(snapshot.resources.nodes), itemsOf(snapshot.resources.services), itemsOf(snapshot.resources.endpointSlices)],
        [size.nodes, size.services, size.slices],
      )
      const slices = snapshot.resources.endpointSlices
      const endpoints = slices?.status === 'ok' ? slices.items.reduce((total, slice) => total + Number(slice.endpointCount), 0) : -1
      assert.equal(endpoints, size.slices * size.endpointsPerSlice, 'endpoints counted in the JSON, not parsed')
      const limits = (path: string) => server.requests.filter((request) => request.path === path).map((request) => Number(request.query.limit))
      assert.deepEqual(limits('/api/v1/services'), [PAGING.first, PAGING.max, PAGING.max], 'Services of ~0.5 kB: 100, then 2,000 a page')
      const nodePages = limits('/api/v1/nodes')
      assert.ok(nodePages[1] > PAGING.first && nodePages[1] < PAGING.max, `Nodes of ~4.5 kB: about 2 MB a page (${nodePages})`)
      const slicePages = limits('/apis/discovery.k8s.io/v1/endpointslices')
      assert.equal(slicePages[0], PAGING.first)
      // A parsed page would hold about 83 of them (2 MB).
      assert.equal(slicePages.length, 3)
      assert.ok(slicePages.slice(1).every((limit) => limit > 150 && limit < 180), `EndpointSlices of ~24 kB, their endpoints counted, not parsed: about 4 MB a page (${slicePages})`)
    } finally {
      await server.close()
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
