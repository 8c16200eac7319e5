/**
 * A rule mutator: every comparison operator in a rule's conditions flipped (< and <=, > and >=, == and !=) and
 * every version literal moved by one in its last component, one mutation at a time. Each mutant is evaluated on
 * the rule's fixtures in-process; it is killed when some fixture no longer gets the status its name expects (the
 * fixture test would fail) or gets findings of another severity, message or remediation than the rule's own (the
 * fixture's golden report would change). Every mutant of every built-in rule is killed: a survivor is a threshold no
 * fixture pins down, and wants a fixture at that boundary (test/meta/rule-boundaries.test.ts lists the version ones).
 */
import type {ASTNode} from '@marcbachmann/cel-js'
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {evaluateRules} from '../../src/engine/evaluate.js'
import type {LoadedRule} from '../../src/engine/rule-lint.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import {reported} from '../helpers/evaluation.js'
import {astNodes, bumpVersion, type ComparisonOperator, isComparison, isVersionLiteral, ruleConditions, type RuleFixture, ruleFixtures, telling} from '../helpers/rule-fixtures.js'

const FLIPPED: Record<ComparisonOperator, ComparisonOperator> = {'<': '<=', '<=': '<', '>': '>=', '>=': '>', '==': '!=', '!=': '=='}

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

/** What a user reads of a rule's findings on one fixture: the golden reports record it for every fixture. */
function outcomeOf(rule: LoadedRule, {options, subjects}: Pick<RuleFixture, 'options' | 'subjects'>): string {
  return JSON.stringify(
    reported(evaluateRules([rule], subjects, options)).map(({severity, status, message, subject, remediation}) => [subject.kind, subject.name, status, severity, message, remediation]),
  )
}

/**
 * The mutants of the rule that give every fixture the status its name expects and the findings the rule
 * gives it: a changed status fails the fixture test, a changed severity, message or remediation the golden report.
 */
function survivorsOf(rule: LoadedRule, fixtures: readonly RuleFixture[]): string[] {
  const outcomes = fixtures.map((fixture) => outcomeOf(rule, fixture))
  return mutantsOf(rule)
    .filter(({rule: mutant}) =>
      fixtures.every((fixture, index) => telling(reported(evaluateRules([mutant], fixture.subjects, fixture.options))).status === fixture.expected && outcomeOf(mutant, fixture) === outcomes[index]),
    )
    .map(({name}) => name)
}

const rules = await loadRuleCatalog([])

describe('rule mutants', () => {
  for (const rule of rules) {
    it(`${rule.id}: every mutant of its conditions changes a fixture's status or findings`, () => {
      assert.deepEqual(survivorsOf(rule, ruleFixtures(rule)), [], 'these mutants pass every fixture: add a fixture at the boundary they move')
    })
  }

  it('flips operators and moves version literals, and a boundary fixture is what kills them, by status or severity', (t) => {
    const kernelRule = rules.find((rule) => rule.id === 'node/kernel-version')!
    assert.deepEqual(
      mutantsOf(kernelRule).map(({name}) => name),
      ['node/kernel-version outcomes[0].when:41 < → <=', 'node/kernel-version outcomes[0].when:33 "5.13" → "5.14"', 'node/kernel-version outcomes[0].when:33 "5.13" → "5.12"'],
    )
    const fixtures = ruleFixtures(kernelRule)
    assert.deepEqual(survivorsOf(kernelRule, fixtures), [])
    assert.deepEqual(survivorsOf(kernelRule, fixtures.filter(({file}) => !file.includes('5.13.0'))), [
      'node/kernel-version outcomes[0].when:41 < → <=',
      'node/kernel-version outcomes[0].when:33 "5.13" → "5.14"',
    ])
    assert.deepEqual(survivorsOf(kernelRule, fixtures.filter(({file}) => !file.includes('5.12.19'))), ['node/kernel-version outcomes[0].when:33 "5.13" → "5.12"'])
    // Only the containerised kube-proxy beside a host nft 1.0.0 reaches the host-nft warning: without it, both its mutants survive.
    const nftRule = rules.find((rule) => rule.id === 'node/nft-version')!
    const withoutContainerised = ruleFixtures(nftRule).filter(({file}) => !file.includes('1.0.0-containerised'))
    assert.deepEqual(survivorsOf(nftRule, withoutContainerised), ['node/nft-version outcomes[3].when:19 != → ==', 'node/nft-version outcomes[3].when:81 "1.0.1" → "1.0.0"'])
    t.diagnostic(`${rules.reduce((sum, rule) => sum + mutantsOf(rule).length, 0)} mutants of ${rules.length} rules`)
  })
})
