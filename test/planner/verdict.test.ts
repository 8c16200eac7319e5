import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import type {Finding} from '../../src/contract/finding.js'
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
