import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import type {Finding, GatedFinding} from '../../src/contract/finding.js'
import {countFindings, exitCodeOf, uncheckedExitCode, verdictOf, worstExitCode, worstVerdict} from '../../src/planner/verdict.js'

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

/**
 * The exit code over every gate policy (--allow-incomplete x --fail-on) and every kind of verdict,
 * written out by hand from the README's "Exit codes": 3 no-go, 5 incomplete unless
 * --allow-incomplete, 4 failed warnings with --fail-on warning (once 5 is allowed away, too), else 0.
 */
describe('verdict and exit code, over every --allow-incomplete and --fail-on', () => {
  // Exit codes by policy: [--fail-on blocker, --fail-on warning] without and with --allow-incomplete.
  interface Row {
    findings: Finding[]
    verdict: string
    strict: [blocker: number, warning: number]
    allowIncomplete: [blocker: number, warning: number]
  }
  const rows: Record<string, Row> = {
    'all pass': {findings: [finding('pass', 'blocker')], verdict: 'go', strict: [0, 0], allowIncomplete: [0, 0]},
    'an unknown warning only': {findings: [finding('unknown', 'warning')], verdict: 'go', strict: [0, 0], allowIncomplete: [0, 0]},
    'go with a failed warning': {findings: [finding('fail', 'warning'), finding('pass', 'blocker')], verdict: 'go', strict: [0, 4], allowIncomplete: [0, 4]},
    'go with a failed info': {findings: [finding('fail', 'info'), finding('pass', 'blocker')], verdict: 'go', strict: [0, 0], allowIncomplete: [0, 0]},
    'incomplete without warnings': {findings: [finding('unknown', 'blocker'), finding('pass', 'blocker')], verdict: 'incomplete', strict: [5, 5], allowIncomplete: [0, 0]},
    'incomplete with a failed warning': {findings: [finding('unknown', 'blocker'), finding('fail', 'warning')], verdict: 'incomplete', strict: [5, 5], allowIncomplete: [0, 4]},
    'incomplete with a failed info': {findings: [finding('unknown', 'blocker'), finding('fail', 'info')], verdict: 'incomplete', strict: [5, 5], allowIncomplete: [0, 0]},
    'no-go': {findings: [finding('fail', 'blocker'), finding('unknown', 'blocker')], verdict: 'no-go', strict: [3, 3], allowIncomplete: [3, 3]},
    'no-go with a failed warning': {findings: [finding('fail', 'blocker'), finding('fail', 'warning')], verdict: 'no-go', strict: [3, 3], allowIncomplete: [3, 3]},
  }
  for (const [name, row] of Object.entries(rows)) {
    const summary = countFindings(row.findings)
    it(`${name}: ${row.verdict}`, () => assert.equal(verdictOf(summary), row.verdict))
    for (const allowIncomplete of [false, true]) {
      const expected = allowIncomplete ? row.allowIncomplete : row.strict
      for (const [index, failOn] of (['blocker', 'warning'] as const).entries()) {
        const flags = `--fail-on ${failOn}${allowIncomplete ? ' --allow-incomplete' : ''}`
        it(`${name}, ${flags}: exit ${expected[index]}`, () => {
          assert.equal(exitCodeOf(verdictOf(summary), summary, {failOn, allowIncomplete}), expected[index])
        })
      }
    }
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

describe('a fleet: the worst of its clusters, and the exit code of one not checked', () => {
  it('worst verdict: no-go, then incomplete, then go', () => {
    assert.equal(worstVerdict(['go', 'incomplete', 'no-go', 'go']), 'no-go')
    assert.equal(worstVerdict(['go', 'incomplete']), 'incomplete')
    assert.equal(worstVerdict(['go']), 'go')
    assert.equal(worstVerdict([]), 'go')
  })

  it('worst exit code: 3, then 5, then 4, then 0 (not the largest number)', () => {
    assert.equal(worstExitCode([0, 5, 3, 4]), 3)
    assert.equal(worstExitCode([4, 5, 0]), 5)
    assert.equal(worstExitCode([0, 4]), 4)
    assert.equal(worstExitCode([0, 0]), 0)
  })

  it('a cluster not checked is incomplete: 5, or 0 with --allow-incomplete (no warning can have failed)', () => {
    assert.equal(uncheckedExitCode({failOn: 'blocker', allowIncomplete: false}), 5)
    assert.equal(uncheckedExitCode({failOn: 'warning', allowIncomplete: false}), 5)
    assert.equal(uncheckedExitCode({failOn: 'blocker', allowIncomplete: true}), 0)
    assert.equal(uncheckedExitCode({failOn: 'warning', allowIncomplete: true}), 0)
  })
})
