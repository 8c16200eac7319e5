/**
 * verify --baseline's side of the comparisons, in process: what a pre-switch report's record of a node becomes
 * as baseline.* facts (setBaselineFacts, after nodeRecordsOf reads the report), and the nodes gone and new that
 * the verify gate says. The records are written here as the reports have them (a node run's findings all carry
 * evidence; a cluster run's passes are summed up without any).
 */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import type {Finding} from '../../src/contract/finding.js'
import type {NodeReport, Report} from '../../src/contract/report.js'
import {setBaselineFacts} from '../../src/derive/node-baseline.js'
import {FactSet} from '../../src/facts/fact-set.js'
import {applyVerifyGate} from '../../src/planner/verify.js'
import {verifyHeadline} from '../../src/report/verify-headline.js'
import {nodeChecksOf, nodeRecordsOf} from '../../src/services/gate-files.js'

const check = (status: string, message = 'm') => ({status, severity: 'blocker', message})
const finding = (rule: string, node: string, status: Finding['status'], evidence: Finding['evidence']): Finding => ({
  rule, title: rule, status, severity: 'blocker', confidence: 'verified', subject: {kind: 'Node', name: node}, message: 'm', evidence, remediation: [], references: [],
})

/** The baseline.* facts of node-1 from a report of these nodes' checks and these findings. */
function factsFrom(nodes: unknown, findings: Finding[], node = 'node-1'): FactSet {
  const facts = new FactSet()
  setBaselineFacts(facts, nodeRecordsOf(nodeChecksOf(nodes), findings).get(node))
  return facts
}

describe('setBaselineFacts', () => {
  it('a node the report does not have is new: baseline.node false, nothing else', () => {
    const facts = factsFrom([{name: 'other', checks: {}}], [])
    assert.equal(facts.get('baseline.node'), false)
    assert.deepEqual(facts.ownPaths(), ['baseline.node'])
  })

  it('a node report: the counts, the addresses and who used IPVS, from its findings\' evidence', () => {
    const nodes = [{name: 'node-1', checks: {'node/ipvs-other-users': check('fail'), 'node/iptables-backend-mix': check('pass'), 'node/nodeport-addresses': check('fail')}}]
    const facts = factsFrom(nodes, [
      finding('node/ipvs-other-users', 'node-1', 'fail', {'ipvs.virtualServers': 3, 'ipvs.balancers': ['kube-vip (lb_enable=true), static pod /etc/kubernetes/manifests/kube-vip.yaml'], 'services.active': ['keepalived']}),
      finding('node/iptables-backend-mix', 'node-1', 'pass', {'iptables.legacyRules': 0, 'iptables.legacyKubeRules': 0, 'iptables.nftRules': 128, 'iptables.nftKubeRules': 120}),
      finding('node/nodeport-addresses', 'node-1', 'fail', {'addresses.ipv4Global': ['10.0.0.5/24', '10.0.0.250/32'], 'addresses.ipv6Global': []}),
    ])
    assert.equal(facts.get('baseline.node'), true)
    assert.deepEqual(facts.get('baseline.ipvsUsers'), ['kube-vip (lb_enable=true), static pod /etc/kubernetes/manifests/kube-vip.yaml', 'keepalived'])
    assert.equal(facts.get('baseline.ipvsVirtualServers'), 3)
    assert.deepEqual([facts.get('baseline.nftRules'), facts.get('baseline.nftKubeRules'), facts.get('baseline.legacyRules')], [128, 120, 0])
    assert.deepEqual(facts.get('baseline.ipv4Global'), ['10.0.0.5/24', '10.0.0.250/32'])
  })

  it('virtual servers while kube-proxy ran iptables mode, no keepalived or balancer named: another component', () => {
    const facts = factsFrom([{name: 'node-1', checks: {'node/ipvs-other-users': check('fail')}}], [finding('node/ipvs-other-users', 'node-1', 'fail', {'ipvs.virtualServers': 2, 'kubeProxy.mode': 'iptables'})])
    assert.deepEqual(facts.get('baseline.ipvsUsers'), ['another component (kube-proxy was in iptables mode)'])
  })

  it('a balancer that had no virtual server yet: nothing to lose', () => {
    const facts = factsFrom([{name: 'node-1', checks: {'node/ipvs-other-users': check('fail')}}], [finding('node/ipvs-other-users', 'node-1', 'fail', {'ipvs.virtualServers': 0, 'ipvs.balancers': ['lvscare, process 812']})])
    assert.deepEqual(facts.get('baseline.ipvsUsers'), [])
  })

  it('a cluster report: a passed check has no evidence; other IPVS users none, the counts unknown saying why', () => {
    const facts = factsFrom([{name: 'node-1', checks: {'node/ipvs-other-users': check('pass'), 'node/iptables-backend-mix': check('pass')}}], [])
    assert.deepEqual(facts.get('baseline.ipvsUsers'), [])
    assert.deepEqual(facts.whyUnknown('baseline.nftRules'), {
      reason: 'not-collected',
      detail: 'the baseline does not record iptables.nftRules for this node: its node/iptables-backend-mix passed without it (a cluster report keeps the evidence of failed and unknown checks only)',
    })
    assert.match(facts.whyUnknown('baseline.ipv4Global')!.detail, /it has no node\/nodeport-addresses check of the node$/)
  })

  it('an unknown check: its comparison unknown with the report\'s own message; never a pass', () => {
    const facts = factsFrom([{name: 'node-1', checks: {'node/ipvs-other-users': check('unknown', 'Cannot tell the IPVS state (not-collected: the bundle has no "ipvs" section).')}}], [])
    assert.equal(facts.get('baseline.ipvsUsers'), undefined)
    assert.equal(facts.whyUnknown('baseline.ipvsUsers')?.detail, 'the baseline does not record ipvs.virtualServers for this node: its node/ipvs-other-users was unknown: Cannot tell the IPVS state (not-collected: the bundle has no "ipvs" section).')
  })

  it('evidence of the wrong type is not taken: a count that is a string, a list of numbers', () => {
    const nodes = [{name: 'node-1', checks: {'node/iptables-backend-mix': check('pass'), 'node/nodeport-addresses': check('pass')}}]
    const facts = factsFrom(nodes, [
      finding('node/iptables-backend-mix', 'node-1', 'pass', {'iptables.nftRules': '128', 'iptables.nftKubeRules': 1.5}),
      finding('node/nodeport-addresses', 'node-1', 'pass', {'addresses.ipv4Global': [1, 2]}),
    ])
    for (const path of ['baseline.nftRules', 'baseline.nftKubeRules', 'baseline.ipv4Global']) assert.equal(facts.whyUnknown(path)?.reason, 'not-collected', path)
  })

  it('a __proto__ key in a finding\'s evidence is not taken: the record keeps its prototype', () => {
    const evidence = JSON.parse('{"__proto__": {"ipvs.virtualServers": 5}}') as Finding['evidence']
    const records = nodeRecordsOf(nodeChecksOf([{name: 'node-1', checks: {}}]), [finding('node/ipvs-other-users', 'node-1', 'fail', evidence)])
    const record = records.get('node-1')!
    assert.equal(Object.getPrototypeOf(record.evidence), Object.prototype)
    assert.equal(record.evidence['ipvs.virtualServers'], undefined)
  })
})

describe('the verify gate with --baseline', () => {
  const node = (name: string): NodeReport => ({
    name, source: 'facts', origin: `${name}.facts`, kernelRelease: null, os: {id: null, prettyName: null, versionId: null}, nftVersion: null, reachable: true, verdict: 'go', checks: {},
  })
  const report = (names: string[]): Report => ({
    schemaVersion: 'kpx-check/v1', tool: {name: 'kpx-check', version: '0'}, generatedAt: '', verdict: 'go', exitCode: 0,
    summary: {blockers: 0, warnings: 0, info: 0, unknown: 0, unknownBlockers: 0, passed: 0, skipped: 0, waived: 0},
    rules: {evaluated: 0, skipped: [], severityOverrides: {}}, nodes: names.map((name) => node(name)), findings: [],
    plan: {platform: null, summary: '', confidence: null, references: [], nodeGroups: [], waves: [], steps: []},
  })
  const gate = (names: string[], scoped: boolean) =>
    applyVerifyGate(report(names), {
      direction: 'switch', allowNotSwitched: false, policy: {allowIncomplete: false, failOn: 'blocker'},
      runningModes: new Map(names.map((name) => [name, 'nftables'])), bySubject: new Map(),
      baseline: {file: 'before.json', generatedAt: '2026-12-01T08:00:00Z', nodes: ['node-1', 'node-2', 'node-3']}, scoped,
    })

  it('says the nodes gone since the baseline and the new ones, in the JSON and the counts line', () => {
    const verified = gate(['node-1', 'node-4'], false)
    assert.deepEqual(verified.verify?.baseline, {file: 'before.json', generatedAt: '2026-12-01T08:00:00Z', newNodes: ['node-4'], goneNodes: ['node-2', 'node-3']})
    assert.equal(verifyHeadline(verified, verified.verify!).counts, '2 verified · 0 failed · 0 not switched · 0 unknown · since the baseline: 2 node(s) gone (node-2, node-3), 1 new (node-4)')
  })

  it('--node or --selector: the nodes out of scope are not gone, and none is said to be', () => {
    const scoped = gate(['node-1'], true)
    assert.deepEqual(scoped.verify?.baseline, {file: 'before.json', generatedAt: '2026-12-01T08:00:00Z', newNodes: []})
    assert.equal(verifyHeadline(scoped, scoped.verify!).counts, '1 verified · 0 failed · 0 not switched · 0 unknown · since the baseline: 0 new')
  })
})
