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
import {astNodes, bumpVersion, type ComparisonOperator, isComparison, isVersionLiteral, ruleConditions, type RuleFixture, ruleFixtures, telling} from '../helpers/rule-fixtures.js'

const FLIPPED: Record<ComparisonOperator, ComparisonOperator> = {'<': '<=', '<=': '<', '>': '>=', '>=': '>', '==': '!=', '!=': '=='}

/**
 * Surviving mutants, by `<rule> <condition>:<column> <before> → <after>` (column from 1) or `<rule> <condition>`
 * for all of a condition's, with why. A fixture names only a status, so a mutant that changes only a finding's
 * severity or text cannot be killed; "no fixture yet" marks a boundary a new fixture should pin down.
 */
const SURVIVORS = new Map<string, string>([
  ['cluster/ipvs-deprecation outcomes[0].when', 'IPVS removed (1.40, a blocker) and deprecated (1.35, a warning) are both fail: moving the 1.40 boundary changes only the severity'],
  ['cluster/kubernetes-version outcomes[0].when', 'below 1.33.6 every outcome is a fail: the 1.29, 1.31 and 1.33 boundaries pick between fails (message, severity); 1.33.6 is killed'],
  ['cluster/kubernetes-version outcomes[2].when', 'the same: below 1.31 the rule fails through 1.33 and 1.33.6 too'],
  ['cluster/kubernetes-version outcomes[3].when', 'the same: below 1.33 the rule fails through 1.33.6 too'],
  ['cluster/kubernetes-version outcomes[1].when:139 < → <=', 'at the EKS and AKS floor (1.33) the 1.33.6 outcome fails too; only a CCE cluster at 1.35.0 could tell, and no CCE capture exists'],
  ['node/nft-version outcomes[3].when:30 "1.0.1" → "1.0.0"', 'a containerised kube-proxy only lowers the severity of the same fail: at 1.0.0 the next outcome fails'],
  ['node/nft-version outcomes[3].when:90 == → !=', 'the same: without the container condition, an old host nft fails as a blocker instead of a warning'],
  ['cluster/ipvs-lb-hijack outcomes[1].when:25 == → !=', 'both outcomes it chooses between are pass, with different messages'],
  ['cluster/nodeport-addresses outcomes[2].when:68 > → >=', 'what follows it is a fail too (of severity info)'],
  ['cluster/cni-version outcomes[1].when:100 < → <=', 'no fixture yet of a CNI at exactly its minimum version in data.minimum'],
  ['cluster/cni-version outcomes[3].when:52 != → ==', 'no fixture yet of Calico with the Nftables dataplane'],
  ['cluster/service-count outcomes[0].when', 'no fixture yet with 10,000 endpoints (the version boundary 1.35.9/1.36.0 is there, without the endpoints)'],
  ['cluster/service-count outcomes[1].when:16 >= → >', 'no fixture yet of exactly 3,000 Services'],
  ['cluster/service-count outcomes[2].when:16 >= → >', 'no fixture yet of exactly 500 Services'],
  ['node/ipvs-other-users outcomes[2].when:46 == → !=', 'no fixture yet of kube-proxy in IPVS mode with its runtime collected'],
])

/** The entry that lets a mutant survive: its own, or its condition's. */
function allowed(name: string): string | undefined {
  return [name, name.split(':', 1)[0]].find((key) => SURVIVORS.has(key))
}

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

/** The mutants of the rule that give every fixture the status its name expects. */
function survivorsOf(rule: LoadedRule, fixtures: readonly RuleFixture[]): string[] {
  return mutantsOf(rule)
    .filter(({rule: mutant}) => fixtures.every(({expected, subjects}) => telling(evaluateRules([mutant], subjects).findings).status === expected))
    .map(({name}) => name)
}

const rules = await loadRuleCatalog([])

describe('rule mutants', () => {
  for (const rule of rules) {
    it(`${rule.id}: every mutant of its conditions changes a fixture's status`, () => {
      const survivors = survivorsOf(rule, ruleFixtures(rule))
      assert.deepEqual(
        survivors.filter((name) => !allowed(name)),
        [],
        'these mutants pass every fixture: add a fixture at the boundary they move, or list them in SURVIVORS with why',
      )
      for (const [key] of SURVIVORS) {
        if (key.startsWith(`${rule.id} `)) assert.ok(survivors.some((name) => allowed(name) === key), `SURVIVORS lists ${key}, which no surviving mutant matches now: drop it`)
      }
    })
  }

  it('lists no mutant of a rule that does not exist', () => {
    const ids = new Set(rules.map((rule) => rule.id))
    for (const [key] of SURVIVORS) assert.ok(ids.has(key.split(' ', 1)[0]), `SURVIVORS: ${key}`)
  })

  it('flips operators and moves version literals, and a boundary fixture is what kills them', (t) => {
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
    t.diagnostic(`${rules.reduce((sum, rule) => sum + mutantsOf(rule).length, 0)} mutants of ${rules.length} rules`)
  })
})
