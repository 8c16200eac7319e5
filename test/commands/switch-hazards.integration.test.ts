/**
 * What breaks after the switch, found before it, and rollback readiness, through `bin/run.js`: every
 * check has a case that triggers it and a twin that differs in one detail and does not. Cluster facts
 * come from the HTTPS test API server (scenarios of test/fixtures/clusters with one change, spelled out in
 * test/helpers/switch-hazard-scenarios.ts); node facts from bundles (the rule fixtures, each pair one line
 * apart).
 */
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {FIXTURES} from '../helpers/paths.js'
import * as scenarios from '../helpers/switch-hazard-scenarios.js'

const workdir = mkdtempSync(join(tmpdir(), 'kpx-switch-hazards-'))
after(() => rmSync(workdir, {recursive: true, force: true}))

async function report(args: string[]): Promise<Report> {
  const {code, stdout, stderr} = await runCli([...args, '--json'])
  assert.ok(code !== null && [0, 3, 4, 5].includes(code), `exit ${code}: ${stderr}`)
  return JSON.parse(stdout) as Report
}

async function clusterReport(hazard: scenarios.HazardScenario): Promise<Report> {
  const server = await startApiServer({scenario: hazard.scenario, ...(hazard.version ? {version: hazard.version} : {})})
  try {
    return await report(['cluster', '--kubeconfig', writeKubeconfig(mkdtempSync(join(workdir, 'cluster-')), server)])
  } finally {
    await server.close()
  }
}

/** The rule's finding on the subject, as `status severity`. */
function outcome(result: Report, rule: string, subject?: string): string {
  const path = (ref: {kind: string; name: string; namespace?: string}) => [ref.kind, ref.namespace, ref.name].filter(Boolean).join('/')
  const findings = result.findings.filter((finding) => finding.rule === rule && (subject === undefined || path(finding.subject) === subject))
  assert.equal(findings.length, 1, `${rule}: ${findings.map((finding) => finding.subject.name).join(', ')}`)
  return `${findings[0].status} ${findings[0].severity}`
}

describe('cluster checks through the test API server: each case and its twin', () => {
  const cases: Array<{name: string; rule: string; subject?: string; triggers: () => scenarios.HazardScenario; twin: () => scenarios.HazardScenario; fails: string}> = [
    {name: 'P5 kube-vip with lb_enable (IPVS) / ARP only', rule: 'cluster/ipvs-flush-users', triggers: () => scenarios.kubeVip(true), twin: () => scenarios.kubeVip(false), fails: 'fail blocker'},
    {name: 'P1 RKE2 v1.33.4 / v1.33.5 (k3s-root nft without JSON)', rule: 'cluster/k3s-nft-json', triggers: () => scenarios.rke2('v1.33.4+rke2r1'), twin: () => scenarios.rke2('v1.33.5+rke2r1'), fails: 'fail warning'},
    {
      name: 'P3 Calico eBPF / not eBPF, beside the kube-proxy DaemonSet',
      rule: 'cluster/calico-kube-proxy-tables',
      subject: 'DaemonSet/kube-system/calico-node',
      triggers: () => scenarios.calicoEbpf(true),
      twin: () => scenarios.calicoEbpf(false),
      fails: 'fail blocker',
    },
    {
      name: 'P3 Calico nftables dataplane 3.32.9 / 3.33.0',
      rule: 'cluster/calico-kube-proxy-tables',
      subject: 'DaemonSet/kube-system/calico-node',
      triggers: () => scenarios.calicoNftables('3.32.9'),
      twin: () => scenarios.calicoNftables('3.33.0'),
      fails: 'fail warning',
    },
    {
      name: 'P4 Antrea proxyAll without / with NFTablesHostNetworkMode',
      rule: 'cluster/antrea-proxy-all',
      subject: 'DaemonSet/kube-system/antrea-agent',
      triggers: () => scenarios.antreaProxyAll(false),
      twin: () => scenarios.antreaProxyAll(true),
      fails: 'fail warning',
    },
    {name: 'P7 100,000 / 99,999 endpoints on kernel 4.18', rule: 'cluster/endpoints-kernel', triggers: () => scenarios.endpoints(100_000 - 3), twin: () => scenarios.endpoints(99_999 - 3), fails: 'fail warning'},
    {name: 'R2 kube-proxy 1.30.14 / 1.31.0', rule: 'cluster/rollback-cleanup', triggers: () => scenarios.kubeProxyVersion('1.30.14'), twin: () => scenarios.kubeProxyVersion('1.31.0'), fails: 'fail warning'},
    {
      name: 'R3 nodePortAddresses [primary, CIDR] / [primary]',
      rule: 'cluster/rollback-config',
      triggers: () => scenarios.nodePortAddresses(['primary', '10.20.0.0/16']),
      twin: () => scenarios.nodePortAddresses(['primary']),
      fails: 'fail warning',
    },
  ]
  for (const {name, rule, subject, triggers, twin, fails} of cases) {
    it(`${name}: ${rule}`, async () => {
      const [hit, miss] = await Promise.all([clusterReport(triggers()), clusterReport(twin())])
      assert.equal(outcome(hit, rule, subject), fails)
      assert.equal(outcome(miss, rule, subject).split(' ', 1)[0], 'pass')
    })
  }

  it('R4: the plan has the rollback-readiness step before anything changes, with the readiness checks and the state to keep', async () => {
    const result = await clusterReport(scenarios.kubeProxyVersion('1.30.14'))
    const step = result.plan.steps.find((candidate) => candidate.id === 'prerequisites/rollback-readiness')
    assert.ok(step)
    assert.equal(step.phase, 'prerequisites')
    assert.ok(step.rules.includes('cluster/rollback-cleanup'))
    assert.ok(step.actions.includes('cluster/rollback-cleanup: fails.'), step.actions.join('\n'))
    assert.deepEqual(step.commands.slice(0, 2), ['kpx-check cluster --json > pre-switch-report.json', 'kpx-check collect > kpx-collect.sh'])
    assert.ok(step.commands.includes('kubectl -n kube-system get daemonset kube-proxy -o yaml > pre-switch-daemonset-kube-proxy.yaml'), step.commands.join('\n'))
    const switchStep = result.plan.steps.findIndex((candidate) => candidate.phase === 'canary')
    assert.ok(switchStep === -1 || result.plan.steps.indexOf(step) < switchStep)
  })
})

describe('node checks through bundles: each case and its twin, one line apart', () => {
  const rules = join(FIXTURES, 'rules')
  const cases: Array<[string, string, string, string, string]> = [
    ['P1', 'node/nft-json', 'nft-json/fail.kube-proxy-on-host-nft-without-json.facts', 'nft-json/pass.kube-proxy-on-host-nft-json.facts', 'fail blocker'],
    ['P2', 'node/ruleset-flush', 'ruleset-flush/fail.nftables-conf-flush-ruleset-enabled.facts', 'ruleset-flush/pass.nftables-conf-without-flush.facts', 'fail warning'],
    ['P5', 'node/ipvs-other-users', 'ipvs-other-users/fail.kube-vip-static-pod-lb-enable.facts', 'ipvs-other-users/pass.kube-vip-static-pod-arp-only.facts', 'fail blocker'],
    ['P6', 'node/input-only-firewall', 'input-only-firewall/fail.nftables-input-drop-forward-accept.facts', 'input-only-firewall/pass.nftables-input-and-forward-drop.facts', 'fail warning'],
    ['R1', 'node/rollback-target', 'rollback-target/fail.no-ip-tables-no-nft-compat.facts', 'rollback-target/pass.nft-compat-builtin.facts', 'fail warning'],
    ['R5', 'node/native-nft-rules', 'native-nft-rules/fail.native-rules-in-nat.facts', 'native-nft-rules/pass.iptables-nft-reads-every-table.facts', 'fail warning'],
  ]
  for (const [point, rule, triggers, twin, fails] of cases) {
    it(`${point} ${rule}: ${triggers} / ${twin}`, async () => {
      const [hit, miss] = await Promise.all([report(['node', '--facts', join(rules, triggers)]), report(['node', '--facts', join(rules, twin)])])
      assert.equal(outcome(hit, rule), fails)
      assert.equal(outcome(miss, rule), `pass ${fails.split(' ', 2)[1]}`)
    })
  }
})
