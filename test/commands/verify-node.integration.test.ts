/**
 * `kpx-check verify node --facts` through bin/run.js on the real kube-proxy 1.36.2 bundles and states
 * derived from them (each test says which sections it changes): a state per node and the exit code.
 */
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {capturedBundle, CAPTURES_DIR, type SectionChanges, withSections} from '../helpers/captured-bundles.js'
import {runCli} from '../helpers/cli.js'
import {validateReport} from '../helpers/schemas.js'

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-verify-node-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

async function verify(bundle: string, ...flags: string[]): Promise<{code: null | number; report: Report}> {
  const file = bundle.startsWith('/') ? bundle : join(workdir, `${Math.random().toString(36).slice(2)}.facts`)
  if (file !== bundle) writeFileSync(file, bundle)
  const {code, stdout, stderr} = await runCli(['verify', 'node', '--facts', file, ...flags, '--json'])
  assert.ok(stdout.startsWith('{'), stderr)
  const report = JSON.parse(stdout) as Report
  assert.ok(validateReport(report), JSON.stringify(validateReport.errors))
  assert.equal(report.exitCode, code)
  return {code, report}
}

/** The captured nftables bundle with these sections changed. */
const nftables = (changes: SectionChanges) => withSections(capturedBundle('nftables'), changes)
/**
 * The nftables bundle after kube-proxy exited having deleted the old rules: no process, /proxyMode unanswered as on
 * the stopped node (curl exit 7), and the nft tables of the empty capture (no kube-proxy table).
 */
const kubeProxyGone = () =>
  nftables({
    sections: {
      'kube-proxy-process': '',
      'nft-tables': 'table ip mangle\ntable ip6 mangle\ntable ip6 nat\ntable ip nat\ntable ip filter\ntable ip6 filter',
      'nft-chains': 'table ip filter {\n\tchain KUBE-FIREWALL {',
    },
    unavailable: {'kube-proxy-mode': 'unreachable exit=7', 'kube-proxy-metrics': 'unreachable same endpoint as kube-proxy-mode'},
  })
const failedChecks = (report: Report) => Object.entries(report.nodes[0].checks).filter(([, check]) => check.status === 'fail').map(([rule]) => rule)

describe('verify node --facts on the captured kube-proxy 1.36.2 bundles', () => {
  it('the switched, running, syncing node is verified, exit 0, each check with its evidence', async () => {
    const {code, report} = await verify(join(CAPTURES_DIR, 'bundle-nftables.facts'))
    assert.equal(code, 0)
    assert.equal(report.nodes[0].state, 'verified')
    assert.deepEqual(report.verify, {direction: 'switch', expectedModes: ['nftables'], allowNotSwitched: false, states: {verified: 1, failed: 0, 'not-switched': 0, unknown: 0}})
    // The bundle predates the ipsets and /healthz sections: those warnings alone are unknown (not-collected), and alone
    // they do not make the node unknown; every other check passes.
    const checks = Object.entries(report.nodes[0].checks)
    assert.deepEqual(checks.filter(([, check]) => check.status !== 'pass').map(([rule, check]) => [rule, check.status, check.reason]), [['verify/kube-ipsets-gone', 'unknown', 'not-collected'], ['verify/kube-proxy-healthz', 'unknown', 'not-collected']])
    assert.deepEqual(report.nodes[0].checks['verify/kube-proxy-tables'].evidence?.['netfilter.tables'], [
      'ip mangle', 'ip6 mangle', 'ip6 nat', 'ip nat', 'ip filter', 'ip6 filter', 'ip kube-proxy', 'ip6 kube-proxy',
    ])
  })

  it('the node still in iptables mode is not-switched, exit 3; with --allow-not-switched, not counted: exit 0', async () => {
    const iptables = join(CAPTURES_DIR, 'bundle-iptables.facts')
    const {code, report} = await verify(iptables)
    assert.equal(code, 3)
    assert.equal(report.nodes[0].state, 'not-switched')
    assert.equal((await verify(iptables, '--allow-not-switched')).code, 0)
  })

  it('--rollback: the iptables node is verified (old mode, its Service chains back, no kube-proxy table); the nftables node is not-switched', async () => {
    const back = await verify(join(CAPTURES_DIR, 'bundle-iptables.facts'), '--rollback')
    assert.equal(back.code, 0)
    assert.equal(back.report.nodes[0].state, 'verified')
    assert.deepEqual(Object.keys(back.report.nodes[0].checks), [
      'verify/iptables-service-chains', 'verify/ipvs-services-back', 'verify/kube-proxy-healthz', 'verify/kube-proxy-process', 'verify/kube-proxy-tables-gone', 'verify/rolled-back-mode', 'verify/sync-pending',
    ])
    const stayed = await verify(join(CAPTURES_DIR, 'bundle-nftables.facts'), '--rollback')
    assert.equal(stayed.code, 3)
    assert.equal(stayed.report.nodes[0].state, 'not-switched')
    assert.match(stayed.report.nodes[0].checks['verify/kube-proxy-tables-gone'].message, /ip kube-proxy, ip6 kube-proxy/)
  })

  it('a KUBE-SVC chain left (the iptables-rules counts of the iptables capture) fails the node, exit 3', async () => {
    const {code, report} = await verify(nftables({sections: {'iptables-rules': 'legacy6 svc=0\nlegacy total=0 kube=0 svc=0\nnft6 svc=13\nnft total=128 kube=128 svc=149'}}))
    assert.equal(code, 3)
    assert.equal(report.nodes[0].state, 'failed')
    assert.deepEqual(failedChecks(report), ['verify/iptables-leftovers'])
  })

  it('a sync-failure count (the series appears at 1 at the first failure) fails the node, exit 3', async () => {
    const metrics = [
      'kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{ip_family="IPv4"} 1.7965389209154935e+09',
      'kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{ip_family="IPv6"} 1.7965389209155395e+09',
      'kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv4"} 1.7965389210484002e+09',
      'kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv6"} 1.7965389210841784e+09',
      'kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family="IPv6"} 1',
    ].join('\n')
    const {code, report} = await verify(nftables({sections: {'kube-proxy-metrics': metrics}}))
    assert.equal(code, 3)
    assert.equal(report.nodes[0].state, 'failed')
    assert.deepEqual(failedChecks(report), ['verify/nftables-sync-failures'])
    assert.equal(report.nodes[0].checks['verify/nftables-sync-failures'].evidence?.['kubeProxy.syncFailures'], 1)
  })

  it('no kube-proxy process and no kube-proxy tables (kube-proxy exited after deleting the old rules): failed, never verified', async () => {
    const {code, report} = await verify(kubeProxyGone())
    assert.equal(code, 3)
    assert.equal(report.nodes[0].state, 'failed')
    assert.deepEqual(failedChecks(report), ['verify/kube-proxy-process', 'verify/kube-proxy-tables', 'verify/running-mode'])
  })

  it('its mode and metrics sections unreadable: unknown, exit 5, never verified', async () => {
    const unread = nftables({unavailable: {'kube-proxy-mode': 'timeout bound=7s', 'kube-proxy-metrics': 'timeout same endpoint as kube-proxy-mode'}})
    const {code, report} = await verify(unread)
    assert.equal(code, 5)
    assert.equal(report.nodes[0].state, 'unknown')
    assert.equal(report.nodes[0].checks['verify/nftables-sync-failures'].reason, 'timeout')
  })
})

describe('verify node --watch where it cannot watch', () => {
  it('with --facts (a bundle is one read) or --rollback (no nftables syncs to watch): a usage error, exit 2, saying what to do', async () => {
    const bundle = join(CAPTURES_DIR, 'bundle-nftables.facts')
    const facts = await runCli(['verify', 'node', '--facts', bundle, '--watch', '90s'])
    assert.equal(facts.code, 2)
    assert.match(facts.stderr, /--watch with --facts: a bundle is one read of the node, and --watch compares two/)
    assert.match(facts.stderr, /Leave out --facts: verify node then runs the collector twice, on this machine or over --ssh\/--inventory\./)
    const rollback = await runCli(['verify', 'node', '--rollback', '--watch', '90s'])
    assert.equal(rollback.code, 2)
    assert.match(rollback.stderr, /with --rollback there are none to watch/)
  })
})

describe('node --facts: a node already running nftables is judged on whether it works there (the verify rules of the switch)', () => {
  async function node(bundle: string): Promise<Report> {
    const file = join(workdir, `${Math.random().toString(36).slice(2)}.facts`)
    writeFileSync(file, bundle)
    const {code, stdout, stderr} = await runCli(['node', '--facts', file, '--json'])
    assert.ok(stdout.startsWith('{'), stderr)
    const report = JSON.parse(stdout) as Report
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors))
    assert.equal(report.exitCode, code)
    return report
  }

  it('the captured nftables node is go, its checks after the switch passed', async () => {
    const report = await node(capturedBundle('nftables'))
    assert.equal(report.verdict, 'go')
    assert.equal(report.nodes[0].checks['verify/nftables-sync-failures'].status, 'pass')
  })

  it('the same bundle with its nft tables and kube-proxy process removed (no rules, kube-proxy gone) is no-go', async () => {
    const report = await node(kubeProxyGone())
    assert.equal(report.verdict, 'no-go')
    assert.equal(report.nodes[0].checks['verify/kube-proxy-process'].status, 'fail')
    assert.equal(report.nodes[0].checks['verify/kube-proxy-tables'].status, 'fail')
  })

  it('a sync-failure count fails its check, no-go', async () => {
    const metrics = 'kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv4"} 1.7965389210484002e+09\nkubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family="IPv4"} 3'
    const report = await node(nftables({sections: {'kube-proxy-metrics': metrics}}))
    assert.equal(report.verdict, 'no-go')
    assert.match(report.nodes[0].checks['verify/nftables-sync-failures'].message, /counted 3 failed nftables sync/)
  })

  it('a node still in iptables mode skips them, with why', async () => {
    const report = await node(capturedBundle('iptables'))
    assert.equal(report.nodes[0].checks['verify/kube-proxy-tables'].status, 'skip')
    assert.match(report.nodes[0].checks['verify/kube-proxy-tables'].message, /not seen running in nftables mode \(iptables\)/)
  })
})
