/**
 * Findings on the objects they are about, through bin/run.js against the HTTPS test API server: a
 * baseline gates on the objects that are new since it, a waiver accepts one object and not the others,
 * and a baseline of another cluster is refused.
 */
import assert from 'node:assert/strict'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {subjectPath} from '../../src/contract/subject.js'
import type {ClusterSnapshot, KubeObject} from '../../src/sources/cluster/snapshot.js'
import {trimObject} from '../../src/sources/cluster/trim.js'
import {loadScenario} from '../helpers/apiserver-scenario.js'
import {type ApiServer, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {validateReport} from '../helpers/schemas.js'

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-objects-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

const NAMESPACE = 'tenant-northwind-traders-payments-settlement-reconciliation-prd' // 63 bytes
const RULE = 'cluster/service-comment-length'

/** A ClusterIP Service as the API returns it whose port's nftables comment, `<namespace>/<name>:grpc-settlement`, is 129 bytes (kube-proxy 1.34 of the scenario fails on it). */
function longNamedService(name: string): KubeObject {
  assert.equal(Buffer.byteLength(`${NAMESPACE}/${name}:grpc-settlement`), 129)
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {name, namespace: NAMESPACE, uid: `5b0e6f0a-51a4-4f0b-8d0e-${name.length}f8f4c1d7a61`, resourceVersion: '918273'},
    spec: {clusterIP: '10.96.212.40', clusterIPs: ['10.96.212.40'], ports: [{name: 'grpc-settlement', port: 9443, protocol: 'TCP', targetPort: 9443}], type: 'ClusterIP'},
    status: {loadBalancer: {}},
  } as KubeObject
}

const FIRST = longNamedService('ledger-reconciliation-batch-scheduler-eu-central1')
const SECOND = longNamedService('ledger-reconciliation-batch-scheduler-us-central1')

/** The kubeadm-calico scenario with these Services added, served until `use` is done. */
async function withCluster<T>(services: KubeObject[], use: (server: ApiServer, kubeconfig: string) => Promise<T>): Promise<T> {
  const base = loadScenario('kubeadm-calico')
  const server = await startApiServer({scenario: {...base, objects: {...base.objects, '/api/v1/services': [...(base.objects['/api/v1/services'] ?? []), ...services]}}})
  try {
    return await use(server, writeKubeconfig(mkdtempSync(join(workdir, 'cluster-')), server))
  } finally {
    await server.close()
  }
}

async function reportOf(args: string[]): Promise<{code: null | number; report: Report; stderr: string}> {
  const {code, stdout, stderr} = await runCli(['cluster', '--json', ...args])
  const report = JSON.parse(stdout) as Report
  assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
  return {code, report, stderr}
}

const commentFindings = (report: Report) => report.findings.filter((finding) => finding.rule === RULE && finding.status === 'fail')

describe('kpx-check cluster: findings on each object, gated and waived one by one', () => {
  it('a baseline with one long-named Service, then a second one: the run fails for the new Service alone; a waiver for one leaves the other active', async () => {
    const dir = mkdtempSync(join(workdir, 'gate-'))
    const baseline = join(dir, 'baseline.json')
    const snapshot = join(dir, 'cluster.snapshot.json')
    await withCluster([FIRST], async (_server, kubeconfig) => {
      const {code, report} = await reportOf(['--kubeconfig', kubeconfig])
      assert.equal(code, 3)
      assert.deepEqual(commentFindings(report).map((finding) => subjectPath(finding.subject)), [`service/${NAMESPACE}/${FIRST.metadata!.name}`])
      writeFileSync(baseline, JSON.stringify(report))
      assert.equal((await runCli(['snapshot', '--kubeconfig', kubeconfig, '-o', snapshot])).code, 0)
    })
    // The same cluster, read again after a second such Service was created.
    const read = JSON.parse(readFileSync(snapshot, 'utf8')) as ClusterSnapshot
    const services = read.resources.services as {items: KubeObject[]}
    services.items.push(trimObject('services', SECOND))
    writeFileSync(snapshot, JSON.stringify(read))

    const {code, report} = await reportOf(['--snapshot', snapshot, '--baseline', baseline])
    assert.equal(code, 3, 'the new Service is a new blocker')
    assert.deepEqual(
      commentFindings(report).map((finding) => [finding.subject.name, finding.baseline]),
      [
        [FIRST.metadata!.name, 'existing'],
        [SECOND.metadata!.name, 'new'],
      ],
    )
    assert.equal(report.baseline?.new, 1, 'nothing else is new')

    const waivers = join(dir, 'waivers.yaml')
    writeFileSync(waivers, `waivers:\n  - rule: ${RULE}\n    subject: service/${NAMESPACE}/${FIRST.metadata!.name}\n    reason: renamed in CHG-4711\n`)
    const waived = await reportOf(['--snapshot', snapshot, '--waivers', waivers])
    assert.deepEqual(
      commentFindings(waived.report).map((finding) => [finding.subject.name, finding.waiver?.reason ?? 'active']),
      [
        [FIRST.metadata!.name, 'renamed in CHG-4711'],
        [SECOND.metadata!.name, 'active'],
      ],
    )
    assert.equal(waived.code, 3, 'the other Service still blocks')
  })

  it('a baseline of another cluster is refused, as one of the other kind of run is', async () => {
    const dir = mkdtempSync(join(workdir, 'other-'))
    const baseline = join(dir, 'baseline.json')
    const other = await withCluster([], async (server, kubeconfig) => {
      writeFileSync(baseline, (await runCli(['cluster', '--kubeconfig', kubeconfig, '--json'])).stdout)
      return server.url
    })
    await withCluster([], async (server, kubeconfig) => {
      const {code, stdout, stderr} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--baseline', baseline])
      assert.equal(code, 2, stdout)
      assert.match(stderr, new RegExp(String.raw`--baseline .*baseline\.json: a report of another cluster \(${other.replaceAll('.', String.raw`\.`)}, context kpx-test\), and this is ${server.url.replaceAll('.', String.raw`\.`)}`))
    })
  })
})
