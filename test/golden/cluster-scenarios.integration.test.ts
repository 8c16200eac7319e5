/**
 * Golden reports of the cluster scenarios: `kpx-check cluster` through bin/run.js against each scenario served
 * over HTTPS by the test API server (test/helpers/golden.ts compares and re-records them).
 */
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {CLUSTERS_DIR} from '../helpers/apiserver-scenario.js'
import {type Fault, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {compareGolden as compare, type Outputs, stable} from '../helpers/golden.js'

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-golden-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

/** `kpx-check cluster` against a scenario served over HTTPS: stdout in text, JSON and Markdown written beside it. */
async function clusterRun(scenario: string, faults: Fault[] = []): Promise<Outputs> {
  const server = await startApiServer({scenario, faults})
  try {
    const dir = mkdtempSync(join(workdir, `${scenario}-`))
    const kubeconfig = writeKubeconfig(dir, server)
    const [json, md] = [join(dir, 'report.json'), join(dir, 'report.md')]
    const {stdout} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--format', 'text', '--output', `json=${json}`, '--output', `markdown=${md}`])
    const {generatedAt} = JSON.parse(readFileSync(json, 'utf8')) as Report
    return {json: stable(readFileSync(json, 'utf8'), generatedAt), txt: stable(stdout, generatedAt), md: stable(readFileSync(md, 'utf8'), generatedAt)}
  } finally {
    await server.close()
  }
}

const SCENARIOS = readdirSync(CLUSTERS_DIR, {withFileTypes: true})
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .toSorted()
describe('golden reports', () => {
  describe('cluster scenarios over HTTPS', () => {
    for (const scenario of SCENARIOS) {
      it(scenario, async () => compare(`cluster-${scenario}`, await clusterRun(scenario)))
    }

    // Every ConfigMap is read by name: each refused read makes unknown what is read from it (kube-proxy's mode, flannel's dataplane).
    it('ipvs-metallb with its ConfigMaps forbidden', async () =>
      compare('cluster-ipvs-metallb-configmaps-forbidden', await clusterRun('ipvs-metallb', [{path: /\/configmaps\//, kind: 'forbidden'}])))
    it('kubeadm-calico with Nodes forbidden', async () =>
      compare('cluster-kubeadm-calico-nodes-forbidden', await clusterRun('kubeadm-calico', [{path: '/api/v1/nodes', kind: 'forbidden'}])))
  })

})
