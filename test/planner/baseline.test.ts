import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import type {GatedFinding, Status} from '../../src/contract/finding.js'
import type {NodeReport} from '../../src/contract/report.js'
import {type Baseline, compareWithBaseline, openResults} from '../../src/planner/baseline.js'

function finding(rule: string, name: string, status: Status): GatedFinding {
  return {rule, title: rule, status, severity: 'blocker', confidence: 'verified', subject: {kind: 'Node', name}, message: 'm', evidence: {}, remediation: [], references: []}
}

/** The earlier report's failed and unknown findings, each given as rule, node and status. */
function baseline(entries: Array<[string, string, 'fail' | 'unknown']>): Baseline {
  return {
    file: 'before.json',
    generatedAt: '2026-11-01T08:00:00Z',
    findings: new Map(entries.map(([rule, name, status]) => [`${rule} node/${name}`, {rule, subject: {kind: 'Node', name}, status}])),
    nodeRecords: new Map(),
  }
}

describe('comparing with a baseline', () => {
  it('marks a failure or unknown the baseline had with the same status existing, and others new', () => {
    const {findings, summary} = compareWithBaseline(
      [finding('node/kernel-version', 'a', 'fail'), finding('node/kernel-version', 'b', 'fail'), finding('node/nft-version', 'a', 'unknown'), finding('node/os-distro', 'a', 'unknown')],
      [],
      baseline([['node/kernel-version', 'a', 'fail'], ['node/nft-version', 'a', 'unknown'], ['node/os-distro', 'a', 'fail']]),
    )
    // node/os-distro was a failure and is unknown now: another finding, so new.
    assert.deepEqual(findings.map((marked) => marked.baseline), ['existing', 'new', 'existing', 'new'])
    assert.deepEqual(summary, {file: 'before.json', generatedAt: '2026-11-01T08:00:00Z', new: 2, existing: 2, fixed: []})
  })

  it('gates on objects new since the baseline, and compares a baseline from before findings named their objects by rule, saying so', () => {
    const onService = (name: string): GatedFinding => ({...finding('cluster/external-ips', name, 'fail'), subject: {kind: 'Service', namespace: 'web', name}})
    const byObject: Baseline = {file: 'before.json', generatedAt: '', findings: new Map([['cluster/external-ips service/web/a', {rule: 'cluster/external-ips', subject: {kind: 'Service', namespace: 'web', name: 'a'}, status: 'fail'}]]), nodeRecords: new Map()}
    const now = compareWithBaseline([onService('a'), onService('b')], [], byObject)
    assert.deepEqual([now.findings.map((marked) => marked.baseline), now.summary.new, now.summary.notes], [['existing', 'new'], 1, undefined])

    const byRule: Baseline = {file: 'before.json', generatedAt: '', findings: new Map([['cluster/external-ips cluster', {rule: 'cluster/external-ips', subject: {kind: 'Cluster', name: 'cluster'}, status: 'fail'}]]), nodeRecords: new Map()}
    const old = compareWithBaseline([onService('a'), onService('b')], [], byRule)
    assert.deepEqual([old.findings.map((marked) => marked.baseline), old.summary.existing, old.summary.fixed], [['existing', 'existing'], 2, []])
    assert.deepEqual(old.summary.notes, [
      'the baseline has cluster/external-ips about the cluster (a report from before its findings named their objects): 2 finding(s) on objects were compared with that one; write a new baseline to gate on each object',
    ])
  })

  it('leaves passed and skipped findings unmarked and uncounted', () => {
    const passed = finding('node/kernel-version', 'a', 'pass')
    const skipped = finding('node/nft-version', 'a', 'skip')
    const {findings, summary} = compareWithBaseline([passed, skipped], [], baseline([]))
    assert.deepEqual(findings, [passed, skipped])
    assert.equal(summary.new + summary.existing, 0)
  })

  it('lists as fixed what the baseline had that neither fails nor is unknown now, with what it was', () => {
    const {summary} = compareWithBaseline(
      [finding('node/kernel-version', 'a', 'pass'), finding('node/nft-version', 'a', 'fail')],
      [],
      baseline([['node/kernel-version', 'a', 'fail'], ['node/nft-version', 'a', 'unknown'], ['node/os-distro', 'gone', 'unknown']]),
    )
    assert.deepEqual(summary.fixed, [
      {rule: 'node/kernel-version', subject: {kind: 'Node', name: 'a'}, was: 'fail'},
      {rule: 'node/os-distro', subject: {kind: 'Node', name: 'gone'}, was: 'unknown'},
    ])
    assert.equal(summary.new, 1, 'node/nft-version fails now where it was unknown')
  })
})

/** A cluster run's node: only its name and checks matter to the comparison. */
function node(name: string, checks: Record<string, Status>): NodeReport {
  return {
    name,
    source: 'api',
    origin: 'cluster',
    kernelRelease: null,
    os: {id: null, prettyName: null, versionId: null},
    nftVersion: null,
    reachable: true,
    verdict: 'incomplete',
    checks: Object.fromEntries(Object.entries(checks).map(([rule, status]) => [rule, {status, severity: 'blocker', message: 'm'}])),
  }
}

/** A finding about the cluster: for a node rule, its results summed up (a cluster run's folded finding). */
function sumUp(rule: string, status: Status): GatedFinding {
  return {...finding(rule, 'cluster', status), subject: {kind: 'Cluster', name: 'cluster'}}
}

describe('comparing a cluster run with a baseline, node by node', () => {
  it('keeps each node\'s failed or unknown check as its own entry, keyed by the node, and no passed one', () => {
    const {byKey, sums} = openResults(
      [sumUp('node/kernel-version', 'fail'), sumUp('cluster/cni-version', 'fail')],
      [node('n1', {'node/kernel-version': 'fail', 'node/nft-version': 'pass'}), node('n2', {'node/kernel-version': 'unknown'})],
    )
    assert.deepEqual([...byKey], [
      ['node/kernel-version node/n1', {rule: 'node/kernel-version', status: 'fail', subject: {kind: 'Node', name: 'n1'}}],
      ['node/kernel-version node/n2', {rule: 'node/kernel-version', status: 'unknown', subject: {kind: 'Node', name: 'n2'}}],
      ['cluster/cni-version cluster', {rule: 'cluster/cni-version', status: 'fail', subject: {kind: 'Cluster', name: 'cluster'}}],
    ])
    assert.deepEqual([...sums].map((sum) => sum.rule), ['node/kernel-version'], 'the folded finding is a sum of node checks, not an entry')
  })

  it('a node that joined with a failure: its check is new, so is the sum-up finding; the old node\'s check is existing', () => {
    const earlier: Baseline = {file: 'before.json', generatedAt: '2026-11-01T08:00:00Z', findings: openResults([], [node('n1', {'node/kernel-version': 'fail'})]).byKey, nodeRecords: new Map()}
    const {findings, nodes, summary} = compareWithBaseline(
      [sumUp('node/kernel-version', 'fail')],
      [node('n1', {'node/kernel-version': 'fail', 'node/nft-version': 'pass'}), node('n2', {'node/kernel-version': 'fail'})],
      earlier,
    )
    assert.deepEqual(nodes.map((each) => each.checks['node/kernel-version'].baseline), ['existing', 'new'])
    assert.equal(nodes[0].checks['node/nft-version'].baseline, undefined, 'a passed check is not marked')
    assert.equal(findings[0].baseline, 'new')
    assert.deepEqual({new: summary.new, existing: summary.existing, fixed: summary.fixed}, {new: 1, existing: 1, fixed: []})
  })

  it('the sum-up finding is existing when every node\'s check is; a node gone is fixed', () => {
    const earlier: Baseline = {
      file: 'before.json',
      generatedAt: '2026-11-01T08:00:00Z',
      findings: openResults([], [node('n1', {'node/kernel-version': 'fail'}), node('gone', {'node/kernel-version': 'unknown'})]).byKey,
      nodeRecords: new Map(),
    }
    const {findings, summary} = compareWithBaseline([sumUp('node/kernel-version', 'fail')], [node('n1', {'node/kernel-version': 'fail'})], earlier)
    assert.equal(findings[0].baseline, 'existing')
    assert.deepEqual(summary.fixed, [{rule: 'node/kernel-version', subject: {kind: 'Node', name: 'gone'}, was: 'unknown'}])
  })

  it('a node check whose status changed (unknown, now failed) is new', () => {
    const earlier: Baseline = {file: 'before.json', generatedAt: '2026-11-01T08:00:00Z', findings: openResults([], [node('n1', {'node/kernel-version': 'unknown'})]).byKey, nodeRecords: new Map()}
    const {findings, nodes} = compareWithBaseline([sumUp('node/kernel-version', 'fail')], [node('n1', {'node/kernel-version': 'fail'})], earlier)
    assert.equal(nodes[0].checks['node/kernel-version'].baseline, 'new')
    assert.equal(findings[0].baseline, 'new')
  })
})
