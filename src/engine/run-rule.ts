/**
 * One rule on one subject: whether it applies, what its needs and outcomes decide, its messages and
 * evidence, within its CEL cost budget. Everything else the engine does (evaluating subjects alike
 * once, keeping each subject's own findings) is built on evaluateRule.
 */
import type {ASTNode, ParseResult} from '@marcbachmann/cel-js'
import semver from 'semver'

import type {EngineUnknownReason, FactValue, Finding, Severity, Status, UnknownReason} from '../contract/finding.js'
import {factSpecs} from '../facts/catalog.js'
import type {FactSet, UnknownFact} from '../facts/fact-set.js'
import type {Subject} from '../facts/subject.js'
import {activationVariables, estimateCost, formatCost, RULE_COST_BUDGET} from './cel-cost.js'
import {celActivation, celData, celEnvironment, formatCelValue} from './cel.js'
import type {LoadedRule} from './rule-lint.js'
import {renderTemplate, templateExpressions} from './templates.js'

/** What a run asks of every rule besides its subject. */
export interface RuleRunOptions {
  /** Per-rule severities set by the user; they win over the rule's own. */
  severity?: ReadonlyMap<string, Severity>
  /** The Kubernetes version the findings are for, when known; rules outside their range are skipped. */
  kubernetesVersion?: string
}

export type Activation = Record<string, unknown>

/** A CEL expression failed because a fact it reads has no value: the rule cannot decide. */
class MissingFact extends Error {}

/** An expression was not evaluated: with what came before, it would take the rule over its cost budget. */
class CostLimitExceeded extends Error {}

/**
 * What a rule spends on one subject. Every expression is priced on its activation before it runs
 * (cel-cost.ts: with the facts' real sizes, which can pass the catalogue's that lint priced); one that
 * would take the total over RULE_COST_BUDGET is not run, and costs nothing.
 */
class CostMeter {
  private spent = 0

  charge(ast: ASTNode, activation: Activation): void {
    const total = this.spent + estimateCost(ast, activationVariables(activation))
    if (total > RULE_COST_BUDGET) {
      throw new CostLimitExceeded(`on these facts its CEL is estimated to cost ${formatCost(total)}, over the budget of ${formatCost(RULE_COST_BUDGET)}`)
    }

    this.spent = total
  }
}

const parsedExpressions = new Map<string, ParseResult>()

function parsed(rule: LoadedRule, expression: string): ParseResult {
  const key = `${rule.scope}\u0000${expression}`
  let run = parsedExpressions.get(key)
  if (!run) {
    run = celEnvironment(rule.scope).parse(expression)
    parsedExpressions.set(key, run)
  }

  return run
}

function evaluateExpression(rule: LoadedRule, expression: string, activation: Activation, meter: CostMeter): unknown {
  const run = parsed(rule, expression)
  meter.charge(run.ast, activation)
  try {
    return run(activation)
  } catch (error) {
    const message = (error as Error).message.split('\n', 1)[0]
    if (/No such key|Unknown variable/.test(message)) throw new MissingFact(message)
    throw error
  }
}

/** Unknown messages that read only `missing.*` are the same for every subject missing the same fact: render them once. */
const unknownMessages = new Map<string, string>()

function renderUnknown(rule: LoadedRule, template: string, activation: Activation, missing: {detail: string; fact: string; reason: string}, meter: CostMeter): string {
  if (!templateExpressions(template).every((expression) => /^missing\.[a-z]+$/.test(expression))) return render(rule, template, {...activation, missing}, meter)
  const key = `${template}\u0000${missing.fact}\u0000${missing.reason}\u0000${missing.detail}`
  let message = unknownMessages.get(key)
  if (message === undefined) {
    message = render(rule, template, {missing}, meter)
    unknownMessages.set(key, message)
  }

  return message
}

/** A placeholder whose expression fails, or would go over the rule's cost budget, shows as such: the finding's status does not hang on its message. */
function render(rule: LoadedRule, template: string, activation: Activation, meter: CostMeter): string {
  return renderTemplate(template, (expression) => {
    try {
      return formatCelValue(evaluateExpression(rule, expression, activation, meter))
    } catch (error) {
      return error instanceof CostLimitExceeded ? '(over the CEL cost budget)' : '(unknown)'
    }
  })
}

/**
 * The remediation lines for this subject: the plain ones, and the conditional ones whose condition holds or cannot
 * be decided (a fact it reads is missing, or it would go over the cost budget): advice is never dropped on a guess.
 */
function remediationFor(rule: LoadedRule, activation: Activation, meter: CostMeter): string[] {
  return rule.remediation.flatMap((line) => {
    if (typeof line === 'string') return [render(rule, line, activation, meter)]
    return rejects(rule, line.when, activation, meter) ? [] : [render(rule, line.text, activation, meter)]
  })
}

/** The condition is false on these facts; one that cannot be evaluated is not. */
function rejects(rule: LoadedRule, condition: string, activation: Activation, meter: CostMeter): boolean {
  try {
    return evaluateExpression(rule, condition, activation, meter) === false
  } catch {
    return false
  }
}

/** The activation a rule reads on a subject: its facts as CEL values, and the rule's own data. */
function activationFor(rule: LoadedRule, subject: Subject): Activation {
  return {...celActivation(subject.facts, rule.scope), data: celData(rule.data ?? {})}
}

/** The kind of subject a rule is evaluated for. */
export function subjectKindOf(rule: LoadedRule): string {
  return rule.scope === 'cluster' ? (rule.subject ?? 'Cluster') : 'Node'
}

/** A rule's finding on one subject, evaluated alone: what batching must give each subject too. */
export function evaluateRule(rule: LoadedRule, subject: Subject, options: RuleRunOptions, activation = activationFor(rule, subject)): Finding {
  const run = ruleRun(rule, subject, activation, options)
  return run.skipStage() ?? run.decide()
}

const skipReadsOfRules = new WeakMap<LoadedRule, null | readonly string[]>()

/**
 * The facts a rule's skip stage reads (its skip conditions and their messages; its Kubernetes versions
 * are the run's), or undefined when it has no skip stage or reads a fact in a way that names no declared one.
 */
export function skipStageReads(rule: LoadedRule): readonly string[] | undefined {
  let reads = skipReadsOfRules.get(rule)
  if (reads === undefined) {
    const expressions = (rule.skip ?? []).flatMap((skip) => [skip.when, ...templateExpressions(skip.message)])
    const hasSkipStage = expressions.length > 0 || rule.versions?.kubernetes !== undefined
    reads = (hasSkipStage && factsRead(expressions.map((expression) => parsed(rule, expression).ast), rule)) || null
    skipReadsOfRules.set(rule, reads)
  }

  return reads ?? undefined
}

/** The declared facts the expressions read (`cluster.proxyMode`), or undefined if one reads a fact root otherwise (whole, or by index). */
function factsRead(expressions: readonly ASTNode[], rule: LoadedRule): string[] | undefined {
  const roots = new Set(factSpecs(rule.scope).map((spec) => spec.path.split('.', 1)[0]))
  const declared = [...rule.needs, ...(rule.uses ?? [])]
  const read = new Set<string>()
  let named = true
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const child of value) visit(child)
      return
    }

    if (typeof value !== 'object' || value === null || !('op' in value)) return
    const node = value as ASTNode
    const chain = selectChain(node)
    if (chain && roots.has(chain.split('.', 1)[0])) {
      const fact = declared.find((path) => chain === path || chain.startsWith(`${path}.`))
      if (fact) read.add(fact)
      else named = false
    } else if (node.op === 'id') {
      if (roots.has(node.args)) named = false
    } else {
      visit(node.args)
    }
  }

  visit(expressions)
  return named ? [...read] : undefined
}

/** `a.b.c` for a field selection from a variable, else undefined. */
function selectChain(node: ASTNode): string | undefined {
  const fields: string[] = []
  let current = node
  while (current.op === '.' || current.op === '.?') {
    const [object, field] = current.args as [ASTNode, string]
    fields.unshift(field)
    current = object
  }

  return current.op === 'id' && fields.length > 0 ? [current.args as string, ...fields].join('.') : undefined
}

/** A rule whose subjects could not be listed: one unknown finding about the cluster, with the rule's own words for the reason. */
export function unknownForUnlisted(rule: LoadedRule, kind: string, why: UnknownFact, options: RuleRunOptions): Finding {
  // The rule's per-reason words speak of its facts on a subject (root on a node); here no subject is known.
  const missing = {fact: `${kind.toLowerCase()} list`, reason: why.reason, detail: why.detail}
  return {
    rule: rule.id,
    title: rule.title,
    status: 'unknown',
    severity: options.severity?.get(rule.id) ?? rule.severity,
    confidence: rule.confidence ?? 'verified',
    subject: {kind: 'Cluster', name: 'cluster'},
    message: `No ${kind} could be listed: ${renderUnknown(rule, rule.unknown.message, {}, missing, new CostMeter())}`,
    evidence: {},
    remediation: [],
    reason: why.reason,
    references: rule.references,
  }
}

/**
 * One rule on one subject, in its two stages: whether it applies (its Kubernetes versions, its skip
 * conditions), which may end it, then what its needs and outcomes decide.
 */
export function ruleRun(rule: LoadedRule, subject: Subject, activation: Activation, options: RuleRunOptions): {decide(): Finding; skipStage(): Finding | undefined} {
  const meter = new CostMeter()
  const base = {
    rule: rule.id,
    title: rule.title,
    confidence: rule.confidence ?? 'verified',
    subject: subject.namespace === undefined ? {kind: subject.kind, name: subject.name} : {kind: subject.kind, namespace: subject.namespace, name: subject.name},
    evidence: evidenceOf([...rule.needs, ...(rule.uses ?? [])], subject.facts),
    references: rule.references,
  }
  const severityOf = (outcomeSeverity?: Severity) => options.severity?.get(rule.id) ?? outcomeSeverity ?? rule.severity
  const finish = (status: Status, message: string, extra: {evidence?: Finding['evidence']; reason?: 'not-applicable' | EngineUnknownReason | UnknownReason; severity?: Severity} = {}): Finding => ({
    ...base,
    ...(extra.evidence ? {evidence: extra.evidence} : {}),
    status,
    severity: severityOf(extra.severity),
    message,
    remediation: status === 'fail' ? remediationFor(rule, activation, meter) : [],
    ...(extra.reason === undefined ? {} : {reason: extra.reason}),
  })

  return {skipStage, decide}

  /** A skip's proof is what its stage read (all the rule's facts when that cannot be told): subjects alike in those facts skip alike. */
  function skipped(message: string): Finding {
    const reads = skipStageReads(rule)
    return finish('skip', message, {reason: 'not-applicable', ...(reads ? {evidence: evidenceOf(reads, subject.facts)} : {})})
  }

  function skipStage(): Finding | undefined {
    const range = rule.versions?.kubernetes
    const version = options.kubernetesVersion && semver.coerce(options.kubernetesVersion)
    if (range && version && !semver.satisfies(version, range)) {
      return skipped(`Applies to Kubernetes ${range}; this is ${version.major}.${version.minor}.`)
    }

    for (const skip of rule.skip ?? []) {
      try {
        if (evaluateExpression(rule, skip.when, activation, meter) === true) {
          return skipped(render(rule, skip.message, activation, meter))
        }
      } catch (error) {
        // A skip condition over an unknown fact cannot show the rule is inapplicable: carry on.
        if (!(error instanceof MissingFact)) return ruleError(error)
      }
    }

    return undefined
  }

  function decide(): Finding {
    for (const fact of rule.needs) {
      const missing = subject.facts.whyUnknown(fact)
      if (missing) return unknownFrom({fact, ...missing})
    }

    for (const outcome of rule.outcomes) {
      try {
        if (outcome.when === undefined || evaluateExpression(rule, outcome.when, activation, meter) === true) {
          if (outcome.status === 'unknown') {
            const missing = firstMissingUse(rule, subject.facts) ?? {fact: '', reason: 'not-collected', detail: ''}
            return finish('unknown', render(rule, outcome.message, {...activation, missing}, meter), {reason: outcome.reason ?? missing.reason, severity: outcome.severity})
          }

          return finish(outcome.status, render(rule, outcome.message, activation, meter), {
            severity: outcome.severity,
            ...(outcome.status === 'skip' ? {reason: 'not-applicable'} : {}),
          })
        }
      } catch (error) {
        if (error instanceof MissingFact) return unknownFrom(firstMissingUse(rule, subject.facts) ?? {fact: '', reason: 'not-collected', detail: error.message})

        return ruleError(error)
      }
    }

    return finish('unknown', `No outcome of ${rule.id} matched these facts; the rule is incomplete.`, {reason: 'rule-error'})
  }

  function unknownFrom(missing: {detail: string; fact: string; reason: UnknownReason}): Finding {
    const template = rule.unknown.byReason?.[missing.reason] ?? rule.unknown.message
    return finish('unknown', renderUnknown(rule, template, activation, missing, meter), {reason: missing.reason})
  }

  function ruleError(error: unknown): Finding {
    if (error instanceof CostLimitExceeded) return finish('unknown', `${rule.id} was not evaluated: ${error.message}.`, {reason: 'cost-limit'})
    return finish('unknown', `Rule ${rule.id} could not be evaluated: ${(error as Error).message.split('\n', 1)[0]}`, {reason: 'rule-error'})
  }
}

/** The first optional fact the rule reads that has no value: why an outcome could not be decided. */
function firstMissingUse(rule: LoadedRule, facts: FactSet): undefined | {detail: string; fact: string; reason: UnknownReason} {
  for (const fact of rule.uses ?? []) {
    const missing = facts.whyUnknown(fact)
    if (missing) return {fact, ...missing}
  }

  return undefined
}

function evidenceOf(paths: readonly string[], facts: FactSet): Record<string, FactValue> {
  const evidence: Record<string, FactValue> = {}
  for (const path of paths) {
    const value = facts.get(path)
    if (value !== undefined) evidence[path] = value
  }

  return evidence
}
