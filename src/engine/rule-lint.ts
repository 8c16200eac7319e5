import {basename, extname} from 'node:path'

import {UNKNOWN_REASONS} from '../contract/finding.js'
import {factSpecs} from '../facts/catalog.js'
import {compileFileSchema, type FileProblem, formatProblem, parseYamlFile} from '../util/yaml-file.js'
import {celEnvironment} from './cel.js'
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

const validateRuleFile = compileFileSchema(RULE_FILE_SCHEMA)

/** Parses, validates and type-checks the text of one rule file (its name must match the id); returns the rule or the problems found. */
export function lintRule(text: string, file: string, displayName = file): {problems: FileProblem[]; rule?: RuleDefinition} {
  const parsed = parseYamlFile<RuleDefinition>(text, displayName, validateRuleFile, 'rule')
  if (!parsed.file) return {problems: parsed.problems}
  const {value: rule, problemAt} = parsed.file
  const problems: FileProblem[] = []
  const report = (path: Array<number | string>, message: string) => problems.push(problemAt(path, message))

  const expectedName = rule.id.split('/', 2)[1]
  if (basename(file, extname(file)) !== expectedName) {
    report(['id'], `rule id "${rule.id}" must live in a file named ${expectedName}${extname(file)}`)
  }

  if (!rule.id.startsWith(`${rule.scope}/`)) report(['id'], `rule id "${rule.id}" must start with its scope "${rule.scope}/"`)
  if (rule.subject !== undefined && rule.scope !== 'cluster') report(['subject'], 'only cluster rules have a subject; node rules are about nodes')

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
  const checkCondition = (path: Array<number | string>, expression: string) => {
    checkDeclared(path, expression)
    const result = env.check(expression)
    if (!result.valid) report(path, `CEL: ${firstLine(result.error?.message)}`)
    else if (result.type !== 'bool') report(path, `CEL: a condition must be a bool, this is ${result.type}`)
  }

  const checkTemplate = (path: Array<number | string>, template: string) => {
    for (const expression of templateExpressions(template)) {
      checkDeclared(path, expression)
      const result = env.check(expression)
      if (!result.valid) report(path, `CEL in {{ ${expression} }}: ${firstLine(result.error?.message)}`)
    }
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

  for (const [index, step] of rule.remediation.entries()) checkTemplate(['remediation', index], step)

  return problems.length > 0 ? {problems} : {problems, rule}
}

function firstLine(text = 'invalid expression'): string {
  return text.split('\n', 1)[0]
}
