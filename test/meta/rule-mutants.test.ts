/**
 * A rule mutator: every comparison operator in a rule's conditions flipped (< and <=, > and >=, == and !=) and
 * every version literal moved by one in its last component, one mutation at a time. Each mutant is evaluated on
 * the rule's fixtures in-process; it is killed when some fixture no longer gets the status its name expects,
 * i.e. when the fixture test would catch the same slip in the rule file. A survivor is a threshold no fixture
 * pins down: add a fixture at that boundary (test/meta/rule-boundaries.test.ts lists the version ones), or,
 * when no fixture can tell the mutant apart, list it below with why.
 */
import type {ASTNode} from '@marcbachmann/cel-js'
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {evaluateRules} from '../../src/engine/evaluate.js'
import type {LoadedRule} from '../../src/engine/rule-lint.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import {astNodes, bumpVersion, type ComparisonOperator, isComparison, isVersionLiteral, ruleConditions, ruleFixtures, telling} from '../helpers/rule-fixtures.js'

const FLIPPED: Record<ComparisonOperator, ComparisonOperator> = {'<': '<=', '<=': '<', '>': '>=', '>=': '>', '==': '!=', '!=': '=='}

/**
 * Mutants no fixture can kill, by `<rule> <condition>:<column> <before> → <after>` (column from 1), with why.
 * A fixture names only a status, so a mutant that changes only a finding's severity or text is one of these.
 */
const EQUIVALENT_MUTANTS = new Map<string, string>([
])

interface Mutant {
  /** `node/kernel-version outcomes[0].when:35 "5.13" → "5.14"` */
  name: string
  rule: LoadedRule
}

function mutantsOf(rule: LoadedRule): Mutant[] {
  const mutants: Mutant[] = []
  for (const condition of ruleConditions(rule)) {
    const {expression} = condition
    const replace = (start: number, end: number, replacement: string) => {
      mutants.push({
        name: `${rule.id} ${condition.path}:${start + 1} ${expression.slice(start, end)} → ${replacement}`,
        rule: condition.with(expression.slice(0, start) + replacement + expression.slice(end)),
      })
    }

    for (const {node} of astNodes(condition.ast)) {
      if (isComparison(node)) {
        const [left, right] = node.args as [ASTNode, ASTNode]
        // Between the operands there is only the operator, spaces and parentheses.
        const start = left.end + expression.slice(left.end, right.start).indexOf(node.op)
        replace(start, start + node.op.length, FLIPPED[node.op as ComparisonOperator])
      } else if (isVersionLiteral(node)) {
        for (const step of [1, -1]) {
          const bumped = bumpVersion(node.args as string, step)
          if (bumped) replace(node.start, node.end, JSON.stringify(bumped))
        }
      }
    }
  }

  return mutants
}

const rules = await loadRuleCatalog([])

describe('rule mutants', () => {
  const seen = new Set<string>()

  for (const rule of rules) {
    it(`${rule.id}: every mutant of its conditions changes a fixture's status`, () => {
      const fixtures = ruleFixtures(rule)
      const survivors = mutantsOf(rule)
        .filter(({name, rule: mutant}) => {
          seen.add(name)
          return fixtures.every(({expected, subjects}) => telling(evaluateRules([mutant], subjects)).status === expected)
        })
        .map(({name}) => name)
      assert.deepEqual(
        survivors.filter((name) => !EQUIVALENT_MUTANTS.has(name)),
        [],
        'these mutants pass every fixture: add a fixture at the boundary they move, or list them in EQUIVALENT_MUTANTS with why',
      )
      for (const [name] of EQUIVALENT_MUTANTS) {
        if (name.startsWith(`${rule.id} `)) assert.ok(survivors.includes(name), `EQUIVALENT_MUTANTS lists ${name}, which a fixture kills now (or no longer exists): drop it`)
      }
    })
  }

  it('lists no mutant of a rule that does not exist', () => {
    const ids = new Set(rules.map((rule) => rule.id))
    for (const [name] of EQUIVALENT_MUTANTS) assert.ok(ids.has(name.split(' ', 1)[0]), `EQUIVALENT_MUTANTS: ${name}`)
  })

  it('made mutants', (t) => {
    t.diagnostic(`${seen.size} mutants of ${rules.length} rules`)
    assert.ok(seen.size > 100)
  })
})
