/**
 * `kpx-check verify cluster` through bin/run.js against the test API server: every Linux node gets a state
 * and its checks' evidence, from bundles (--facts), kube-proxy's answers through the pod proxy
 * (--kube-proxy-metrics) and the collector run by exec in kube-proxy's pods or in probe pods.
 */
import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {setTimeout as sleep} from 'node:timers/promises'

import type {FleetReport} from '../../src/contract/fleet.js'
import type {Report} from '../../src/contract/report.js'
import {parseBundle} from '../../src/facts/bundle.js'
import {type ApiServerOptions, startApiServer, writeContexts, writeKubeconfig} from '../helpers/apiserver.js'
import {capturedBundle, CAPTURES_DIR, nodesOfCapturedMachine, withSections} from '../helpers/captured-bundles.js'
import {runCli} from '../helpers/cli.js'
import {RUN_JS} from '../helpers/paths.js'
import {RULE_FIXTURES} from '../helpers/rule-fixtures.js'
import {validateFleet, validateReport} from '../helpers/schemas.js'

const EKS_NODES = ['ip-10-0-10-170.ec2.internal', 'ip-10-0-11-23.ec2.internal', 'ip-10-0-12-88.ec2.internal']
const KUBEADM_NODES = ['k8s-cp-01', 'k8s-worker-01', 'k8s-worker-02']

let dir: string
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kpx-verify-cluster-'))
})
after(() => rmSync(dir, {recursive: true, force: true}))

async function verify(options: ApiServerOptions, args: string[]): Promise<{code: null | number; report: Report; requests: Array<{path: string}>}> {
  const server = await startApiServer(options)
  try {
    const kubeconfig = writeKubeconfig(mkdtempSync(join(dir, 'kube-')), server)
    const {code, stdout, stderr} = await runCli(['verify', 'cluster', '--kubeconfig', kubeconfig, '--json', ...args])
    assert.equal(stdout.trimStart()[0], '{', `stdout is the report only:\n${stdout}\n${stderr}`)
    const report = JSON.parse(stdout) as Report
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors))
    assert.equal(report.exitCode, code)
    return {code, report, requests: server.requests}
  } finally {
    await server.close()
  }
}

/** verify cluster on the kubeadm scenario with these flags: a usage error (exit 2), and what it says. */
async function usageError(args: string[]): Promise<string> {
  const server = await startApiServer({scenario: 'kubeadm-calico'})
  try {
    const {code, stderr} = await runCli(['verify', 'cluster', '--kubeconfig', writeKubeconfig(mkdtempSync(join(dir, 'kube-')), server), ...args])
    assert.equal(code, 2, stderr)
    return stderr
  } finally {
    await server.close()
  }
}

/** A captured bundle as the named node's: its hostname section replaced, nothing else. */
function bundleFor(node: string, state: 'iptables' | 'nftables'): string {
  const file = join(dir, `${node}.${state}.facts`)
  writeFileSync(file, withSections(capturedBundle(state), {sections: {hostname: node}}))
  return file
}

/** kubeadm-calico with its Linux Nodes reporting the captured machine, as the captured bundles show it (else the identity check rejects them). */
const captured = {scenario: nodesOfCapturedMachine('kubeadm-calico')}
const states = (report: Report) => Object.fromEntries(report.nodes.map((node) => [node.name, node.state]))
/** kube-proxy's answers in the captured nftables state, served on 0.0.0.0:10249 as on EKS. */
const nftablesEndpoints = {port: 10_249, paths: {'/proxyMode': 'nftables', '/metrics': readFileSync(join(CAPTURES_DIR, 'capture-2-nftables', 'metrics.all'), 'utf8')}}
const HEALTHZ_FIXTURES = join(RULE_FIXTURES, 'kube-proxy-healthz')
/** The /healthz body of one of the kube-proxy-healthz rule fixtures (as kube-proxy 1.33+'s health server writes it). */
const healthzBody = (fixture: string) => parseBundle(readFileSync(join(HEALTHZ_FIXTURES, `${fixture}.facts`), 'utf8')).sections.get('kube-proxy-healthz')!
/** kube-proxy's health server on its default 0.0.0.0:10256: healthy on every node. */
const healthyHealthz = {port: 10_256, paths: {'/healthz': healthzBody('pass.healthy-dual-stack')}}
const EKS_PODS = ['kube-proxy-4xk9p', 'kube-proxy-b7m2q', 'kube-proxy-zt5wd']

describe('verify cluster', () => {
  it('--facts: every node with the captured nftables bundle is verified, exit 0', async () => {
    const facts = KUBEADM_NODES.flatMap((node) => ['--facts', bundleFor(node, 'nftables')])
    const {code, report} = await verify(captured, facts)
    assert.equal(code, 0)
    assert.deepEqual(states(report), Object.fromEntries(KUBEADM_NODES.map((node) => [node, 'verified'])))
    assert.equal(report.verify?.states.verified, 3)
    assert.equal(report.cluster?.context, 'kpx-test')
    for (const node of report.nodes) assert.equal(node.checks['verify/running-mode'].evidence?.['kubeProxy.runningMode'], 'nftables')
  })

  it('--facts mid-rollout: one node still on iptables is not-switched (exit 3); --node the switched ones, or --allow-not-switched: exit 0', async () => {
    const facts = ['--facts', bundleFor('k8s-cp-01', 'iptables'), '--facts', bundleFor('k8s-worker-01', 'nftables'), '--facts', bundleFor('k8s-worker-02', 'nftables')]
    const all = await verify(captured, facts)
    assert.equal(all.code, 3)
    assert.deepEqual(states(all.report), {'k8s-cp-01': 'not-switched', 'k8s-worker-01': 'verified', 'k8s-worker-02': 'verified'})
    const switched = await verify(captured, [...facts, '--node', 'k8s-worker-01', '--node', 'k8s-worker-02'])
    assert.equal(switched.code, 0)
    assert.deepEqual(states(switched.report), {'k8s-worker-01': 'verified', 'k8s-worker-02': 'verified'})
    assert.equal((await verify(captured, [...facts, '--allow-not-switched'])).code, 0)
    const rollback = await verify(captured, [...facts, '--rollback'])
    assert.deepEqual(states(rollback.report), {'k8s-cp-01': 'verified', 'k8s-worker-01': 'not-switched', 'k8s-worker-02': 'not-switched'})
  })

  it('--selector (-l) mid-rollout: the workers switched so far, chosen by label; with --node, a node must be named and match; the API server reads the selector', async () => {
    const facts = ['--facts', bundleFor('k8s-cp-01', 'iptables'), '--facts', bundleFor('k8s-worker-01', 'nftables'), '--facts', bundleFor('k8s-worker-02', 'nftables')]
    const workers = await verify(captured, [...facts, '-l', '!node-role.kubernetes.io/control-plane'])
    assert.equal(workers.code, 0)
    assert.deepEqual(states(workers.report), {'k8s-worker-01': 'verified', 'k8s-worker-02': 'verified'})
    const both = await verify(captured, [...facts, '--selector', 'node-role.kubernetes.io/control-plane', '--node', 'k8s-cp-01', '--node', 'k8s-worker-01'])
    assert.equal(both.code, 3)
    assert.deepEqual(states(both.report), {'k8s-cp-01': 'not-switched'})
    const none = await verify(captured, [...facts, '-l', 'kpx-check/switched=true'])
    assert.equal(none.code, 5, 'no node in scope: nothing verified')
    assert.deepEqual(states(none.report), {})
  })

  it('--facts: a bundle that contradicts its live Node (another kernel) is not used, as in `cluster`: that node unknown with both kernels named, exit 5; never verified', async () => {
    const stale = {scenario: nodesOfCapturedMachine('kubeadm-calico', {'k8s-worker-02': '4.18.0-553.el8_10.x86_64'})}
    const {code, report} = await verify(stale, KUBEADM_NODES.flatMap((node) => ['--facts', bundleFor(node, 'nftables')]))
    assert.equal(code, 5)
    assert.deepEqual(states(report), {'k8s-cp-01': 'verified', 'k8s-worker-01': 'verified', 'k8s-worker-02': 'unknown'})
    const worker = report.nodes.find((node) => node.name === 'k8s-worker-02')
    assert.equal(worker?.reachable, false)
    assert.match(worker?.reason ?? '', /^contradicts the live Node, so none of its facts are used: kernel "6\.18\.44-fc-v1272" \(the bundle .*k8s-worker-02\.nftables\.facts\) is not "4\.18\.0-553\.el8_10\.x86_64" \(the Node's status\.nodeInfo\.kernelVersion\)$/)
    assert.equal(worker?.checks['verify/running-mode'].status, 'unknown')
  })

  it('--selector the API server cannot read is a usage error naming it, exit 2', async () => {
    assert.match(await usageError(['-l', 'role in (a']), /--selector "role in \(a": the API server refused it/)
  })

  it('--node naming no Linux Node is a usage error, exit 2', async () => {
    assert.match(await usageError(['--node', 'k8s-worker-09']), /--node k8s-worker-09: no such Linux Node in the cluster \(context kpx-test\)/)
  })

  it('--kube-proxy-metrics alone (EKS): the mode and syncs are seen, the node-shell checks are not: every node unknown, exit 5', async () => {
    const {code, report} = await verify({scenario: 'eks-old-vpc-cni', podHttp: nftablesEndpoints}, ['--kube-proxy-metrics'])
    assert.equal(code, 5)
    assert.deepEqual(states(report), Object.fromEntries(EKS_NODES.map((node) => [node, 'unknown'])))
    for (const node of report.nodes) {
      assert.equal(node.checks['verify/running-mode'].status, 'pass')
      assert.equal(node.checks['verify/nftables-sync-failures'].status, 'pass')
      assert.equal(node.checks['verify/kube-proxy-tables'].status, 'unknown')
      assert.equal(node.kubeProxyMetrics?.origin.startsWith('kube-system/kube-proxy-'), true)
    }
  })

  it('--kube-proxy-metrics reads /healthz too (port 10256): healthy passes; one kube-proxy answering 503 with IPv6 unhealthy fails its node, exit 3', async () => {
    const unhealthy = {...healthyHealthz, byPod: {[EKS_PODS[1]]: {'/healthz': {status: 503, body: healthzBody('fail.ipv6-unhealthy-503')}}}}
    const {code, report} = await verify({scenario: 'eks-old-vpc-cni', podHttp: [nftablesEndpoints, unhealthy]}, ['--kube-proxy-metrics'])
    assert.equal(code, 3)
    assert.deepEqual(states(report), {[EKS_NODES[0]]: 'unknown', [EKS_NODES[1]]: 'failed', [EKS_NODES[2]]: 'unknown'})
    const [first, second] = EKS_NODES.map((name) => report.nodes.find((node) => node.name === name)!.checks['verify/kube-proxy-healthz'])
    assert.equal(first.status, 'pass')
    assert.equal(first.message, "kube-proxy's /healthz says it is healthy (IPv4 and IPv6).")
    assert.equal(second.status, 'fail')
    assert.match(second.message, /^kube-proxy's \/healthz says it is unhealthy \(IPv6\): a Service or endpoint change has waited longer than 2 × syncPeriod/)
    assert.deepEqual(second.evidence?.['kubeProxy.unhealthyFamilies'], ['IPv6'])
  })

  it('--kube-proxy-metrics on kubeadm (metrics on 127.0.0.1:10249, /healthz on the default 0.0.0.0:10256): only /healthz is asked, and it is seen', async () => {
    const {report, requests} = await verify({scenario: 'kubeadm-calico', podHttp: [nftablesEndpoints, healthyHealthz]}, ['--kube-proxy-metrics'])
    const proxied = requests.filter((request) => request.path.includes('/proxy/'))
    assert.ok(proxied.length === KUBEADM_NODES.length && proxied.every((request) => request.path.endsWith(':10256/proxy/healthz')), JSON.stringify(proxied))
    for (const node of report.nodes) {
      assert.equal(node.checks['verify/kube-proxy-healthz'].status, 'pass')
      assert.equal(node.checks['verify/nftables-sync-failures'].status, 'unknown')
      assert.match(node.checks['verify/nftables-sync-failures'].message, /127\.0\.0\.1:10249 \(metricsBindAddress\), on its node only/)
      assert.match(node.kubeProxyMetrics?.origin ?? '', /^kube-system\/kube-proxy-.*:10256$/)
    }
  })

  it('--kube-proxy-metrics, nothing on 10256: /healthz unknown with the API server\'s answer, which alone fails no node', async () => {
    const {report} = await verify({scenario: 'eks-old-vpc-cni', podHttp: nftablesEndpoints}, ['--kube-proxy-metrics'])
    for (const node of report.nodes) {
      const healthz = node.checks['verify/kube-proxy-healthz']
      assert.deepEqual([healthz.status, healthz.reason], ['unknown', 'unreachable'], healthz.message)
      assert.match(healthz.message, /:10256\/healthz through the API server's pod proxy: 503: "error trying to reach service/)
      assert.equal(node.state, 'unknown')
    }
  })

  it('--kube-proxy-metrics: kube-proxy still answering iptables on every node: not-switched, exit 3', async () => {
    const iptables = {port: 10_249, paths: {'/proxyMode': 'iptables', '/metrics': readFileSync(join(CAPTURES_DIR, 'capture-1-iptables', 'metrics.all'), 'utf8')}}
    const {code, report} = await verify({scenario: 'eks-old-vpc-cni', podHttp: iptables}, ['--kube-proxy-metrics'])
    assert.equal(code, 3)
    assert.deepEqual(states(report), Object.fromEntries(EKS_NODES.map((node) => [node, 'not-switched'])))
  })

  it('--kube-proxy-metrics --watch 1s: each kube-proxy read twice; one whose failed syncs grew between the reads (IPv4 0 → 2) fails its node, exit 3; the steady ones pass', async () => {
    // The second read of the middle pod: the captured page with the series kube-proxy adds at its first failures.
    const failing = `${nftablesEndpoints.paths['/metrics']}kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family="IPv4"} 2\n`
    const grown = {...nftablesEndpoints, byPod: {[EKS_PODS[1]]: {'/proxyMode': 'nftables', '/metrics': [nftablesEndpoints.paths['/metrics'], failing]}}}
    const started = Date.now()
    const {code, report, requests} = await verify({scenario: 'eks-old-vpc-cni', podHttp: [grown, healthyHealthz]}, ['--kube-proxy-metrics', '--watch', '1s'])
    assert.ok(Date.now() - started >= 1000, 'the reads are a second apart')
    assert.equal(requests.filter((request) => request.path.endsWith(':10249/proxy/metrics')).length, 2 * EKS_NODES.length)
    // /healthz is asked once, with the second read: the watch compares /metrics alone.
    assert.equal(requests.filter((request) => request.path.endsWith(':10256/proxy/healthz')).length, EKS_NODES.length)
    assert.equal(code, 3)
    assert.deepEqual(states(report), {[EKS_NODES[0]]: 'unknown', [EKS_NODES[1]]: 'failed', [EKS_NODES[2]]: 'unknown'})
    const [steady, failed] = EKS_NODES.map((name) => report.nodes.find((node) => node.name === name)!.checks['verify/sync-watch'])
    assert.equal(steady.status, 'pass')
    assert.match(steady.message, /^kube-proxy's failed nftables syncs did not grow over [12] s \(no new sync of IPv4, IPv6 yet: a watch longer than 60 s would tell whether it is stuck\)\.$/)
    assert.equal(failed.status, 'fail')
    assert.match(failed.message, /^kube-proxy's failed nftables syncs grew over [12] s \(IPv4 0 → 2\): its syncs are failing now/)
    assert.deepEqual(failed.evidence?.['kubeProxy.syncFailuresGrown'], ['IPv4 0 → 2'])
  })

  for (const fleet of [[], ['--all-contexts']]) {
  it(`--watch${fleet.length > 0 ? ' in a fleet (--all-contexts)' : ''}: SIGINT during the wait ends the run at once with exit 130, saying what it was waiting for`, async () => {
    const server = await startApiServer({scenario: 'eks-old-vpc-cni', podHttp: nftablesEndpoints})
    try {
      const kubeconfig = writeKubeconfig(mkdtempSync(join(dir, 'kube-')), server)
      const child = spawn(process.execPath, [RUN_JS, 'verify', 'cluster', '--kubeconfig', kubeconfig, '--kube-proxy-metrics', '--watch', '10m', '--json', ...fleet], {stdio: ['ignore', 'pipe', 'pipe'], env: {...process.env, NO_COLOR: '1'}})
      let stdout = ''
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
      const exited = new Promise<null | number>((resolve) => child.on('close', resolve))
      // The first read is done: every node's /metrics asked once.
      while (child.exitCode === null && server.requests.filter((request) => request.path.endsWith('/proxy/metrics')).length < EKS_NODES.length) await sleep(50)
      child.kill('SIGINT')
      assert.equal(await exited, 130, stdout)
      assert.equal(JSON.parse(stdout).error.message, "stopped by SIGINT; it was waiting for the second read of kube-proxy's metrics (--watch 600s)")
    } finally {
      await server.close()
    }
  })
  }

  it('without --watch, the watch check is not run; --watch without --kube-proxy-metrics, with --facts or --rollback, is a usage error, exit 2', async () => {
    const {report} = await verify({scenario: 'eks-old-vpc-cni', podHttp: nftablesEndpoints}, ['--kube-proxy-metrics'])
    for (const node of report.nodes) assert.equal(node.checks['verify/sync-watch'], undefined)
    assert.match(await usageError(['--watch', '90s']), /--watch needs --kube-proxy-metrics/)
    assert.match(await usageError(['--watch', '90s', '--kube-proxy-metrics', '--facts', bundleFor('k8s-cp-01', 'nftables')]), /--watch with --facts: a bundle is one read/)
    assert.match(await usageError(['--watch', '90s', '--kube-proxy-metrics', '--rollback']), /with --rollback there are none to watch/)
    assert.match(await usageError(['--watch', '11m', '--kube-proxy-metrics']), /--watch 11m: expected at most 600s/)
  })

  for (const probe of ['exec', 'pod']) {
    it(`--node-probe ${probe}: the collector runs where no kube-proxy runs (this machine): every node failed with why, exit 3; never verified`, async () => {
      const {code, report} = await verify({scenario: 'kubeadm-calico'}, ['--node-probe', probe])
      assert.equal(code, 3)
      for (const node of report.nodes) {
        assert.equal(node.source, probe)
        assert.equal(node.state, 'failed', JSON.stringify(node.checks))
        assert.equal(node.checks['verify/kube-proxy-tables'].status === 'fail' || node.checks['verify/kube-proxy-tables'].status === 'unknown', true)
        assert.equal(node.checks['verify/running-mode'].status, 'fail')
        assert.equal(node.checks['verify/running-mode'].evidence?.['kubeProxy.runningMode'], 'none')
      }
    })
  }

  it('--all-contexts: a fleet as `cluster --all-contexts` makes it, each cluster its verify report; one switched, one not, one unreachable: exit 3, the worst', async () => {
    const iptables = {port: 10_249, paths: {'/proxyMode': 'iptables', '/metrics': readFileSync(join(CAPTURES_DIR, 'capture-1-iptables', 'metrics.all'), 'utf8')}}
    const servers = await Promise.all([startApiServer({scenario: 'eks-old-vpc-cni', podHttp: nftablesEndpoints}), startApiServer({scenario: 'eks-old-vpc-cni', podHttp: iptables}), startApiServer()])
    const [switched, old, gone] = servers
    await gone.close()
    try {
      const contexts = [{name: 'switched', server: switched, token: switched.token}, {name: 'old', server: old, token: old.token}, {name: 'gone', server: {url: gone.url, ca: switched.ca}, token: 't'}]
      const {code, stdout, stderr} = await runCli(['verify', 'cluster', '--kubeconfig', writeContexts(mkdtempSync(join(dir, 'fleet-')), contexts), '--all-contexts', '--kube-proxy-metrics', '--json'])
      const fleet = JSON.parse(stdout) as FleetReport
      assert.ok(validateFleet(fleet), JSON.stringify(validateFleet.errors))
      assert.equal(code, 3, stderr)
      assert.deepEqual(fleet.clusters.map((cluster) => [cluster.context, cluster.verdict, cluster.exitCode, cluster.error?.reason ?? 'checked']), [
        ['switched', 'incomplete', 5, 'checked'],
        ['old', 'no-go', 3, 'checked'],
        ['gone', 'incomplete', 5, 'unreachable'],
      ])
      assert.deepEqual(fleet.clusters[0].report?.verify?.states, {verified: 0, failed: 0, 'not-switched': 0, unknown: 3})
      assert.deepEqual(fleet.clusters[1].report?.verify?.states, {verified: 0, failed: 0, 'not-switched': 3, unknown: 0})
      assert.equal(fleet.clusters[1].report?.nodes[0].checks['verify/running-mode'].status, 'fail')
    } finally {
      await Promise.all([switched.close(), old.close()])
    }
  })
})
