import assert from 'node:assert/strict'
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'

import {subjectName} from '../../src/contract/subject.js'
import {evaluateRules} from '../../src/engine/evaluate.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import {reported} from '../helpers/evaluation.js'
import {BASELINE_SIDECAR, FIRST_READ_SIDECAR, fixtureExtension, RULE_FIXTURES, ruleFixtures, ruleName, telling} from '../helpers/rule-fixtures.js'
import {FIXTURE_EXPECTATIONS} from './rule-fixture-expectations.js'

/**
 * Every rule ships fixtures named by expectation: test/fixtures/rules/<rule-name>/<status>.<case>.<ext>.
 * A node rule's fixture is a facts bundle (.facts); a cluster rule's is a cluster snapshot (.json),
 * where the rule's most telling outcome across its subjects (fail, then unknown, pass, skip) counts.
 * What an unknown or fail fixture must say besides its status is written in rule-fixture-expectations.ts.
 */
const rules = await loadRuleCatalog([])

describe('rule fixtures', () => {
  for (const rule of rules) {
    const name = ruleName(rule)
    const extension = fixtureExtension(rule)
    const fixtures = ruleFixtures(rule)

    describe(rule.id, () => {
      it('has pass, fail and unknown fixtures', () => {
        for (const status of ['pass', 'fail', 'unknown']) {
          assert.ok(
            fixtures.some(({expected}) => expected === status),
            `${rule.id} needs a fixture ${join('test/fixtures/rules', name, `${status}.<case>${extension}`)}`,
          )
        }
      })

      for (const {expected, file, options, subjects} of fixtures) {
        it(`is ${expected} on ${file}`, () => {
          const finding = telling(reported(evaluateRules([rule], subjects, options)))
          assert.equal(finding.status, expected, `${file}: ${finding.message} (${finding.reason ?? ''})`)
          assert.ok(finding.message.length > 0 && !finding.message.includes('{{'), `message rendered: ${finding.message}`)
          const expectation = FIXTURE_EXPECTATIONS[`${name}/${file}`]
          if (expected === 'unknown' || expected === 'fail') assert.ok(expectation, `${name}/${file} needs a row in test/engine/rule-fixture-expectations.ts`)
          if (expectation && 'reason' in expectation) assert.equal(finding.reason, expectation.reason, `${file}: ${finding.message}`)
          if (expectation && 'severity' in expectation) {
            assert.equal(finding.severity, expectation.severity)
            assert.equal(`${finding.subject.kind}/${subjectName(finding.subject)}`, expectation.subject)
            assert.ok(finding.remediation.length > 0, 'a failing finding says what to do')
            if (expectation.remediation) {
              assert.ok(
                finding.remediation.some((step) => step.includes(expectation.remediation!)),
                `remediation carries ${JSON.stringify(expectation.remediation)}: ${JSON.stringify(finding.remediation)}`,
              )
            }

            if (expectation.without) {
              assert.ok(
                !finding.remediation.some((step) => step.includes(expectation.without!)),
                `remediation leaves out ${JSON.stringify(expectation.without)}: ${JSON.stringify(finding.remediation)}`,
              )
            }
          }
        })
      }
    })
  }

  it('has a written expectation for every unknown and fail fixture, and none for a missing one', () => {
    const fixtures = readdirSync(RULE_FIXTURES).flatMap((dir) => readdirSync(join(RULE_FIXTURES, dir)).map((file) => `${dir}/${file}`))
    const needing = fixtures.filter((path) => /\/(unknown|fail)\./.test(path) && !path.endsWith(BASELINE_SIDECAR) && !path.endsWith(FIRST_READ_SIDECAR)).toSorted()
    assert.deepEqual(Object.keys(FIXTURE_EXPECTATIONS).toSorted(), needing)
    for (const [path, expectation] of Object.entries(FIXTURE_EXPECTATIONS)) {
      assert.equal('reason' in expectation, path.includes('/unknown.'), `${path}: an unknown fixture expects a reason, a fail fixture a severity`)
    }
  })

  it('expects permission-denied of every fixture named <resource>-forbidden', () => {
    const forbidden = Object.entries(FIXTURE_EXPECTATIONS).filter(([path]) => /^[^/]+\/unknown\.[\w-]+-forbidden\.json$/.test(path))
    assert.equal(forbidden.length, 26)
    for (const [path, expectation] of forbidden) assert.deepEqual(expectation, {reason: 'permission-denied'}, path)
  })

  it('has no fixture folder without a rule', () => {
    const names = new Set(rules.map((rule) => ruleName(rule)))
    for (const dir of readdirSync(RULE_FIXTURES)) assert.ok(names.has(dir), `test/fixtures/rules/${dir} matches no rule`)
  })
})
