import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import type {Finding, GatedFinding} from '../../src/contract/finding.js'
import {countFindings, exitCodeOf, verdictOf} from '../../src/planner/verdict.js'

function finding(status: Finding['status'], severity: Finding['severity']): Finding {
  return {
    rule: 'node/x',
    title: 'x',
    status,
    severity,
    confidence: 'verified',
    subject: {kind: 'Node', name: 'n'},
    message: '',
    evidence: {},
    remediation: [],
    references: [],
  }
}

const blocker = {failOn: 'blocker', allowIncomplete: false} as const

describe('verdict and exit code', () => {
  const cases: Array<[string, Finding[], typeof blocker | {allowIncomplete: boolean; failOn: 'blocker' | 'warning'}, string, number]> = [
    ['all pass', [finding('pass', 'blocker')], blocker, 'go', 0],
    ['a failed blocker', [finding('fail', 'blocker'), finding('unknown', 'blocker')], blocker, 'no-go', 3],
    ['an unknown blocker', [finding('unknown', 'blocker'), finding('pass', 'blocker')], blocker, 'incomplete', 5],
    ['an unknown blocker, allowed', [finding('unknown', 'blocker')], {failOn: 'blocker', allowIncomplete: true}, 'incomplete', 0],
    ['an unknown warning only', [finding('unknown', 'warning')], blocker, 'go', 0],
    ['a warning', [finding('fail', 'warning')], blocker, 'go', 0],
    ['a warning with --fail-on warning', [finding('fail', 'warning')], {failOn: 'warning', allowIncomplete: false}, 'go', 4],
    ['incomplete beats warnings', [finding('fail', 'warning'), finding('unknown', 'blocker')], {failOn: 'warning', allowIncomplete: false}, 'incomplete', 5],
    ['info only', [finding('fail', 'info')], {failOn: 'warning', allowIncomplete: false}, 'go', 0],
  ]
  for (const [name, findings, policy, verdict, exit] of cases) {
    it(`${name}: ${verdict}, exit ${exit}`, () => {
      const summary = countFindings(findings)
      assert.equal(verdictOf(summary), verdict)
      assert.equal(exitCodeOf(verdictOf(summary), summary, policy), exit)
    })
  }
})

describe('counting findings', () => {
  const waiver = {reason: 'accepted until the upgrade', source: 'waivers.yaml:3'}

  it('counts each status and severity once, and an active waiver only as waived', () => {
    const findings: GatedFinding[] = [
      finding('fail', 'blocker'),
      finding('fail', 'warning'),
      finding('fail', 'warning'),
      finding('fail', 'info'),
      finding('unknown', 'blocker'),
      finding('unknown', 'warning'),
      finding('pass', 'blocker'),
      finding('pass', 'warning'),
      finding('pass', 'info'),
      finding('skip', 'blocker'),
      {...finding('fail', 'blocker'), waiver: {...waiver, expired: false}},
      {...finding('unknown', 'blocker'), waiver: {...waiver, expires: '2026-01-01', expired: false}},
      {...finding('fail', 'warning'), waiver: {...waiver, expires: '2020-01-01', expired: true}},
    ]
    assert.deepEqual(countFindings(findings), {
      blockers: 1,
      warnings: 3,
      info: 1,
      unknown: 2,
      unknownBlockers: 1,
      passed: 3,
      skipped: 1,
      waived: 2,
    })
  })

  it('lets a waived failed blocker through to go, and an expired waiver not', () => {
    const waived = countFindings([{...finding('fail', 'blocker'), waiver: {...waiver, expired: false}}])
    assert.equal(verdictOf(waived), 'go')
    const expired = countFindings([{...finding('fail', 'blocker'), waiver: {...waiver, expired: true}}])
    assert.equal(verdictOf(expired), 'no-go')
  })
})
