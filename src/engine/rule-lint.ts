import type {ParseResult} from '@marcbachmann/cel-js'
import {basename, extname} from 'node:path'

import {UNKNOWN_REASONS} from '../contract/finding.js'
import {factSpecs} from '../facts/catalog.js'
import {type FileProblem, fileSchemaValidator, formatProblem, parseYamlFile} from '../util/yaml-file.js'
import {estimateCost, formatCost, lintVariables, RULE_COST_BUDGET, UncostedCall} from './cel-cost.js'
import {celData, celEnvironment} from './cel.js'
import {RULE_FILE_SCHEMA, type RuleDefinition} from './rule-schema.js'
import {templateExpressions} from './templates.js'


export interface LoadedRule extends RuleDefinition {
  /** Where the rule came from: `builtin` or the file path. */
  source: string
}

export class RuleLoadError extends Error {
  constructor(readonly problems: FileProblem[]) {
    super(problems.map((problem) => formatProblem(problem)).join('\n'))
  }
}

const validateRuleFile = fileSchemaValidator(RULE_FILE_SCHEMA)

/**
 * Parses, validates, type-checks and prices the text of one rule file (its name must match the id);
 * returns the rule with its estimated CEL cost (cel-cost.ts), or the problems found.
 */
export function lintRule(text: string, file: string, displayName = file): {cost?: number; problems: FileProblem[]; rule?: RuleDefinition} {
  const parsed = parseYamlFile<RuleDefinition>(text, displayName, validateRuleFile(), 'rule')
  if (!parsed.file) return {problems: parsed.problems}
  const {value: rule, problemAt} = parsed.file
  const problems: FileProblem[] = []
  const report = (path: Array<number | string>, message: string) => problems.push(problemAt(path, message))

  const expectedName = rule.id.split('/', 2)[1]
  if (basename(file, extname(file)) !== expectedName) {
    report(['id'], `rule id "${rule.id}" must live in a file named ${expectedName}${extname(file)}`)
  }

  if (!rule.id.startsWith(`${rule.scope}/`)) report(['id'], `rule id "${rule.id}" must start with its scope "${rule.scope}/"`)
  if (rule.subject !== undefined && rule.scope !== 'cluster') report(['subject'], 'only cluster rules have a subject; node and verify rules are about nodes')
  if (rule.scope === 'verify' && rule.verifies === undefined) report(['scope'], 'a verify rule says what it verifies: verifies: [switch], [rollback] or both')
  if (rule.scope !== 'verify' && rule.verifies !== undefined) report(['verifies'], 'only verify rules have verifies')

  const knownFacts = new Set(factSpecs(rule.scope).map((spec) => spec.path))
  for (const key of ['needs', 'uses'] as const) {
    for (const [index, fact] of (rule[key] ?? []).entries()) {
      if (!knownFacts.has(fact)) report([key, index], `unknown fact "${fact}"; see \`kpx-check rules facts\``)
    }
  }

  for (const reason of Object.keys(rule.unknown.byReason ?? {})) {
    if (!(UNKNOWN_REASONS as readonly string[]).includes(reason)) {
      report(['unknown', 'byReason', reason], `unknown reason "${reason}"; one of ${UNKNOWN_REASONS.join(', ')}`)
    }
  }

  const statuses = new Set(rule.outcomes.map((outcome) => outcome.status))
  for (const status of ['pass', 'fail'] as const) {
    if (!statuses.has(status)) report(['outcomes'], `a rule needs at least one "${status}" outcome`)
  }

  // Rules are pure functions of the facts they declare: the engine relies on it to evaluate a rule
  // once for all subjects whose declared facts are equal (thousands of alike nodes).
  const declared = new Set([...rule.needs, ...(rule.uses ?? [])])
  const factPattern = new RegExp(String.raw`\b(?:${[...new Set(factSpecs(rule.scope).map((spec) => spec.path.split('.', 1)[0]))].join('|')})\.[A-Za-z]+\b`, 'g')
  const checkDeclared = (path: Array<number | string>, text: string) => {
    const undeclared = [...new Set(text.replaceAll(/"[^"]*"|'[^']*'/g, '""').match(factPattern))].filter((fact) => knownFacts.has(fact) && !declared.has(fact))
    if (undeclared.length > 0) report(path, `reads ${undeclared.join(', ')}, which the rule does not list in needs or uses`)
  }

  const env = celEnvironment(rule.scope)
  const variables = lintVariables(rule.scope, celData(rule.data ?? {}))
  const costs: Array<{cost: number; path: Array<number | string>}> = []
  /** Parses, type-checks and prices one expression; its type, or undefined after reporting why not. */
  const compile = (path: Array<number | string>, expression: string, label: string): string | undefined => {
    checkDeclared(path, expression)
    let parsed: ParseResult
    try {
      parsed = env.parse(expression)
    } catch (error) {
      report(path, `${label}: ${firstLine((error as Error).message)}${(error as {code?: string}).code === 'limit_exceeded' ? '; rule expressions are kept small: split it, or move constants into data' : ''}`)
      return undefined
    }

    const result = parsed.check()
    if (!result.valid) {
      report(path, `${label}: ${firstLine(result.error?.message)}`)
      return undefined
    }

    try {
      costs.push({path, cost: estimateCost(parsed.ast, variables)})
    } catch (error) {
      if (!(error instanceof UncostedCall)) throw error
      report(path, `${label}: ${error.message}`)
    }

    return result.type
  }

  const checkCondition = (path: Array<number | string>, expression: string) => {
    const type = compile(path, expression, 'CEL')
    if (type !== undefined && type !== 'bool') report(path, `CEL: a condition must be a bool, this is ${type}`)
  }

  const checkTemplate = (path: Array<number | string>, template: string) => {
    for (const expression of templateExpressions(template)) compile(path, expression, `CEL in {{ ${expression} }}`)
  }

  for (const [index, skip] of (rule.skip ?? []).entries()) {
    checkCondition(['skip', index, 'when'], skip.when)
    checkTemplate(['skip', index, 'message'], skip.message)
  }

  for (const [index, outcome] of rule.outcomes.entries()) {
    if (outcome.when !== undefined) checkCondition(['outcomes', index, 'when'], outcome.when)
    checkTemplate(['outcomes', index, 'message'], outcome.message)
  }

  checkTemplate(['unknown', 'message'], rule.unknown.message)
  for (const [reason, message] of Object.entries(rule.unknown.byReason ?? {})) {
    checkTemplate(['unknown', 'byReason', reason], message)
  }

  for (const [index, line] of rule.remediation.entries()) {
    if (typeof line === 'string') {
      checkTemplate(['remediation', index], line)
    } else {
      checkCondition(['remediation', index, 'when'], line.when)
      checkTemplate(['remediation', index, 'text'], line.text)
    }
  }

  const total = costs.reduce((sum, {cost}) => sum + cost, 0)
  if (total > RULE_COST_BUDGET) {
    const [costliest] = costs.toSorted((a, b) => b.cost - a.cost)
    report(
      costliest.path,
      `rule ${rule.id}: its CEL is estimated to cost ${formatCost(total)}${costliest.cost === total ? '' : ` (this expression ${formatCost(costliest.cost)})`}, over the budget of ${formatCost(RULE_COST_BUDGET)}. ` +
        'A comprehension (exists, all, exists_one, map, filter) costs what it holds once for every item of its list, so nested ones multiply: nest fewer of them, or iterate over shorter lists',
    )
  }

  return problems.length > 0 ? {problems} : {cost: total, problems, rule}
}

function firstLine(text = 'invalid expression'): string {
  return text.split('\n', 1)[0]
}
