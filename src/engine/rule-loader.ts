import {Ajv, type ErrorObject} from 'ajv'
import {readFileSync} from 'node:fs'
import {basename, extname, join, relative} from 'node:path'
import {isMap, isSeq, LineCounter, parseDocument, type Document, type Node} from 'yaml'

import {factSpecs} from '../facts/catalog.js'
import {UNKNOWN_REASONS} from '../facts/fact-set.js'
import {celEnvironment} from './cel.js'
import {ruleFiles} from './rule-files.js'
import {RULE_FILE_SCHEMA, type RuleDefinition} from './rule-schema.js'
import {templateExpressions} from './templates.js'

/** A mistake in a rule file, located for an editor: `file:line:column message`. */
export interface RuleProblem {
  file: string
  line: number
  column: number
  message: string
}

export interface LoadedRule extends RuleDefinition {
  /** Where the rule came from: `builtin` or the file path. */
  source: string
}

export class RuleLoadError extends Error {
  constructor(readonly problems: RuleProblem[]) {
    super(problems.map((problem) => formatProblem(problem)).join('\n'))
  }
}

export function formatProblem(problem: RuleProblem): string {
  return `${problem.file}:${problem.line}:${problem.column} ${problem.message}`
}

// verbose: errors carry their parent schema, so a misspelt field can be matched to the one meant.
const ajv = new Ajv({allErrors: true, strict: false, verbose: true})
const validateRuleFile = ajv.compile(RULE_FILE_SCHEMA)

/** Parses, validates and type-checks one rule file; returns the rule or the problems found. */
export function lintRuleFile(file: string, displayName = file): {problems: RuleProblem[]; rule?: RuleDefinition} {
  const text = readFileSync(file, 'utf8')
  const lineCounter = new LineCounter()
  const document = parseDocument(text, {lineCounter, prettyErrors: false, uniqueKeys: true})
  const at = (offset: number, message: string): RuleProblem => {
    const {line, col} = lineCounter.linePos(offset)
    return {file: displayName, line, column: col, message}
  }

  if (document.errors.length > 0) {
    return {problems: document.errors.map((error) => at(error.pos[0], `YAML: ${error.message.split('\n')[0]}`))}
  }

  const rule = document.toJS() as RuleDefinition
  if (!validateRuleFile(rule)) {
    return {problems: (validateRuleFile.errors ?? []).map((error) => schemaProblem(error, document, at))}
  }

  const problems: RuleProblem[] = []
  const report = (path: Array<number | string>, message: string) =>
    problems.push(at(offsetOf(document, path), message))

  const expectedName = rule.id.split('/')[1]
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
  const factPattern = new RegExp(`\\b(?:${[...new Set(factSpecs(rule.scope).map((spec) => spec.path.split('.')[0]))].join('|')})\\.[A-Za-z]+\\b`, 'g')
  const checkDeclared = (path: Array<number | string>, text: string) => {
    const undeclared = [...new Set(text.replaceAll(/"[^"]*"|'[^']*'/g, '""').match(factPattern) ?? [])].filter((fact) => knownFacts.has(fact) && !declared.has(fact))
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

/** Loads every rule under the given paths; any problem in any file fails the whole load. */
export function loadRules(paths: Array<{label?: string; path: string}>): LoadedRule[] {
  const problems: RuleProblem[] = []
  const rules: LoadedRule[] = []
  const seen = new Map<string, string>()
  for (const {label, path} of paths) {
    for (const file of ruleFiles(path)) {
      const displayName = label ? join(label, relative(path, file)) : file
      const result = lintRuleFile(file, displayName)
      problems.push(...result.problems)
      if (!result.rule) continue
      const earlier = seen.get(result.rule.id)
      if (earlier) {
        problems.push({file: displayName, line: 1, column: 1, message: `rule id "${result.rule.id}" is already defined in ${earlier}`})
        continue
      }

      seen.set(result.rule.id, displayName)
      rules.push({...result.rule, source: label ?? file})
    }
  }

  if (problems.length > 0) throw new RuleLoadError(problems)
  return rules
}

function schemaProblem(
  error: ErrorObject,
  document: Document,
  at: (offset: number, message: string) => RuleProblem,
): RuleProblem {
  const path = error.instancePath.split('/').slice(1).map((part) => (/^\d+$/.test(part) ? Number(part) : part))
  const where = error.instancePath === '' ? 'rule' : error.instancePath.slice(1).replaceAll('/', '.')
  let message = `${where} ${error.message}`
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as {additionalProperty: string}).additionalProperty
    message = `${where}: unknown field "${extra}"${suggest(extra, error.parentSchema)}`
    path.push(extra)
  } else if (error.keyword === 'enum') {
    message = `${where} must be one of ${(error.params as {allowedValues: string[]}).allowedValues.join(', ')}`
  }

  return at(offsetOf(document, path), message)
}

/** "did you mean" for a misspelt field, by edit distance against the allowed names. */
function suggest(name: string, schema: unknown): string {
  const allowed = Object.keys((schema as {properties?: object})?.properties ?? {})
  const close = allowed.find((candidate) => editDistance(candidate, name) <= 2)
  return close ? `; did you mean "${close}"?` : ''
}

function editDistance(a: string, b: string): number {
  const row = Array.from({length: b.length + 1}, (_unused, index) => index)
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1))
      previous = current
    }
  }

  return row[b.length]
}

/** Source offset of the deepest YAML node that exists along `path`. */
function offsetOf(document: Document, path: Array<number | string>): number {
  let node: Node | null | undefined = document.contents
  let offset = node?.range?.[0] ?? 0
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => (item.key as {value?: unknown})?.value === key)
      if (!pair) break
      offset = (pair.key as Node)?.range?.[0] ?? offset
      node = pair.value as Node
    } else if (isSeq(node) && typeof key === 'number') {
      node = node.items[key] as Node
      if (!node) break
      offset = node.range?.[0] ?? offset
    } else {
      break
    }
  }

  return offset
}

function firstLine(text = 'invalid expression'): string {
  return text.split('\n')[0]
}
