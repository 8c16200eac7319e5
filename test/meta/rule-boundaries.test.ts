/**
 * Every version literal a rule's conditions compare a fact with has fixtures at its boundary: one whose fact
 * is that version, and one just below it (`< "5.13"`: a 5.12.x kernel) or just above it, as the operator
 * needs. Which version a fixture carries is what the comparison's fact side evaluates to on its facts.
 * The fixtures keep their name-by-expectation (test/engine/rule-fixtures.test.ts checks the status).
 */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {celActivation, celData, celEnvironment} from '../../src/engine/cel.js'
import type {LoadedRule} from '../../src/engine/rule-lint.js'
import {compareVersions} from '../../src/facts/parsers/versions.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import {type BoundarySide, bumpVersion, type RuleFixture, ruleFixtures, versionComparisons} from '../helpers/rule-fixtures.js'

/** The versions `reads` evaluates to on the fixture's subjects, where it evaluates to a version. */
function versionsIn(rule: LoadedRule, reads: string, fixture: RuleFixture): string[] {
  const run = celEnvironment(rule.scope).parse(reads)
  const data = celData(rule.data ?? {})
  const versions = new Set<string>()
  for (const subject of fixture.subjects) {
    try {
      const value = run({...celActivation(subject.facts, rule.scope), data})
      if (typeof value === 'string' && /^v?\d/.test(value)) versions.add(value)
    } catch {
      // A fact the expression reads is missing on this subject: it carries no version.
    }
  }

  return [...versions]
}

/** Whether a version sits on that side of the literal: at it, or between it and the literal moved by one. */
function onSide(version: string, literal: string, side: BoundarySide): boolean {
  const order = compareVersions(version, literal)
  if (side === 'at') return order === 0
  const neighbour = bumpVersion(literal, side === 'below' ? -1 : 1)
  assert.ok(neighbour, `"${literal}" has no version just below it: pick the boundary fixture by hand`)
  return side === 'below' ? order < 0 && compareVersions(version, neighbour) >= 0 : order > 0 && compareVersions(version, neighbour) < 0
}

const rules = await loadRuleCatalog([])

describe('rule version boundaries', () => {
  let count = 0
  for (const rule of rules) {
    const comparisons = versionComparisons(rule)
    if (comparisons.length === 0) continue
    count += comparisons.length
    it(`${rule.id}: a fixture at and beside every version it compares with`, () => {
      const fixtures = ruleFixtures(rule)
      const missing: string[] = []
      for (const {condition, reads, literal, column, sides} of comparisons) {
        const carried = fixtures.map((fixture) => ({file: fixture.file, versions: versionsIn(rule, reads, fixture)}))
        for (const side of sides) {
          if (carried.some(({versions}) => versions.some((version) => onSide(version, literal, side)))) continue
          missing.push(
            `${condition.path}:${column} compares ${reads} with "${literal}": no fixture ${side === 'at' ? 'at' : `just ${side}`} "${literal}" ` +
              `(the fixtures carry ${carried.map(({file, versions}) => `${file}: ${versions.join(', ') || 'none'}`).join('; ')})`,
          )
        }
      }

      assert.deepEqual(missing, [], 'derive the missing fixtures from a real one of the rule, with only the version changed (see test/fixtures/SOURCES.md)')
    })
  }

  it('finds the version comparisons', () => {
    // kernel-version 1, nft-version 2, conntrack-liberal 1, kubernetes-version 6 (2 in its remediation), ipvs-deprecation 3, service-count 1,
    // kube-proxy-mode-implicit 2, service-comment-length 1, antrea-proxy-all 1, calico-kube-proxy-tables 1, endpoints-kernel 1,
    // rollback-cleanup 1 (k3s-nft-json compares with its data table, which this does not count).
    assert.equal(count, 21)
  })
})
