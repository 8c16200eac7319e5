/**
 * Where kube-proxy is looked for, and which source decides when two disagree, through bin/run.js on the
 * test API server: a tenant's DaemonSet named kube-proxy, RKE2's static pods with per-node flags, kube-proxy
 * outside the API, and a Node whose kubernetes.io/os label says windows while its kubelet reports linux.
 */
import assert from 'node:assert/strict'
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import type {KubeObject} from '../../src/sources/cluster/snapshot.js'
import {loadScenario, type Scenario} from '../helpers/apiserver-scenario.js'
import {startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {capturedBundle, withSections} from '../helpers/captured-bundles.js'
import {runCli} from '../helpers/cli.js'
import {validateReport} from '../helpers/schemas.js'

type Raw = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-sources-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

/** `kpx-check cluster --json` against `scenario`, with these bundles (by node name) as --facts. */
async function clusterRun(name: string, scenario: Scenario, bundles: Record<string, string> = {}): Promise<{code: null | number; report: Report}> {
  const server = await startApiServer({scenario})
  try {
    const dir = join(workdir, name)
    mkdirSync(join(dir, 'facts'), {recursive: true})
    for (const [node, text] of Object.entries(bundles)) writeFileSync(join(dir, 'facts', `${node}.facts`), text)
    const facts = Object.keys(bundles).length > 0 ? ['--facts', join(dir, 'facts')] : []
    const {code, stdout, stderr} = await runCli(['cluster', '--kubeconfig', writeKubeconfig(dir, server), ...facts, '--json'])
    assert.ok(stdout.startsWith('{'), stderr)
    const report = JSON.parse(stdout) as Report
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
    return {code, report}
  } finally {
    await server.close()
  }
}

const row = (report: Report, name: string) => report.nodes.find((each) => each.name === name)!
const finding = (report: Report, rule: string) => report.findings.find((each) => each.rule === rule)!
const objects = (scenario: Scenario, path: string) => scenario.objects[path] as Raw[]

describe('where kube-proxy is looked for', () => {
  it("a tenant's DaemonSet named kube-proxy (nftables, sorted before kube-system) is reported and never decides the mode", async () => {
    const scenario = loadScenario('kubeadm-rhel8')
    const daemonSets = objects(scenario, '/apis/apps/v1/daemonsets')
    const ours = daemonSets.find((daemonSet) => daemonSet.metadata.name === 'kube-proxy')!
    const tenant = structuredClone(ours)
    tenant.metadata.namespace = 'a-tenant'
    tenant.spec.template.spec.containers[0].command = ['/usr/local/bin/kube-proxy', '--proxy-mode=nftables']
    tenant.status = {currentNumberScheduled: 0, desiredNumberScheduled: 0, numberReady: 0}
    scenario.objects['/apis/apps/v1/daemonsets'] = [tenant, ...daemonSets]

    const {report} = await clusterRun('tenant-daemonset', scenario)
    assert.equal(report.cluster?.kubeProxy.workload, 'DaemonSet kube-system/kube-proxy')
    assert.equal(report.cluster?.proxyMode, 'iptables')
    assert.equal(row(report, 'k8s-worker-02').proxyMode?.configured, 'iptables')
    assert.equal(row(report, 'k8s-worker-02').checks['node/kernel-version'].status, 'fail')
    assert.notEqual(report.verdict, 'go')
    const mode = finding(report, 'cluster/kube-proxy-mode')
    assert.match(mode.message, /^kube-proxy \(DaemonSet kube-system\/kube-proxy\) runs in iptables mode/)
    assert.match(mode.message, /Not taken for the cluster's kube-proxy, being outside kube-system where distributions run it: DaemonSet a-tenant\/kube-proxy\.$/)
  })

  it("RKE2's static pods with per-node flags: each node's configured mode is its own pod's, the switched canary decides nothing for the others", async () => {
    const scenario = loadScenario('rke2-canal')
    const pods = objects(scenario, '/api/v1/pods')
    const canary = pods.find((pod) => pod.metadata.name === 'kube-proxy-rke2-agent-1')!
    const command = canary.spec.containers[0].command as string[]
    assert.ok(command.includes('--proxy-mode=iptables'))
    canary.spec.containers[0].command = command.map((flag) => (flag === '--proxy-mode=iptables' ? '--proxy-mode=nftables' : flag))

    const {code, report} = await clusterRun('rke2-canary', scenario)
    assert.equal(row(report, 'rke2-agent-1').proxyMode?.configured, 'nftables')
    assert.equal(row(report, 'rke2-agent-2').proxyMode?.configured, 'iptables')
    assert.equal(row(report, 'rke2-server-1').proxyMode?.configured, 'iptables')
    assert.equal(report.cluster?.proxyMode, 'iptables', 'what is left to migrate from: the pods not switched')
    assert.equal(report.cluster?.nothingToMigrate, false)
    assert.notEqual(report.verdict, 'go')
    assert.notEqual(code, 0)
  })

  it('kube-proxy the API does not show (a systemd unit) with bundles showing it in iptables mode: not go', async () => {
    const scenario = loadScenario('kubeadm-rhel8')
    scenario.objects['/apis/apps/v1/daemonsets'] = objects(scenario, '/apis/apps/v1/daemonsets').filter((daemonSet) => daemonSet.metadata.name !== 'kube-proxy')
    scenario.objects['/api/v1/pods'] = objects(scenario, '/api/v1/pods').filter((pod) => !String(pod.metadata.name).startsWith('kube-proxy'))
    const nodes = objects(scenario, '/api/v1/nodes') as Array<KubeObject & Raw>
    for (const node of nodes) Object.assign(node.status.nodeInfo, {osImage: 'Debian GNU/Linux 12 (bookworm)'})
    const bundles = Object.fromEntries(
      nodes.map((node) => {
        const name = String(node.metadata?.name)
        return [name, withSections(capturedBundle('iptables'), {sections: {hostname: name, 'kernel-release': node.status.nodeInfo.kernelVersion}})]
      }),
    )

    const {code, report} = await clusterRun('outside-the-api', scenario, bundles)
    assert.equal(report.cluster?.kubeProxy.workload, null)
    assert.equal(report.cluster?.nothingToMigrate, false)
    assert.equal(report.cluster?.proxyMode, 'iptables')
    assert.equal(row(report, 'k8s-worker-02').proxyMode?.running, 'iptables')
    assert.equal(row(report, 'k8s-worker-02').checks['node/kernel-version'].status, 'fail')
    assert.equal(report.verdict, 'no-go')
    assert.equal(code, 3)
  })
})

describe("what the kubelet reports beats a label", () => {
  it('a Linux node labelled kubernetes.io/os=windows keeps every node check, and the label is reported', async () => {
    const scenario = loadScenario('kubeadm-rhel8')
    const worker = (objects(scenario, '/api/v1/nodes') as Raw[]).find((node) => node.metadata.name === 'k8s-worker-02')!
    assert.equal(worker.status.nodeInfo.operatingSystem, 'linux')
    worker.metadata.labels['kubernetes.io/os'] = 'windows'

    const {report} = await clusterRun('labelled-windows', scenario)
    const labelled = row(report, 'k8s-worker-02')
    assert.equal(labelled.windows, undefined)
    assert.equal(labelled.checks['node/kernel-version'].status, 'fail')
    const windows = finding(report, 'cluster/windows-nodes')
    assert.equal(windows.status, 'fail')
    assert.equal(
      windows.message,
      'The kubernetes.io/os label disagrees with what the kubelet reports on k8s-worker-02 (labelled kubernetes.io/os=windows, its kubelet reports linux). Each is checked as the OS its kubelet reports.',
    )
  })
})
