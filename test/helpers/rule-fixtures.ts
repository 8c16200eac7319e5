/**
 * The built-in rules' fixtures (test/fixtures/rules/<rule-name>/<status>.<case>.<ext>), and the CEL conditions
 * that pick a rule's outcome, as the fixture, boundary and mutant tests read them.
 */
import type {ASTNode} from '@marcbachmann/cel-js'
import assert from 'node:assert/strict'
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {basename, join} from 'node:path'

import type {Finding, Status} from '../../src/contract/finding.js'
import type {Report} from '../../src/contract/report.js'
import {type ClusterModel, deriveClusterModel} from '../../src/derive/cluster-facts.js'
import {type BaselineNode, setBaselineFacts} from '../../src/derive/node-baseline.js'
import {bundleCollectedAt, deriveNodeFacts} from '../../src/derive/node/node-facts.js'
import {kubeProxyMetricsRead, type MetricsRead, setSyncWatchFacts} from '../../src/derive/node/sync-watch.js'
import {clusterSubjects} from '../../src/derive/subjects.js'
import {celEnvironment} from '../../src/engine/cel.js'
import type {LoadedRule} from '../../src/engine/rule-lint.js'
import {type Bundle, parseBundle} from '../../src/facts/bundle.js'
import {flagsNeeded} from '../../src/facts/catalog.js'
import type {Subject} from '../../src/facts/subject.js'
import {nodeChecksOf, nodeRecordsOf} from '../../src/services/gate-files.js'
import {SWITCHED_NODE_SKIP} from '../../src/services/rule-catalog.js'
import type {ClusterSnapshot} from '../../src/sources/cluster/snapshot.js'
import {FIXTURES} from './paths.js'

export const RULE_FIXTURES = join(FIXTURES, 'rules')

export interface RuleFixture {
  /** The file name: its first dot-separated part is the status it expects. */
  file: string
  expected: Status
  subjects: Subject[]
  /** What the engine is told as a cluster run tells it: the subject kinds the snapshot could not list. */
  options: {unreadableKinds?: ClusterModel['unreadableKinds']}
}

export function ruleName(rule: LoadedRule): string {
  return rule.id.split('/', 2)[1]
}

/** A node or verify rule's fixture is a facts bundle (.facts); a cluster rule's is a cluster snapshot (.json). */
export function fixtureExtension(rule: LoadedRule): string {
  return rule.scope === 'cluster' ? '.json' : '.facts'
}

function fixtureFiles(rule: LoadedRule): string[] {
  const dir = join(RULE_FIXTURES, ruleName(rule))
  return existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith(fixtureExtension(rule))).toSorted() : []
}

export function ruleFixtures(rule: LoadedRule): RuleFixture[] {
  return fixtureFiles(rule).map((file) => ({file, expected: file.split('.', 1)[0] as Status, ...subjectsOf(rule, join(RULE_FIXTURES, ruleName(rule), file))}))
}

function subjectsOf(rule: LoadedRule, file: string): Pick<RuleFixture, 'options' | 'subjects'> {
  const text = readFileSync(file, 'utf8')
  if (rule.scope !== 'cluster') {
    const bundle = parseBundle(text)
    const facts = deriveNodeFacts(bundle, {fallbackName: basename(file)})
    const flags = flagsNeeded(rule)
    if (flags.has('baseline')) setBaselineFacts(facts, baselineRecord(file))
    if (flags.has('watch')) setSyncWatchFacts(facts, metricsRead(parseBundle(readFileSync(file.replace(/\.facts$/, FIRST_READ_SIDECAR), 'utf8'))), metricsRead(bundle))
    return {subjects: [{kind: 'Node', name: basename(file), facts}], options: {}}
  }

  const model = deriveClusterModel(JSON.parse(text) as ClusterSnapshot)
  return {subjects: clusterSubjects(model), options: {unreadableKinds: model.unreadableKinds}}
}

/**
 * A comparison with a pre-switch report (verify --baseline) reads that report too: the fixture's sidecar,
 * <status>.<case>.baseline.json, a `kpx-check node --json` report of one node, compared with the bundle whatever its name.
 */
export const BASELINE_SIDECAR = '.baseline.json'

function baselineRecord(file: string): BaselineNode | undefined {
  const report = JSON.parse(readFileSync(file.replace(/\.facts$/, BASELINE_SIDECAR), 'utf8')) as Partial<Report>
  const records = nodeRecordsOf(nodeChecksOf(report.nodes), report.findings ?? [])
  assert.ok(records.size <= 1, `${file}: its baseline has one node`)
  return records.values().next().value
}

/**
 * A comparison of two reads (verify --watch) reads the first too: the fixture's sidecar, <status>.<case>.first-read, a bundle
 * whose kube-proxy-metrics section is the first read and whose collector time is when; the fixture itself is the second read.
 */
export const FIRST_READ_SIDECAR = '.first-read'

function metricsRead(bundle: Bundle): MetricsRead {
  const readAt = bundleCollectedAt(bundle)
  assert.ok(readAt, 'a read bundle says when it was collected')
  return kubeProxyMetricsRead(bundle, readAt)
}

const STATUS_WEIGHT: Record<Status, number> = {fail: 0, unknown: 1, pass: 2, skip: 3}

/** A cluster rule has a finding per subject: its most telling one (fail, then unknown, pass, skip) counts. */
export function telling(findings: Finding[]): Finding {
  assert.ok(findings.length > 0, 'the rule produced no finding')
  return findings.toSorted((a, b) => STATUS_WEIGHT[a.status] - STATUS_WEIGHT[b.status])[0]
}

/** A condition that picks an outcome (a skip's or an outcome's `when`) or a remediation line; templates only shape the text. */
interface RuleCondition {
  /** Where it is in the rule file: `outcomes[2].when`. */
  path: string
  expression: string
  ast: ASTNode
  /** The rule with this condition replaced by another expression. */
  with(expression: string): LoadedRule
}

export function ruleConditions(rule: LoadedRule): RuleCondition[] {
  const env = celEnvironment(rule.scope)
  const conditions: RuleCondition[] = []
  for (const [index, skip] of (rule.skip ?? []).entries()) {
    // The catalog's own skip of switched nodes is not the rule's to pin down: the rollout tests do.
    if (skip === SWITCHED_NODE_SKIP) continue
    conditions.push({
      path: `skip[${index}].when`,
      expression: skip.when,
      ast: env.parse(skip.when).ast,
      with: (expression) => ({...rule, skip: rule.skip!.map((item, at) => (at === index ? {...item, when: expression} : item))}),
    })
  }

  for (const [index, outcome] of rule.outcomes.entries()) {
    if (outcome.when === undefined) continue
    conditions.push({
      path: `outcomes[${index}].when`,
      expression: outcome.when,
      ast: env.parse(outcome.when).ast,
      with: (expression) => ({...rule, outcomes: rule.outcomes.map((item, at) => (at === index ? {...item, when: expression} : item))}),
    })
  }

  for (const [index, line] of rule.remediation.entries()) {
    if (typeof line === 'string') continue
    conditions.push({
      path: `remediation[${index}].when`,
      expression: line.when,
      ast: env.parse(line.when).ast,
      with: (expression) => ({...rule, remediation: rule.remediation.map((item, at) => (at === index ? {...line, when: expression} : item))}),
    })
  }

  return conditions
}

/** Every node of a cel-js AST, each with its parent (a node's operands sit in `args`, nested in arrays for calls). */
export function astNodes(root: ASTNode): Array<{node: ASTNode; parent?: ASTNode}> {
  const found: Array<{node: ASTNode; parent?: ASTNode}> = []
  const visit = (value: unknown, parent?: ASTNode): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item, parent)
    } else if (isNode(value)) {
      found.push({node: value, parent})
      visit(value.args, value)
    }
  }

  visit(root)
  return found
}

function isNode(value: unknown): value is ASTNode {
  return typeof value === 'object' && value !== null && 'op' in value && 'args' in value
}

const COMPARISON_OPERATORS = ['<', '<=', '>', '>=', '==', '!='] as const
export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number]

export function isComparison(node: ASTNode): node is ASTNode & {args: [ASTNode, ASTNode]} {
  return (COMPARISON_OPERATORS as readonly string[]).includes(node.op)
}

/** A string literal that is a dotted version (`"5.13"`, `"1.0.1"`), as rules compare facts with. */
export function isVersionLiteral(node: ASTNode): node is ASTNode & {args: string} {
  return node.op === 'value' && typeof node.args === 'string' && /^\d+(?:\.\d+)+$/.test(node.args)
}

/** The version with its last component moved by `step` (`"5.13"`, +1 → `"5.14"`); undefined below zero. */
export function bumpVersion(version: string, step: number): string | undefined {
  const parts = version.split('.').map(Number)
  const last = parts.at(-1)! + step
  return last < 0 ? undefined : [...parts.slice(0, -1), last].join('.')
}

/** Which side of a version literal a fixture must sit on for a comparison's boundary to be pinned down. */
export type BoundarySide = 'above' | 'at' | 'below'

/** A rule condition comparing what a fact expression reads with a version literal. */
interface VersionComparison {
  condition: RuleCondition
  /** The CEL that yields the version compared, as the rule wrote it: `kernel.version`. */
  reads: string
  literal: string
  /** Column of the literal in the condition, from 1. */
  column: number
  sides: BoundarySide[]
}

const MIRRORED: Record<ComparisonOperator, ComparisonOperator> = {'<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!='}

/**
 * The sides of V where `version op V` changes its value: `< V` and `>= V` at V and just below it, `<= V` and
 * `> V` at V and just above, `==` and `!=` on all three.
 */
const SIDES: Record<ComparisonOperator, BoundarySide[]> = {
  '<': ['at', 'below'],
  '>=': ['at', 'below'],
  '<=': ['at', 'above'],
  '>': ['at', 'above'],
  '==': ['at', 'below', 'above'],
  '!=': ['at', 'below', 'above'],
}

/**
 * `compareVersions(x, "V") op 0` and `versionAtLeast(x, "V")` in the rule's conditions (either argument the
 * literal). A version taken from `data` is not a literal of the CEL and is not listed.
 */
export function versionComparisons(rule: LoadedRule): VersionComparison[] {
  const comparisons: VersionComparison[] = []
  for (const condition of ruleConditions(rule)) {
    for (const {node, parent} of astNodes(condition.ast)) {
      if (node.op !== 'call' || !['compareVersions', 'versionAtLeast'].includes(node.args[0])) continue
      const [first, second] = node.args[1]
      const literal = [first, second].find((argument) => isVersionLiteral(argument))
      if (!literal) continue
      const fact = literal === first ? second : first
      // The operator as if written `fact op literal`.
      let operator: ComparisonOperator = '>='
      if (node.args[0] === 'compareVersions') {
        const outer = parent && isComparison(parent) ? (parent.op as ComparisonOperator) : '=='
        operator = (parent?.args as unknown[] | undefined)?.[1] === node ? MIRRORED[outer] : outer
      }

      if (literal === first) operator = MIRRORED[operator]
      comparisons.push({
        condition,
        reads: condition.expression.slice(fact.start, fact.end),
        literal: literal.args as string,
        column: literal.start + 1,
        sides: SIDES[operator],
      })
    }
  }

  return comparisons
}
