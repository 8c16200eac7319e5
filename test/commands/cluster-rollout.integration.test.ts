/**
 * During and after the switch: kube-proxy's ConfigMap says nftables long before every node runs it. A
 * kubeadm cluster on the test API server (kubeadm-rhel8, its ConfigMap set to `mode: nftables`), with
 * the real kube-proxy 1.36.2 bundles (test/fixtures/kube-proxy-1.36.2) renamed to its nodes.
 */
import assert from 'node:assert/strict'
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {type Scenario} from '../helpers/apiserver-scenario.js'
import {startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {capturedBundle, nodesOfCapturedMachine, withSections} from '../helpers/captured-bundles.js'
import {runCli} from '../helpers/cli.js'
import {validateReport} from '../helpers/schemas.js'

/** The RHEL 8.10 kernel the scenario's Nodes report: below kube-proxy's 5.13 floor for nftables mode. */
const RHEL8_KERNEL = '4.18.0-553.el8_10.x86_64'
const NODES = ['k8s-cp-01', 'k8s-worker-01', 'k8s-worker-02'] as const

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-rollout-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

/**
 * kubeadm-rhel8 after the plan's "Set mode" step: the ConfigMap says nftables, nothing restarted. Its Nodes
 * report what the captured bundles show (a bundle that contradicts its Node is not used): the captured
 * machine's OS, and its kernel but on k8s-worker-02, which keeps RHEL 8's 4.18.
 */
function configuredNftables(): Scenario {
  const scenario = nodesOfCapturedMachine('kubeadm-rhel8', {'k8s-worker-02': RHEL8_KERNEL})

  const configMaps = scenario.objects['/api/v1/configmaps'].map((object) => {
    if (object.metadata?.name !== 'kube-proxy') return object
    const data = (object as {data: Record<string, string>}).data
    assert.match(data['config.conf'], /\nmode: ""\n/)
    return {...object, data: {...data, 'config.conf': data['config.conf'].replace(/\nmode: ""\n/, '\nmode: nftables\n')}}
  })
  return {...scenario, objects: {...scenario.objects, '/api/v1/configmaps': configMaps}}
}

/** The captured bundle of `state`, its hostname the node's; `kernel` replaces its kernel-release (6.18 as captured). */
function bundleFor(node: string, state: 'iptables' | 'nftables', kernel?: string): string {
  return withSections(capturedBundle(state), {sections: {hostname: node, ...(kernel ? {'kernel-release': kernel} : {})}})
}

async function clusterRun(name: string, bundles: Record<string, string>): Promise<{code: null | number; report: Report; text: string}> {
  const server = await startApiServer({scenario: configuredNftables()})
  try {
    const dir = join(workdir, name)
    mkdirSync(join(dir, 'facts'), {recursive: true})
    for (const [node, text] of Object.entries(bundles)) writeFileSync(join(dir, 'facts', `${node}.facts`), text)
    const kubeconfig = writeKubeconfig(dir, server)
    const facts = Object.keys(bundles).length > 0 ? ['--facts', join(dir, 'facts')] : []
    const args = ['cluster', '--kubeconfig', kubeconfig, ...facts, '--output', `text=${join(dir, 'report.txt')}`, '--json']
    const {code, stdout, stderr} = await runCli(args)
    assert.ok(stdout.startsWith('{'), stderr)
    const report = JSON.parse(stdout) as Report
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
    return {code, report, text: readFileSync(join(dir, 'report.txt'), 'utf8')}
  } finally {
    await server.close()
  }
}

const node = (report: Report, name: string) => report.nodes.find((each) => each.name === name)!

describe('a kubeadm cluster whose ConfigMap says nftables, by what its nodes run', () => {
  it('every node still in iptables mode: not go, and the kernel-4.18 node keeps its blocker', async () => {
    const {code, report, text} = await clusterRun('all-iptables', {
      'k8s-cp-01': bundleFor('k8s-cp-01', 'iptables'),
      'k8s-worker-01': bundleFor('k8s-worker-01', 'iptables'),
      'k8s-worker-02': bundleFor('k8s-worker-02', 'iptables', RHEL8_KERNEL),
    })
    assert.equal(report.verdict, 'no-go')
    assert.equal(code, 3)
    assert.equal(report.cluster?.nothingToMigrate, false)
    assert.equal(report.cluster?.proxyMode, 'iptables')
    assert.deepEqual(report.cluster?.rollout, {nftables: 0, notSwitched: 3, unknown: 0})
    const worker = node(report, 'k8s-worker-02')
    assert.deepEqual(worker.proxyMode, {running: 'iptables', evidence: '/proxyMode answered iptables', configured: 'nftables'})
    assert.equal(worker.checks['node/kernel-version'].status, 'fail')
    assert.equal(worker.verdict, 'no-go')
    assert.ok(report.plan.steps.length > 0, 'the plan is there: there is a migration to finish')
    assert.match(text, /^ {2}k8s-worker-02 +facts +4\.18\.0-553\.el8_10\.x86_64 .* iptables +no-go /m)
  })

  it('mid-rollout: the switched node skips the pre-switch checks, the others keep theirs', async () => {
    const {report} = await clusterRun('mid-rollout', {
      'k8s-cp-01': bundleFor('k8s-cp-01', 'iptables'),
      'k8s-worker-01': bundleFor('k8s-worker-01', 'nftables'),
      'k8s-worker-02': bundleFor('k8s-worker-02', 'iptables', RHEL8_KERNEL),
    })
    assert.equal(report.verdict, 'no-go')
    assert.deepEqual(report.cluster?.rollout, {nftables: 1, notSwitched: 2, unknown: 0})
    assert.equal(report.cluster?.proxyMode, 'iptables')
    const switched = node(report, 'k8s-worker-01')
    assert.equal(switched.proxyMode?.running, 'nftables')
    assert.equal(switched.checks['node/kernel-version'].status, 'skip')
    assert.match(switched.checks['node/kernel-version'].message, /already runs in nftables mode \(\/proxyMode answered nftables\)/)
    assert.equal(node(report, 'k8s-worker-02').checks['node/kernel-version'].status, 'fail')
  })

  it('the configuration alone (no node seen): not go, the mode to migrate from unknown', async () => {
    const {report} = await clusterRun('api-only', {})
    assert.notEqual(report.verdict, 'go')
    assert.equal(report.cluster?.nothingToMigrate, false)
    assert.equal(report.cluster?.proxyMode, 'unknown')
    assert.deepEqual(report.cluster?.rollout, {nftables: 0, notSwitched: 0, unknown: 3})
    assert.equal(node(report, 'k8s-worker-02').checks['node/kernel-version'].status, 'fail')
    const mode = report.findings.find((finding) => finding.rule === 'cluster/kube-proxy-mode')!
    assert.equal(mode.status, 'unknown')
    assert.match(mode.message, /configuration says nftables, but nodes k8s-cp-01, k8s-worker-01, k8s-worker-02 are not seen running nftables/)
  })

  it('every node seen running nftables: go, nothing to migrate', async () => {
    const {code, report, text} = await clusterRun('all-nftables', Object.fromEntries(NODES.map((name) => [name, bundleFor(name, 'nftables', name === 'k8s-worker-02' ? RHEL8_KERNEL : undefined)])))
    assert.equal(report.verdict, 'go')
    assert.equal(code, 0)
    assert.equal(report.cluster?.nothingToMigrate, true)
    assert.equal(report.cluster?.proxyMode, 'nftables')
    assert.deepEqual(report.cluster?.rollout, {nftables: 3, notSwitched: 0, unknown: 0})
    for (const name of NODES) assert.equal(node(report, name).proxyMode?.running, 'nftables')
    const mode = report.findings.find((finding) => finding.rule === 'cluster/kube-proxy-mode')!
    assert.equal(mode.message, 'Nothing to migrate: every Linux node (3) is seen running kube-proxy in nftables mode.')
    assert.match(text, /^GO {2}Nothing to migrate: kube-proxy already runs in nftables mode on every node/)
    assert.match(text, /^ {2}k8s-worker-02 +facts +4\.18\.0-553\.el8_10\.x86_64 .* nftables +go /m)
  })
})

describe('a bundle that contradicts its live Node (stale, or another cluster\'s node of that name)', () => {
  it("is not used: the Node's kernel 4.18 keeps its blocker, and the report names both kernels", async () => {
    // Every bundle shows nftables, but k8s-worker-02's shows the captured machine's kernel, not the 4.18 its kubelet reports.
    const {code, report, text} = await clusterRun('stale-bundle', Object.fromEntries(NODES.map((name) => [name, bundleFor(name, 'nftables')])))
    assert.notEqual(report.verdict, 'go')
    assert.notEqual(code, 0)
    assert.equal(report.cluster?.nothingToMigrate, false)
    const stale = node(report, 'k8s-worker-02')
    assert.equal(stale.reachable, false)
    assert.match(stale.reason ?? '', /^contradicts the live Node, so none of its facts are used: kernel "6\.18\.44-fc-v1272" \(the bundle .*k8s-worker-02\.facts\) is not "4\.18\.0-553\.el8_10\.x86_64" \(the Node's status\.nodeInfo\.kernelVersion\)$/)
    assert.equal(stale.kernelRelease, RHEL8_KERNEL)
    assert.equal(stale.proxyMode?.running, null)
    assert.equal(stale.checks['node/kernel-version'].status, 'fail')
    assert.match(stale.checks['node/kernel-version'].message, /4\.18/)
    assert.match(text, /^ {2}k8s-worker-02 \(unreachable\) +facts +4\.18\.0-553\.el8_10\.x86_64 /m)
    assert.deepEqual(report.cluster?.rollout, {nftables: 2, notSwitched: 0, unknown: 1})
  })
})

describe('kpx-check node on the real nftables-mode bundle', () => {
  it('says the node runs nftables, and what showed it, in the JSON and the Nodes table', async () => {
    const file = join(workdir, 'kpxnode1.facts')
    writeFileSync(file, capturedBundle('nftables'))
    const json = await runCli(['node', '--facts', file, '--json'])
    const report = JSON.parse(json.stdout) as Report
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
    assert.deepEqual(report.nodes[0].proxyMode, {running: 'nftables', evidence: '/proxyMode answered nftables'})
    assert.equal(report.nodes[0].checks['node/kernel-version'].status, 'skip')
    const text = await runCli(['node', '--facts', file])
    assert.match(text.stdout, /^ {2}NAME +KERNEL +OS +NFT +RUNS +VERDICT/m)
    assert.match(text.stdout, /^ {2}kpxnode1 +6\.18\.44-fc-v1272 +debian 12 +1\.0\.6 +nftables /m)
  })

  it('kube-proxy exited (no process, /proxyMode unanswered, no tables): the node runs none, never nftables', async () => {
    const file = join(workdir, 'kpxnode1-exited.facts')
    const exited = withSections(capturedBundle('nftables'), {
      sections: {'kube-proxy-process': 'skip-kernel-check=unset', 'nft-tables': 'table ip filter\ntable ip6 filter\n'},
      unavailable: {'kube-proxy-mode': 'unreachable exit=7', 'kube-proxy-metrics': 'unreachable same endpoint as kube-proxy-mode'},
    })
    writeFileSync(file, exited)
    const report = JSON.parse((await runCli(['node', '--facts', file, '--json'])).stdout) as Report
    assert.deepEqual(report.nodes[0].proxyMode, {running: 'none', evidence: 'no kube-proxy process runs on the node and /proxyMode does not answer'})
    assert.notEqual(report.nodes[0].checks['node/kernel-version'].status, 'skip')
  })
})
