import assert from 'node:assert/strict'
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {basename, join} from 'node:path'
import {describe, it} from 'node:test'

import type {Finding} from '../../src/contract/finding.js'
import {deriveClusterModel} from '../../src/derive/cluster-facts.js'
import {clusterSubjects} from '../../src/derive/subjects.js'
import {evaluateRules} from '../../src/engine/evaluate.js'
import type {LoadedRule} from '../../src/engine/rule-lint.js'
import {parseBundle} from '../../src/facts/bundle.js'
import {deriveNodeFacts} from '../../src/facts/node-facts.js'
import type {Subject} from '../../src/facts/subject.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import type {ClusterSnapshot} from '../../src/sources/cluster/snapshot.js'
import {FIXTURES} from '../helpers/paths.js'

/**
 * Every rule ships fixtures named by expectation: test/fixtures/rules/<rule-name>/<status>.<case>.<ext>.
 * A node rule's fixture is a facts bundle (.facts); a cluster rule's is a cluster snapshot (.json),
 * where the rule's most telling outcome across its subjects (fail, then unknown, pass, skip) counts.
 */
const RULE_FIXTURES = join(FIXTURES, 'rules')
const STATUS_WEIGHT = {fail: 0, unknown: 1, pass: 2, skip: 3}

function subjectsOf(rule: LoadedRule, file: string): Subject[] {
  const text = readFileSync(file, 'utf8')
  if (rule.scope === 'node') return [{kind: 'Node', name: basename(file), facts: deriveNodeFacts(parseBundle(text), basename(file))}]
  return clusterSubjects(deriveClusterModel(JSON.parse(text) as ClusterSnapshot))
}

function telling(findings: Finding[]): Finding {
  assert.ok(findings.length > 0, 'the rule produced no finding')
  return findings.toSorted((a, b) => STATUS_WEIGHT[a.status] - STATUS_WEIGHT[b.status])[0]
}
const rules = await loadRuleCatalog([])

describe('rule fixtures', () => {
  for (const rule of rules) {
    const name = rule.id.split('/', 2)[1]
    const dir = join(RULE_FIXTURES, name)
    const extension = rule.scope === 'node' ? '.facts' : '.json'
    const files = existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith(extension)) : []

    describe(rule.id, () => {
      it('has pass, fail and unknown fixtures', () => {
        for (const status of ['pass', 'fail', 'unknown']) {
          assert.ok(
            files.some((file) => file.startsWith(`${status}.`)),
            `${rule.id} needs a fixture ${join('test/fixtures/rules', name, `${status}.<case>${extension}`)}`,
          )
        }
      })

      for (const file of files) {
        const expected = file.split('.', 1)[0]
        it(`is ${expected} on ${file}`, () => {
          const finding = telling(evaluateRules([rule], subjectsOf(rule, join(dir, file))).findings)
          assert.equal(finding.status, expected, `${file}: ${finding.message} (${finding.reason ?? ''})`)
          assert.ok(finding.message.length > 0 && !finding.message.includes('{{'), `message rendered: ${finding.message}`)
          if (finding.status === 'unknown') assert.ok(finding.reason, 'an unknown finding says why')
          if (finding.status === 'fail') assert.ok(finding.remediation.length > 0)
        })
      }
    })
  }

  it('has no fixture folder without a rule', () => {
    const names = new Set(rules.map((rule) => rule.id.split('/', 2)[1]))
    for (const dir of readdirSync(RULE_FIXTURES)) assert.ok(names.has(dir), `test/fixtures/rules/${dir} matches no rule`)
  })
})
