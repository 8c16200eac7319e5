import assert from 'node:assert/strict'
import {dirname, join} from 'node:path'
import {describe, it} from 'node:test'

import type {GatedFinding} from '../../src/contract/finding.js'
import {applyWaivers, WaiverMatcher} from '../../src/planner/waivers.js'
import {readWaivers} from '../../src/services/waivers-file.js'
import {scratchFiles} from '../helpers/scratch.js'

const RULES = new Set(['node/kernel-version', 'node/host-firewall', 'cluster/ipvs-lb-hijack'])
const file = scratchFiles('kpx-waivers-')

function finding(rule: string, kind: string, name: string, status: GatedFinding['status'] = 'fail'): GatedFinding {
  return {rule, title: rule, status, severity: 'blocker', confidence: 'verified', subject: {kind, name}, message: 'm', evidence: {}, remediation: [], references: []}
}

describe('waivers file', () => {
  it('reads entries with their FILE:LINE, defaulting the subject to every subject', async () => {
    const path = file('ok.yaml', ['waivers:', '  - rule: node/kernel-version', '    reason: Kernel upgrade booked as CHG-1234', '    expires: 2027-01-31', ''].join('\n'))
    assert.deepEqual(await readWaivers(path, RULES), [{rule: 'node/kernel-version', subject: '**', reason: 'Kernel upgrade booked as CHG-1234', expires: '2027-01-31', source: `${path}:2`}])
  })

  it('names the file, line and column of every mistake, and what to do', async () => {
    const path = file(
      'bad.yaml',
      ['waivers:', '  - rule: node/kernel-versoin', '    reason: Kernel upgrade booked', '  - rule: node/host-firewall', '    reason: Firewall reviewed by netsec', '    expiry: 2027-01-01', '  - rule: node/host-firewall', '    reason: short', '    expires: 2027-13-45', ''].join('\n'),
    )
    await assert.rejects(readWaivers(path, RULES), (error: Error & {exitCode: number}) => {
      assert.equal(error.exitCode, 2)
      assert.match(error.message, new RegExp(String.raw`${path}:6:5 waivers\.1: unknown field "expiry"; did you mean "expires"\?`))
      assert.match(error.message, new RegExp(String.raw`${path}:8:5 waivers\.2\.reason must NOT have fewer than 8 characters`))
      return true
    })
    const unknownRule = file('rule.yaml', ['waivers:', '  - rule: node/kernel-versoin', '    reason: Kernel upgrade booked', ''].join('\n'))
    await assert.rejects(readWaivers(unknownRule, RULES), new RegExp(`${unknownRule}:2:5 no rule "node/kernel-versoin"`))
    const badDate = file('date.yaml', ['waivers:', '  - rule: node/kernel-version', '    reason: Kernel upgrade booked', '    expires: 2027-02-30', ''].join('\n'))
    await assert.rejects(readWaivers(badDate, RULES), /is not a date/)
    const missing = join(dirname(file('present.yaml', '')), 'missing.yaml')
    await assert.rejects(readWaivers(missing, RULES), /--waivers .*missing\.yaml: no such file/)
  })
})

describe('applying waivers', () => {
  const now = new Date('2026-11-29T12:00:00Z')
  const findings = [
    finding('node/kernel-version', 'Node', 'edge-1'),
    finding('node/kernel-version', 'Node', 'core-1'),
    finding('cluster/ipvs-lb-hijack', 'Service', 'shop/cart'),
    finding('node/kernel-version', 'Node', 'edge-2', 'pass'),
  ]

  it('matches rule and subject pattern: * stays within a path segment, ** does not', () => {
    const waivers = [
      {rule: 'node/kernel-version', subject: 'node/edge-*', reason: 'r1', source: 'w.yaml:2'},
      {rule: 'cluster/ipvs-lb-hijack', subject: 'service/*', reason: 'r2', source: 'w.yaml:5'},
      {rule: 'cluster/ipvs-lb-hijack', subject: 'service/**', reason: 'r3', source: 'w.yaml:8'},
    ]
    const {findings: marked, summary} = applyWaivers(findings, new WaiverMatcher(waivers, now), 'w.yaml')
    assert.deepEqual(
      marked.map((item) => item.waiver?.source),
      ['w.yaml:2', undefined, 'w.yaml:8', undefined],
      'edge-1 only; the Service needs ** to cross shop/; passes are never waived',
    )
    assert.deepEqual(summary, {file: 'w.yaml', applied: 2, expired: 0, unused: [{rule: 'cluster/ipvs-lb-hijack', subject: 'service/*', source: 'w.yaml:5'}]})
  })

  it('a waiver for the cluster, written before a rule named its objects, waives each object of the rule and says so; nodes need their own', () => {
    const waivers = [{rule: 'cluster/ipvs-lb-hijack', subject: 'cluster', reason: 'accepted for all', source: 'w.yaml:2'}, {rule: 'node/kernel-version', subject: 'cluster', reason: 'not nodes', source: 'w.yaml:5'}]
    const {findings: marked, summary} = applyWaivers(findings, new WaiverMatcher(waivers, now), 'w.yaml')
    assert.deepEqual(marked.map((item) => item.waiver?.source), [undefined, undefined, 'w.yaml:2', undefined])
    assert.deepEqual(summary.notes, [
      'waiver w.yaml:2 names the cluster for cluster/ipvs-lb-hijack, whose findings are each about one object now: it waives all 1 of them; name the objects (service/NAMESPACE/NAME, deployment/NAMESPACE/NAME, …) to waive only those',
    ])
    assert.deepEqual(summary.unused, [{rule: 'node/kernel-version', subject: 'cluster', source: 'w.yaml:5'}])
  })

  it('waives unknowns as failures, and takes a pattern literally but for * and **, whole', () => {
    const subjects = ['edge.1', 'edgeX1', 'edge.1-old', 'core-edge.1'].map((name) => finding('node/kernel-version', 'Node', name, 'unknown'))
    const waivers = [{rule: 'node/kernel-version', subject: 'node/edge.1', reason: 'r', source: 'w.yaml:2'}]
    assert.deepEqual(
      applyWaivers(subjects, new WaiverMatcher(waivers, now), 'w.yaml').findings.map((item) => item.waiver?.source),
      ['w.yaml:2', undefined, undefined, undefined],
    )
    const brackets = [{rule: 'node/kernel-version', subject: 'node/(edge)+[1]', reason: 'r', source: 'w.yaml:2'}]
    const odd = ['(edge)+[1]', 'edge1', 'edgeedge1'].map((name) => finding('node/kernel-version', 'Node', name))
    assert.deepEqual(applyWaivers(odd, new WaiverMatcher(brackets, now), 'w.yaml').findings.map((item) => item.waiver?.source), ['w.yaml:2', undefined, undefined])
  })

  it('takes the first waiver that matches; one without expiry never lapses; skips are never waived', () => {
    const waivers = [
      {rule: 'node/kernel-version', subject: 'node/**', reason: 'fleet-wide', source: 'w.yaml:2'},
      {rule: 'node/kernel-version', subject: 'node/edge-1', reason: 'this node', expires: '2026-12-31', source: 'w.yaml:5'},
    ]
    const matcher = new WaiverMatcher(waivers, now)
    const {findings: marked, summary} = applyWaivers([finding('node/kernel-version', 'Node', 'edge-1'), finding('node/kernel-version', 'Node', 'edge-3', 'skip')], matcher, 'w.yaml')
    assert.deepEqual(marked[0].waiver, {reason: 'fleet-wide', expired: false, source: 'w.yaml:2'})
    assert.equal(marked[1].waiver, undefined)
    assert.deepEqual(summary.unused, [{rule: 'node/kernel-version', subject: 'node/edge-1', source: 'w.yaml:5'}])
  })

  it('holds through its expiry day and lapses the day after', () => {
    const waiver = (expires: string) => [{rule: 'node/kernel-version', subject: 'node/core-1', reason: 'r', expires, source: 'w.yaml:2'}]
    assert.equal(applyWaivers(findings, new WaiverMatcher(waiver('2026-11-29'), now), 'w.yaml').findings[1].waiver?.expired, false)
    const lapsed = applyWaivers(findings, new WaiverMatcher(waiver('2026-11-28'), now), 'w.yaml')
    assert.equal(lapsed.findings[1].waiver?.expired, true)
    assert.equal(lapsed.summary.expired, 1)
  })
})
