/**
 * The engine: every rule on every subject of its kind, evaluated once for each group of subjects
 * alike (batching.ts). It only evaluates: what its results look like in a report (sums of thousands
 * of passes) is the planner's (planner/fold.ts).
 */
import {type Finding, type GroupedResults, type SharedFindings, toldOf} from '../contract/finding.js'
import type {FactSet, UnknownFact} from '../facts/fact-set.js'
import type {Subject} from '../facts/subject.js'
import {Batching} from './batching.js'
import {celActivation, celData} from './cel.js'
import {PerSubjectFindings} from './per-subject.js'
import type {LoadedRule} from './rule-lint.js'
import {type Activation, evaluateRule, ruleRun, type RuleRunOptions, subjectKindOf, unknownForUnlisted} from './run-rule.js'

export {subjectKindOf} from './run-rule.js'

interface EvaluationOptions extends RuleRunOptions {
  /** Rule ids the user dropped with --skip. */
  skip?: ReadonlySet<string>
  /**
   * Subject kinds whose results come in groups of subjects alike (`grouped`), not one finding per
   * subject (default: GROUPED_KINDS): they can number in the tens of thousands.
   */
  grouped?: ReadonlySet<string>
  /**
   * Subject kinds whose list could not be read (Node, Service, DaemonSet), with why: a rule about them
   * is unknown with that reason, never a pass or a skip over no subjects.
   */
  unreadableKinds?: ReadonlyMap<string, UnknownFact>
  /** Subject kinds whose own finding per rule is kept apart (`bySubject`), however the findings group them. */
  perSubject?: ReadonlySet<string>
}

/** What the rules found. */
export interface Evaluation {
  /** One finding per rule and subject, for the kinds not grouped; and a rule's one finding when its kind could not be listed. */
  findings: Finding[]
  /** For the grouped kinds: each rule's results, by group of subjects alike. */
  grouped: GroupedResults[]
  /** For the `perSubject` kinds: subject path (`node/worker-1`) → rule id → the finding of the subject's group. */
  bySubject: Map<string, SharedFindings>
}

/** The kinds of Kubernetes objects rules judge one by one: thousands of them in a cluster. */
export const GROUPED_KINDS: ReadonlySet<string> = new Set(['Service', 'Workload', 'PrometheusRule'])

export function evaluateRules(rules: readonly LoadedRule[], subjects: readonly Subject[], options: EvaluationOptions = {}): Evaluation {
  const findings: Finding[] = []
  const grouped: GroupedResults[] = []
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

  const subjectsByKind = new Map<string, Subject[]>()
  // By the kind rules name: a Deployment is a Workload.
  for (const subject of subjects) {
    const kind = subject.family ?? subject.kind
    const same = subjectsByKind.get(kind)
    if (same) same.push(subject)
    else subjectsByKind.set(kind, [subject])
  }

  const batching = new Batching()
  const perSubject = new PerSubjectFindings()
  for (const rule of rules) {
    if (options.skip?.has(rule.id)) continue
    const kind = subjectKindOf(rule)
    const data = celData(rule.data ?? {})
    const unreadable = options.unreadableKinds?.get(kind)
    if (unreadable) {
      // The rule may not apply at all (its Kubernetes versions, its skip conditions over the cluster's facts).
      const cluster = subjectsByKind.get('Cluster')?.[0]
      const onCluster = cluster && evaluateRule(rule, cluster, options, {...activationOf(cluster, rule.scope), data})
      findings.push(onCluster?.status === 'skip' ? onCluster : unknownForUnlisted(rule, kind, unreadable, options))
      continue
    }

    const own = subjectsByKind.get(kind) ?? []
    const isGrouped = (options.grouped ?? GROUPED_KINDS).has(kind)
    const groups = batching.groups(rule, own, (subject) => ruleRun(rule, subject, {...activationOf(subject, rule.scope), data}, options), isGrouped)
    if (options.perSubject?.has(kind)) perSubject.add(rule.id, own, groups)

    if (isGrouped) {
      grouped.push({
        rule: {rule: rule.id, title: rule.title, severity: options.severity?.get(rule.id) ?? rule.severity, confidence: rule.confidence ?? 'verified', references: rule.references},
        kind,
        subjects: own,
        groups,
      })
    } else {
      const each: Finding[] = Array.from({length: own.length})
      for (const {finding, members} of groups) for (const index of members) each[index] = toldOf(finding, own[index])
      findings.push(...each)
    }
  }

  return {findings, grouped, bySubject: perSubject.bySubject()}
}
