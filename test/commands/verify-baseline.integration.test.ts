/**
 * `kpx-check verify node|cluster --baseline REPORT` through bin/run.js: the node now is the captured nftables
 * bundle; the baseline a pre-switch report (`node --json`) of the captured iptables bundle or of a state derived
 * from it (test/fixtures/rules/baseline-*, SOURCES.md says what each changes), or one this test makes with
 * `cluster --json` against the test API server.
 */
import assert from 'node:assert/strict'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {capturedBundle, CAPTURES_DIR, nodesOfCapturedMachine, withSections} from '../helpers/captured-bundles.js'
import {runCli} from '../helpers/cli.js'
import {FIXTURES} from '../helpers/paths.js'
import {RULE_FIXTURES} from '../helpers/rule-fixtures.js'
import {validateReport} from '../helpers/schemas.js'

const NFTABLES = join(CAPTURES_DIR, 'bundle-nftables.facts')
/** `node --json` of the captured iptables bundle, as it is. */
const IPTABLES_REPORT = join(RULE_FIXTURES, 'baseline-ipvs-users', 'pass.no-other-ipvs-users.baseline.json')
/** `node --json` of the iptables bundle with keepalived active, its IPVS virtual server and its VIP on eth0. */
const KEEPALIVED_REPORT = join(RULE_FIXTURES, 'baseline-ipvs-users', 'fail.keepalived-flushed.baseline.json')
/** `node --json` of the iptables bundle without its ipvs section. */
const NO_IPVS_REPORT = join(RULE_FIXTURES, 'baseline-ipvs-users', 'unknown.baseline-without-ipvs.baseline.json')
/** `node --json` of the captured IPVS node (ip-10-0-1-23, keepalived), another machine than the nftables bundle's kpxnode1. */
const OTHER_NODE_REPORT = join(RULE_FIXTURES, 'baseline-iptables-rules', 'unknown.baseline-without-iptables-rules.baseline.json')

const BASELINE_CHECKS = ['verify/baseline-iptables-rules', 'verify/baseline-ipvs-users', 'verify/baseline-nodeport-addresses']

let dir: string
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kpx-verify-baseline-'))
})
after(() => rmSync(dir, {recursive: true, force: true}))

async function json(args: string[]): Promise<{code: null | number; report: Report}> {
  const {code, stdout, stderr} = await runCli([...args, '--json'])
  assert.ok(stdout.startsWith('{'), stderr)
  const report = JSON.parse(stdout) as Report
  assert.ok(validateReport(report), JSON.stringify(validateReport.errors))
  assert.equal(report.exitCode, code)
  return {code, report}
}

const verifyNode = (baseline: string, ...facts: string[]) => json(['verify', 'node', ...(facts.length > 0 ? facts : [NFTABLES]).flatMap((file) => ['--facts', file]), '--baseline', baseline])
const statusOf = (report: Report, rule: string) => report.nodes[0].checks[rule].status

describe('verify node --baseline', () => {
  it('against the iptables report: verified, exit 0; the KUBE- rules went (128 to 3) and kube-proxy\'s tables came, as expected; no IPVS user, the address kept', async () => {
    const {code, report} = await verifyNode(IPTABLES_REPORT)
    assert.equal(code, 0)
    assert.equal(report.nodes[0].state, 'verified')
    assert.deepEqual(report.verify?.baseline, {file: IPTABLES_REPORT, generatedAt: '2026-12-06T14:29:07.355Z', newNodes: [], goneNodes: []})
    const {checks} = report.nodes[0]
    for (const rule of BASELINE_CHECKS) assert.equal(checks[rule].status, 'pass', `${rule}: ${checks[rule].message}`)
    assert.match(checks['verify/baseline-iptables-rules'].message, /went from 128 to 3 in iptables-nft .* kube-proxy's nftables tables appeared \(ip kube-proxy, ip6 kube-proxy\), as expected/)
    assert.deepEqual(
      [checks['verify/baseline-iptables-rules'].evidence?.['baseline.nftKubeRules'], checks['verify/baseline-iptables-rules'].evidence?.['iptables.nftKubeRules']],
      [128, 3],
      'the evidence names both sides',
    )
    assert.deepEqual(checks['verify/baseline-ipvs-users'].evidence?.['baseline.ipvsUsers'], [])
    assert.equal(checks['verify/baseline-nodeport-addresses'].message, 'The node keeps every address the baseline saw (192.168.77.10/24); it has 192.168.77.10/24 now.')
  })

  it('a baseline that saw keepalived\'s IPVS virtual server, none now: failed, exit 3, naming both sides; the keepalived VIP gone is a warning', async () => {
    const {code, report} = await verifyNode(KEEPALIVED_REPORT)
    assert.equal(code, 3)
    assert.equal(report.nodes[0].state, 'failed')
    const ipvs = report.nodes[0].checks['verify/baseline-ipvs-users']
    assert.deepEqual([ipvs.status, ipvs.severity], ['fail', 'blocker'])
    assert.match(ipvs.message, /^Before the switch the node had 1 IPVS virtual server\(s\), used by keepalived; it has none now/)
    assert.deepEqual([ipvs.evidence?.['baseline.ipvsUsers'], ipvs.evidence?.['baseline.ipvsVirtualServers'], ipvs.evidence?.['ipvs.virtualServers']], [['keepalived'], 1, 0])
    const addresses = report.nodes[0].checks['verify/baseline-nodeport-addresses']
    assert.deepEqual([addresses.status, addresses.severity], ['fail', 'warning'])
    assert.match(addresses.message, /it had 192\.168\.77\.10\/24, 192\.168\.77\.250\/32 then, and has 192\.168\.77\.10\/24 now/)
    assert.ok(report.plan.steps.some((step) => step.rules.includes('verify/baseline-ipvs-users') && step.actions.some((action) => action.includes('systemctl restart keepalived'))))
  })

  it('the same, keepalived\'s virtual server still there (re-added): the IPVS comparison passes', async () => {
    const ipvs = [
      'IP Virtual Server version 1.2.1 (size=4096)',
      'Prot LocalAddress:Port Scheduler Flags',
      '  -> RemoteAddress:Port Forward Weight ActiveConn InActConn',
      'TCP  C0A84DFA:01BB rr ',
      '  -> C0A84D0B:192B      Masq    1      0          0',
    ].join('\n')
    const now = join(dir, 'keepalived-back.facts')
    writeFileSync(now, withSections(capturedBundle('nftables'), {sections: {ipvs}}))
    const {report} = await verifyNode(KEEPALIVED_REPORT, now)
    assert.equal(statusOf(report, 'verify/baseline-ipvs-users'), 'pass')
    assert.match(report.nodes[0].checks['verify/baseline-ipvs-users'].message, /\(keepalived\) still has virtual servers: 1 now, 1 before/)
  })

  it('a baseline without the IPVS section: the comparison is unknown, saying so; the node unknown, exit 5, never verified', async () => {
    const {code, report} = await verifyNode(NO_IPVS_REPORT)
    assert.equal(code, 5)
    assert.equal(report.nodes[0].state, 'unknown')
    const ipvs = report.nodes[0].checks['verify/baseline-ipvs-users']
    assert.equal(ipvs.status, 'unknown')
    assert.match(ipvs.message, /the baseline does not record ipvs\.virtualServers for this node: its node\/ipvs-other-users was unknown/)
  })

  it('a baseline of another node (the IPVS capture\'s ip-10-0-1-23): refused, exit 2', async () => {
    const {code, stderr} = await runCli(['verify', 'node', '--facts', NFTABLES, '--baseline', OTHER_NODE_REPORT])
    assert.equal(code, 2, stderr)
    assert.match(stderr, /a report of other nodes \(ip-10-0-1-23\), and this run checks kpxnode1/)
  })

  it('a node of the baseline that is gone is said; a node new since it is verified like the others, its comparisons skipped', async () => {
    const both = join(dir, 'both.json')
    const pre = await runCli(['node', '--facts', join(CAPTURES_DIR, 'bundle-iptables.facts'), '--facts', join(FIXTURES, 'bundles', 'ubuntu-20.04-ipvs-nonroot.facts'), '--json'])
    writeFileSync(both, pre.stdout)
    const newNode = join(dir, 'kpxnode2.facts')
    writeFileSync(newNode, withSections(capturedBundle('nftables'), {sections: {hostname: 'kpxnode2'}}))
    const {code, report} = await verifyNode(both, NFTABLES, newNode)
    assert.equal(code, 0)
    assert.deepEqual({newNodes: report.verify?.baseline?.newNodes, goneNodes: report.verify?.baseline?.goneNodes}, {newNodes: ['kpxnode2'], goneNodes: ['ip-10-0-1-23']})
    const added = report.nodes.find((node) => node.name === 'kpxnode2')!
    assert.equal(added.state, 'verified')
    for (const rule of BASELINE_CHECKS) assert.equal(added.checks[rule].status, 'skip', rule)
    const text = await runCli(['verify', 'node', '--facts', NFTABLES, '--facts', newNode, '--baseline', both])
    assert.match(text.stdout, /since the baseline: 1 node\(s\) gone \(ip-10-0-1-23\), 1 new \(kpxnode2\)/)
  })

  it('a pre-switch run takes no comparison: `node` on the nftables bundle lists none of them', async () => {
    const {report} = await json(['node', '--facts', NFTABLES])
    for (const rule of BASELINE_CHECKS) assert.equal(report.nodes[0].checks[rule], undefined, rule)
  })
})

describe('verify cluster --baseline', () => {
  const nodes = ['k8s-cp-01', 'k8s-worker-01', 'k8s-worker-02']
  const bundlesOf = (state: 'iptables' | 'nftables') =>
    nodes.flatMap((node) => {
      const file = join(dir, `${node}.${state}.facts`)
      writeFileSync(file, withSections(capturedBundle(state), {sections: {hostname: node}}))
      return ['--facts', file]
    })

  it('a cluster report of the same cluster: compared per node; what it keeps no evidence of (passed checks) is unknown, a warning; verified, exit 0. Of other nodes or another cluster: exit 2', async () => {
    // Its Nodes report the captured machine, as the bundles show it: `cluster` uses no bundle that contradicts its Node.
    const server = await startApiServer({scenario: nodesOfCapturedMachine('kubeadm-calico')})
    const other = await startApiServer({scenario: nodesOfCapturedMachine('kubeadm-calico')})
    try {
      const kubeconfig = writeKubeconfig(mkdtempSync(join(dir, 'kube-')), server)
      const baseline = join(dir, 'cluster-before.json')
      writeFileSync(baseline, (await runCli(['cluster', '--kubeconfig', kubeconfig, ...bundlesOf('iptables'), '--json'])).stdout)

      const {code, report} = await json(['verify', 'cluster', '--kubeconfig', kubeconfig, ...bundlesOf('nftables'), '--baseline', baseline])
      const undecided = report.nodes.flatMap((node) => Object.entries(node.checks).filter(([, check]) => check.status !== 'pass').map(([rule, check]) => `${node.name} ${rule}: ${check.message}`))
      assert.equal(code, 0, undecided.join('\n'))
      assert.deepEqual(report.nodes.map((node) => node.state), ['verified', 'verified', 'verified'])
      assert.deepEqual(report.verify?.baseline?.goneNodes, [])
      for (const node of report.nodes) {
        assert.equal(node.checks['verify/baseline-ipvs-users'].status, 'pass', 'a passed node/ipvs-other-users: no other IPVS user')
        const rules = node.checks['verify/baseline-iptables-rules']
        assert.deepEqual([rules.status, rules.severity], ['unknown', 'warning'])
        assert.match(rules.message, /its node\/iptables-backend-mix passed without it \(a cluster report keeps the evidence of failed and unknown checks only\)/)
      }

      // The same cluster's report with its nodes renamed: it shares no node with the run.
      const renamed = join(dir, 'cluster-other-nodes.json')
      writeFileSync(renamed, readFileSync(baseline, 'utf8').replaceAll('"k8s-', '"old-'))
      const otherNodes = await runCli(['verify', 'cluster', '--kubeconfig', kubeconfig, ...bundlesOf('nftables'), '--baseline', renamed])
      assert.equal(otherNodes.code, 2, otherNodes.stderr)
      assert.match(otherNodes.stderr, /a report of other nodes \(old-cp-01, old-worker-01, old-worker-02\), and this run checks k8s-cp-01, k8s-worker-01, k8s-worker-02/)

      const elsewhere = await runCli(['verify', 'cluster', '--kubeconfig', writeKubeconfig(mkdtempSync(join(dir, 'kube-')), other), ...bundlesOf('nftables'), '--baseline', baseline])
      assert.equal(elsewhere.code, 2, elsewhere.stderr)
      assert.match(elsewhere.stderr, /a report of another cluster/)
    } finally {
      await Promise.all([server.close(), other.close()])
    }
  })
})
