import assert from 'node:assert/strict'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import {collectLive} from '../../src/services/cluster-reads.js'
import {ClusterAccessError} from '../../src/util/errors.js'
import {type ApiServerOptions, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'

let dir: string
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kpx-reads-'))
})
after(() => rmSync(dir, {recursive: true, force: true}))

/** collectLive against a server started with `options`, and the server (closed after `use`). */
async function withServer(options: ApiServerOptions, use: (read: () => ReturnType<typeof collectLive>, server: Awaited<ReturnType<typeof startApiServer>>) => Promise<void>): Promise<void> {
  const server = await startApiServer(options)
  try {
    const kubeconfig = writeKubeconfig(mkdtempSync(join(dir, 'server-')), server)
    await use(() => collectLive({kubeconfig, requestTimeoutSeconds: 10, concurrency: 4}), server)
  } finally {
    await server.close()
  }
}

describe('reading a cluster', () => {
  it('asks for the lists while the version is on its way, and keeps the version first in the snapshot', async () => {
    await withServer({scenario: 'eks-old-vpc-cni', faults: [{path: '/version', kind: 'slow', delayMs: 400}]}, async (read, server) => {
      const reading = read()
      while (!server.requests.some((request) => request.path === '/api/v1/nodes')) await new Promise((resolve) => setTimeout(resolve, 5))
      assert.equal(server.requests.find((request) => request.path === '/version')?.status, undefined, 'the nodes were asked for before the version came')
      const snapshot = await reading
      assert.equal(Object.keys(snapshot.resources)[0], 'version')
      assert.equal(snapshot.resources.nodes?.status, 'ok')
    })
  })

  it('stops the lists when the version is refused, and raises that refusal', async () => {
    const refusal = {path: '/version', kind: 'reject', status: 401, message: 'Unauthorized'} as const
    // The EndpointSlices trickle in: the refusal comes long before they could end.
    const trickle = {path: '/apis/discovery.k8s.io/v1/endpointslices', kind: 'drip', bytesPerSecond: 200} as const
    await withServer({scenario: 'eks-old-vpc-cni', faults: [refusal, trickle]}, async (read) => {
      const started = performance.now()
      await assert.rejects(read(), (error: unknown) => error instanceof ClusterAccessError && error.reason === 'unauthorized' && /credentials were rejected/.test(error.suggestions.join(' ')))
      assert.ok(performance.now() - started < 5000, 'the trickling list was dropped, not waited for')
    })
  })
})
