import assert from 'node:assert/strict'
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'

import {evaluateRules} from '../../src/engine/evaluate.js'
import {parseBundle} from '../../src/facts/bundle.js'
import {deriveNodeFacts} from '../../src/facts/node-facts.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import {FIXTURES} from '../helpers/paths.js'

/**
 * Every rule ships fixtures named by expectation: test/fixtures/rules/<rule-name>/<status>.<case>.facts.
 * Each is a facts bundle; the rule must reach <status> on it.
 */
const RULE_FIXTURES = join(FIXTURES, 'rules')
const rules = loadRuleCatalog([])

describe('rule fixtures', () => {
  for (const rule of rules) {
    const name = rule.id.split('/')[1]
    const dir = join(RULE_FIXTURES, name)
    const files = existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith('.facts')) : []

    describe(rule.id, () => {
      it('has pass, fail and unknown fixtures', () => {
        for (const status of ['pass', 'fail', 'unknown']) {
          assert.ok(
            files.some((file) => file.startsWith(`${status}.`)),
            `${rule.id} needs a fixture ${join('test/fixtures/rules', name, `${status}.<case>.facts`)}`,
          )
        }
      })

      for (const file of files) {
        const expected = file.split('.')[0]
        it(`is ${expected} on ${file}`, () => {
          const facts = deriveNodeFacts(parseBundle(readFileSync(join(dir, file), 'utf8')), file)
          const [finding] = evaluateRules([rule], [{kind: 'Node', name: file, facts}])
          assert.equal(finding.status, expected, `${file}: ${finding.message} (${finding.reason ?? ''})`)
          assert.ok(finding.message.length > 0 && !finding.message.includes('{{'), `message rendered: ${finding.message}`)
          if (finding.status === 'unknown') assert.ok(finding.reason, 'an unknown finding says why')
          if (finding.status === 'fail') assert.ok(finding.remediation.length > 0)
        })
      }
    })
  }

  it('has no fixture folder without a rule', () => {
    const names = new Set(rules.map((rule) => rule.id.split('/')[1]))
    for (const dir of readdirSync(RULE_FIXTURES)) assert.ok(names.has(dir), `test/fixtures/rules/${dir} matches no rule`)
  })
})
