import assert from 'node:assert/strict'
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'

import {evaluateRules} from '../../src/engine/evaluate.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import {fixtureExtension, RULE_FIXTURES, ruleFixtures, ruleName, telling} from '../helpers/rule-fixtures.js'

/**
 * Every rule ships fixtures named by expectation: test/fixtures/rules/<rule-name>/<status>.<case>.<ext>.
 * A node rule's fixture is a facts bundle (.facts); a cluster rule's is a cluster snapshot (.json),
 * where the rule's most telling outcome across its subjects (fail, then unknown, pass, skip) counts.
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

      for (const {expected, file, subjects} of fixtures) {
        it(`is ${expected} on ${file}`, () => {
          const finding = telling(evaluateRules([rule], subjects).findings)
          assert.equal(finding.status, expected, `${file}: ${finding.message} (${finding.reason ?? ''})`)
          assert.ok(finding.message.length > 0 && !finding.message.includes('{{'), `message rendered: ${finding.message}`)
          if (finding.status === 'unknown') assert.ok(finding.reason, 'an unknown finding says why')
          if (finding.status === 'fail') assert.ok(finding.remediation.length > 0)
        })
      }
    })
  }

  it('has no fixture folder without a rule', () => {
    const names = new Set(rules.map((rule) => ruleName(rule)))
    for (const dir of readdirSync(RULE_FIXTURES)) assert.ok(names.has(dir), `test/fixtures/rules/${dir} matches no rule`)
  })
})
