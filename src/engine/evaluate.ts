import type {ASTNode, ParseResult} from '@marcbachmann/cel-js'
import semver from 'semver'

import type {EngineUnknownReason, FactValue, Finding, Severity, Status, UnknownReason} from '../contract/finding.js'
import {subjectPath} from '../contract/subject.js'
import {factSpecs} from '../facts/catalog.js'
import type {FactSet, UnknownFact} from '../facts/fact-set.js'
import type {Subject} from '../facts/subject.js'
import {activationVariables, estimateCost, formatCost, RULE_COST_BUDGET} from './cel-cost.js'
import {celActivation, celData, celEnvironment, formatCelValue} from './cel.js'
import type {LoadedRule} from './rule-lint.js'
import {renderTemplate, templateExpressions} from './templates.js'

export interface EvaluationOptions {
  /** Rule ids the user dropped with --skip. */
  skip?: ReadonlySet<string>
  /** Per-rule severities set by the user; they win over the rule's own. */
  severity?: ReadonlyMap<string, Severity>
  /** The Kubernetes version the findings are for, when known; rules outside their range are skipped. */
  kubernetesVersion?: string
  /** Subject kinds whose passes and skips are summed up in one finding per rule (default: Service). */
  summarise?: ReadonlySet<string>
  /**
   * Unknown reasons summed up too, for the summarised kinds: a node rule that needs a node shell is
   * unknown on every node the API describes, for the same reason; one finding says so for all of them.
   */
  summariseUnknown?: ReadonlySet<UnknownReason>
  /**
   * Subject kinds whose list could not be read (Node, Service, DaemonSet), with why: a rule about them
   * is unknown with that reason, never a pass or a skip over no subjects.
   */
  unreadableKinds?: ReadonlyMap<string, UnknownFact>
  /** Subject kinds whose own finding per rule is kept apart (`bySubject`), however the findings sum them up. */
  perSubject?: ReadonlySet<string>
}

/** What the rules found: the findings, and for the `perSubject` kinds each subject's own finding per rule. */
export interface Evaluation {
  findings: Finding[]
  /** Subject path (`node/worker-1`) → rule id → the finding of the subject's group (its message and evidence are alike). */
  bySubject: Map<string, Map<string, Finding>>
}

type Activation = Record<string, unknown>

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

/** Findings by rule id, in the order they come. */
export function groupByRule(findings: readonly Finding[]): Map<string, Finding[]> {
  const groups = new Map<string, Finding[]>()
  for (const finding of findings) {
    const group = groups.get(finding.rule)
    if (group) group.push(finding)
    else groups.set(finding.rule, [finding])
  }

  return groups
}

/** The kind of subject a rule is evaluated for. */
export function subjectKindOf(rule: LoadedRule): string {
  return rule.scope === 'node' ? 'Node' : (rule.subject ?? 'Cluster')
}

/**
 * Subjects of these kinds can number in the tens of thousands: only their failures and unknowns are
 * reported one by one; passes and skips are summed up in one finding about the cluster.
 */
const SUMMARISED_KINDS: ReadonlySet<string> = new Set(['Service'])

export function evaluateRules(rules: readonly LoadedRule[], subjects: readonly Subject[], options: EvaluationOptions = {}): Evaluation {
  const findings: Finding[] = []
  // One activation per subject and scope, shared by every rule that reads it.
  const activations = new Map<string, WeakMap<FactSet, Activation>>()
  const activationOf = (subject: Subject, scope: LoadedRule['scope']) => {
    const cache = activations.get(scope) ?? new WeakMap<FactSet, Activation>()
    activations.set(scope, cache)
    let activation = cache.get(subject.facts)
    if (!activation) {
      activation = celActivation(subject.facts, scope)
      cache.set(subject.facts, activation)
    }

    return activation
  }

  const inputKeys = new InputKeys()
  const siblingsByKind = new Map<string, Siblings[]>()
  const subjectsByKind = new Map<string, Subject[]>()
  for (const subject of subjects) {
    const same = subjectsByKind.get(subject.kind)
    if (same) same.push(subject)
    else subjectsByKind.set(subject.kind, [subject])
  }

  const foldedUnknowns: Finding[] = []
  const perSubject = new PerSubjectFindings()
  for (const rule of rules) {
    if (options.skip?.has(rule.id)) continue
    const kind = subjectKindOf(rule)
    const data = celData(rule.data ?? {})
    const unreadable = options.unreadableKinds?.get(kind)
    if (unreadable) {
      // The rule may not apply at all (its Kubernetes versions, its skip conditions over the cluster's facts).
      const cluster = subjectsByKind.get('Cluster')?.[0]
      const onCluster = cluster && evaluateRule(rule, cluster, {...activationOf(cluster, rule.scope), data}, options)
      findings.push(onCluster?.status === 'skip' ? onCluster : unknownForEvery(rule, kind, unreadable, options))
      continue
    }

    // A rule reads only the facts it declares (rules lint enforces it), so subjects whose declared
    // facts are equal get the same finding: evaluate once for each group of them.
    const declared = [...rule.needs, ...(rule.uses ?? [])]
    const own = subjectsByKind.get(kind) ?? []
    let siblings = siblingsByKind.get(kind)
    if (!siblings) siblingsByKind.set(kind, (siblings = siblingSets(own)))
    const groups = new Map<string, Group>()
    const summarised = (options.summarise ?? SUMMARISED_KINDS).has(kind)
    // Where only counts and an example are reported, subjects alike in what the skip stage reads share its
    // skip, however else they differ: 30,000 Services skip an IPVS rule on one look at the cluster's mode.
    const skipReads = summarised ? skipStageReads(rule) : undefined
    const skipStages = new Map<string, Finding | null>()
    const activation = (subject: Subject) => ({...activationOf(subject, rule.scope), data})
    for (const members of batchesFor(siblings, declared)) {
      const subject = own[members[0]]
      if (skipReads) {
        const skipKey = inputKeys.of(subject.facts, skipReads)
        let ended = skipStages.get(skipKey)
        if (ended === undefined) skipStages.set(skipKey, (ended = ruleRun(rule, subject, activation(subject), options).skipStage() ?? null))
        if (ended) {
          joinGroup(groups, `\u0002${skipKey}`, members, () => ended)
          continue
        }
      }

      joinGroup(groups, inputKeys.of(subject.facts, declared), members, () => evaluateRule(rule, subject, activation(subject), options))
    }

    if (options.perSubject?.has(kind)) perSubject.add(rule.id, own, groups.values())

    if (summarised) {
      const {listed, folded} = summarise(rule, own, [...groups.values()], options)
      findings.push(...listed)
      foldedUnknowns.push(...folded)
    } else {
      const perSubject: Finding[] = Array.from({length: own.length})
      for (const {finding, members} of groups.values()) for (const index of members) perSubject[index] = findingFor(finding, own[index])
      findings.push(...perSubject)
    }
  }

  return {findings: [...findings, ...foldedUnknowns], bySubject: perSubject.bySubject()}
}

/**
 * Each subject's own finding per rule. Subjects whose findings agree on every rule (most nodes of a
 * pool) share one map, so that what is made of it (a node's checks, their JSON) can be made once.
 */
class PerSubjectFindings {
  /** By kind (its subjects, in the order every rule of the kind sees them): each rule's findings, and which of them each subject has. */
  private readonly kinds = new Map<readonly Subject[], Array<{rule: string; findings: Finding[]; findingOf: Uint32Array}>>()

  add(rule: string, subjects: readonly Subject[], groups: Iterable<Group>): void {
    let rules = this.kinds.get(subjects)
    if (!rules) this.kinds.set(subjects, (rules = []))
    const findings: Finding[] = []
    const findingOf = new Uint32Array(subjects.length)
    for (const {finding, members} of groups) {
      for (const index of members) findingOf[index] = findings.length
      findings.push(finding)
    }

    rules.push({rule, findings, findingOf})
  }

  bySubject(): Map<string, Map<string, Finding>> {
    const bySubject = new Map<string, Map<string, Finding>>()
    for (const [subjects, rules] of this.kinds) {
      // A subject's class: which finding it has of each rule so far, as one number. Equal classes, equal maps.
      const classOf = new Uint32Array(subjects.length)
      for (const {findings, findingOf} of rules) {
        const classes = new Map<number, number>()
        for (let index = 0; index < subjects.length; index++) {
          const pair = classOf[index] * findings.length + findingOf[index]
          let id = classes.get(pair)
          if (id === undefined) classes.set(pair, (id = classes.size))
          classOf[index] = id
        }
      }

      const maps: Array<Map<string, Finding>> = []
      for (const [index, subject] of subjects.entries()) {
        let map = maps[classOf[index]]
        if (!map) maps[classOf[index]] = map = new Map(rules.map(({rule, findings, findingOf}) => [rule, findings[findingOf[index]]]))
        bySubject.set(subjectPath(subject), map)
      }
    }

    return bySubject
  }
}

const skipReadsOfRules = new WeakMap<LoadedRule, null | readonly string[]>()

/**
 * The facts a rule's skip stage reads (its skip conditions and their messages; its Kubernetes versions
 * are the run's), or undefined when it has no skip stage or reads a fact in a way that names no declared one.
 */
function skipStageReads(rule: LoadedRule): readonly string[] | undefined {
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
function unknownForEvery(rule: LoadedRule, kind: string, why: UnknownFact, options: EvaluationOptions): Finding {
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

/** Subjects (by their index among the rule's subjects) whose declared facts are equal, and their finding. */
interface Group {
  finding: Finding
  members: number[]
}

/**
 * Subjects (by index) over one parent fact set that hold the same paths themselves: the nodes of a
 * pool, each holding its name over the pool's facts. A rule that reads none of `own` has equal
 * inputs on all of them.
 */
interface Siblings {
  own: ReadonlySet<string>
  members: readonly number[]
}

function siblingSets(subjects: readonly Subject[]): Siblings[] {
  const byParent = new Map<FactSet | undefined, Map<string, {own: ReadonlySet<string>; members: number[]}>>()
  for (const [index, {facts}] of subjects.entries()) {
    const own = facts.ownPaths().toSorted()
    let byOwn = byParent.get(facts.parentSet)
    if (!byOwn) byParent.set(facts.parentSet, (byOwn = new Map()))
    const signature = own.join('\u0000')
    const siblings = byOwn.get(signature)
    if (siblings) siblings.members.push(index)
    else byOwn.set(signature, {own: new Set(own), members: [index]})
  }

  return [...byParent.values()].flatMap((byOwn) => [...byOwn.values()])
}

/**
 * The subjects a rule is worked out for together: siblings whole where the rule reads none of the
 * paths they hold themselves, else one by one; in the order of their first subjects, so that the
 * groups come in that order too and each group's first member is its first subject.
 */
function batchesFor(siblings: readonly Siblings[], declared: readonly string[]): Array<readonly number[]> {
  const batches = siblings.flatMap(({own, members}) => (declared.some((path) => own.has(path)) ? members.map((index) => [index]) : [members]))
  return batches.toSorted((a, b) => a[0] - b[0])
}

/** Puts subjects in the group of their key, evaluating the group's finding when they are the first. */
function joinGroup(groups: Map<string, Group>, key: string, members: readonly number[], evaluate: () => Finding): void {
  const group = groups.get(key)
  if (group) for (const index of members) group.members.push(index)
  else groups.set(key, {finding: evaluate(), members: [...members]})
}

/** The group's finding, told of one of its subjects. */
function findingFor(finding: Finding, subject: Subject): Finding {
  return finding.subject.name === subject.name && finding.subject.kind === subject.kind ? finding : {...finding, subject: {kind: subject.kind, name: subject.name}}
}

/**
 * A rule's inputs as one string, to find the subjects whose inputs are equal. Why-unknowns become
 * short tokens (no JSON starts with ?): their details are sentences, which thousands of keys would
 * each carry and hash.
 */
class InputKeys {
  private readonly unknowns = new Map<string, Map<UnknownReason, string>>()
  private tokens = 0
  /** Keys made, by the fact set that holds the paths and by the paths (a rule's own list). */
  private readonly made = new WeakMap<FactSet, Map<readonly string[], string>>()

  of(facts: FactSet, paths: readonly string[]): string {
    const holder = facts.holderOf(paths)
    let byPaths = this.made.get(holder)
    if (!byPaths) this.made.set(holder, (byPaths = new Map()))
    let key = byPaths.get(paths)
    if (key === undefined) {
      key = ''
      for (const path of paths) key += `${this.input(holder, path)}\u0001`
      byPaths.set(paths, key)
    }

    return key
  }

  private input(facts: FactSet, path: string): string {
    const value = facts.get(path)
    if (value !== undefined) return JSON.stringify(value)
    const {reason, detail} = facts.whyUnknown(path)!
    let byReason = this.unknowns.get(detail)
    if (!byReason) this.unknowns.set(detail, (byReason = new Map()))
    let token = byReason.get(reason)
    if (token === undefined) byReason.set(reason, (token = `?${++this.tokens}`))
    return token
  }
}

/**
 * A summarised rule's findings: failures and unknowns listed one by one (`listed`, in subject
 * order), passes and skips summed up in one finding about the cluster, and unknowns for the reasons
 * in `summariseUnknown` in another (`folded`).
 */
function summarise(rule: LoadedRule, subjects: readonly Subject[], groups: readonly Group[], options: EvaluationOptions): {listed: Finding[]; folded: Finding[]} {
  const [fine, unknown, problems]: Group[][] = [[], [], []]
  for (const group of groups) {
    const {status, reason} = group.finding
    if (status === 'pass' || status === 'skip') fine.push(group)
    else if (status === 'unknown' && options.summariseUnknown?.has(reason as UnknownReason)) unknown.push(group)
    else problems.push(group)
  }

  const listed = problems
    .flatMap(({finding, members}) => members.map((index) => ({finding, index})))
    .toSorted((a, b) => a.index - b.index)
    .map(({finding, index}) => findingFor(finding, subjects[index]))
  const count = (some: Group[]) => some.reduce((total, group) => total + group.members.length, 0)
  // Groups come in the order of their first subjects: the first group holds the first subject.
  const earliest = (some: Group[]) => ({finding: some[0].finding, subject: subjects[some[0].members[0]]})

  const kind = subjectKindOf(rule)
  const folded: Finding[] = []
  if (unknown.length > 0) {
    const example = earliest(unknown)
    folded.push({...example.finding, subject: {kind: 'Cluster', name: 'cluster'}, message: `${count(unknown)} ${kind.toLowerCase()}(s), e.g. ${example.subject.name}: ${example.finding.message}`, evidence: {}})
  }

  if (fine.length === 0 && (listed.length > 0 || folded.length > 0)) return {listed, folded}
  const status = fine.some(({finding}) => finding.status === 'pass') ? 'pass' : 'skip'
  const apart = listed.length + count(unknown)
  let message = `No ${kind} in the cluster is concerned.`
  if (fine.length > 0) {
    const example = earliest(fine)
    message = `${count(fine)} ${kind}(s) ${status === 'pass' ? 'pass' : 'do not apply'}${apart > 0 ? ` (${apart} reported apart)` : ''}; for example ${example.subject.name}: ${example.finding.message}`
  }

  const summary: Finding = {
    rule: rule.id,
    title: rule.title,
    status,
    severity: options.severity?.get(rule.id) ?? rule.severity,
    confidence: rule.confidence ?? 'verified',
    subject: {kind: 'Cluster', name: 'cluster'},
    message,
    evidence: {},
    remediation: [],
    references: rule.references,
    ...(status === 'skip' ? {reason: 'not-applicable'} : {}),
  }
  return {listed: [...listed, summary], folded}
}

function evaluateRule(rule: LoadedRule, subject: Subject, activation: Activation, options: EvaluationOptions): Finding {
  const run = ruleRun(rule, subject, activation, options)
  return run.skipStage() ?? run.decide()
}

/**
 * One rule on one subject, in its two stages: whether it applies (its Kubernetes versions, its skip
 * conditions), which may end it, then what its needs and outcomes decide.
 */
function ruleRun(rule: LoadedRule, subject: Subject, activation: Activation, options: EvaluationOptions): {decide(): Finding; skipStage(): Finding | undefined} {
  const meter = new CostMeter()
  const base = {
    rule: rule.id,
    title: rule.title,
    confidence: rule.confidence ?? 'verified',
    subject: {kind: subject.kind, name: subject.name},
    evidence: evidenceOf(rule, subject.facts),
    references: rule.references,
  }
  const severityOf = (outcomeSeverity?: Severity) => options.severity?.get(rule.id) ?? outcomeSeverity ?? rule.severity
  const finish = (status: Status, message: string, extra: {reason?: 'not-applicable' | EngineUnknownReason | UnknownReason; severity?: Severity} = {}): Finding => ({
    ...base,
    status,
    severity: severityOf(extra.severity),
    message,
    remediation: status === 'fail' ? rule.remediation.map((step) => render(rule, step, activation, meter)) : [],
    ...(extra.reason === undefined ? {} : {reason: extra.reason}),
  })

  return {skipStage, decide}

  function skipStage(): Finding | undefined {
    const range = rule.versions?.kubernetes
    const version = options.kubernetesVersion && semver.coerce(options.kubernetesVersion)
    if (range && version && !semver.satisfies(version, range)) {
      return finish('skip', `Applies to Kubernetes ${range}; this is ${version.major}.${version.minor}.`, {reason: 'not-applicable'})
    }

    for (const skip of rule.skip ?? []) {
      try {
        if (evaluateExpression(rule, skip.when, activation, meter) === true) {
          return finish('skip', render(rule, skip.message, activation, meter), {reason: 'not-applicable'})
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

function evidenceOf(rule: LoadedRule, facts: FactSet): Record<string, FactValue> {
  const evidence: Record<string, FactValue> = {}
  for (const path of [...rule.needs, ...(rule.uses ?? [])]) {
    const value = facts.get(path)
    if (value !== undefined) evidence[path] = value
  }

  return evidence
}
