/**
 * What a finding is: the vocabulary rules, the engine, the planner and every output share. A leaf:
 * it imports nothing, so each layer can speak it without depending on another.
 */

export const RULE_STATUSES = ['pass', 'fail', 'skip', 'unknown'] as const
export type Status = (typeof RULE_STATUSES)[number]

export const SEVERITIES = ['blocker', 'warning', 'info'] as const
export type Severity = (typeof SEVERITIES)[number]

/** verified: from Kubernetes source or docs; derived: reasoned from them; heuristic: a rule of thumb. */
export const CONFIDENCES = ['verified', 'derived', 'heuristic'] as const
export type Confidence = (typeof CONFIDENCES)[number]

/** A source behind a rule, a recipe or a plan. */
export interface RuleReference {
  title: string
  url: string
}

/** Links to the sources behind a rule or a platform recipe (JSON Schema of RuleReference[]). */
export const REFERENCES_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['title', 'url'],
    properties: {title: {type: 'string'}, url: {type: 'string', pattern: '^https://'}},
  },
} as const

/**
 * Why a fact has no value. A rule that needs such a fact ends `unknown` with this reason,
 * never `pass`.
 */
export const UNKNOWN_REASONS = [
  'not-collected', // the bundle has no such section (older collector, hand-made bundle, API-only source)
  'permission-denied', // the collector ran without the privilege this read needs
  'not-installed', // the command that would report it is not on the node
  'not-present', // the file or interface it reads does not exist on this node
  'unreachable', // an endpoint (kube-proxy metrics) did not answer
  'timeout', // the command did not finish in its time bound
  'failed', // the command ran and failed
  'unparseable', // output was there but did not look like what the command prints
  'truncated', // the bundle, or the collector's output, ends before its end line: it vouches for none of its sections
  'malformed-response', // the Kubernetes API answered with something that is not what it defines
  'node-unreachable', // the whole node could not be probed
] as const

export type UnknownReason = (typeof UNKNOWN_REASONS)[number]

/**
 * Why the engine left a rule unknown whatever the state of its facts; unlike UNKNOWN_REASONS, not
 * for bundles or rule files to name.
 */
export const ENGINE_UNKNOWN_REASONS = [
  'rule-error', // the rule failed to evaluate, or no outcome matched
  'cost-limit', // on these facts its CEL would cost more than a rule may (src/engine/cel-cost.ts)
] as const

export type EngineUnknownReason = (typeof ENGINE_UNKNOWN_REASONS)[number]

/** A JSON-like fact value; integers are numbers here and become CEL ints at evaluation. */
export type FactValue = boolean | number | string | FactValue[] | {[key: string]: FactValue}

/**
 * What a finding is about, as reports name it: `{kind: 'Node', name: 'worker-1'}`, `{kind: 'Service',
 * namespace: 'default', name: 'web'}`, `{kind: 'Cluster', name: 'cluster'}`.
 */
export interface SubjectRef {
  kind: string
  /** Namespaced objects only. */
  namespace?: string
  name: string
}

/** One rule's outcome on one subject, as the engine evaluates it. */
export interface Finding {
  rule: string
  title: string
  status: Status
  severity: Severity
  confidence: Confidence
  subject: SubjectRef
  message: string
  /** The facts the rule read, as collected: the proof behind the status. */
  evidence: Record<string, FactValue>
  remediation: string[]
  /** Why the status is unknown or skip (`not-installed`, `permission-denied`, `not-applicable`, …). */
  reason?: string
  references: RuleReference[]
}

/** A waiver that matched a finding. An active waiver keeps the finding out of the counts; an expired one does not. */
export interface AppliedWaiver {
  reason: string
  expires?: string
  expired: boolean
  /** Where the waiver is written: FILE:LINE. */
  source: string
}

/** A finding as the planner passes it on: with the waiver that covers it and its place in the baseline. */
export interface GatedFinding extends Finding {
  /** Set when a --waivers entry matches this failed or unknown finding. */
  waiver?: AppliedWaiver
  /** With --baseline: whether this failed or unknown finding was already there (existing) or is new. */
  baseline?: 'existing' | 'new'
}

/** An active waiver accepts the finding: it is reported but not counted. An expired one counts again. */
export function isWaived(finding: {waiver?: AppliedWaiver}): boolean {
  return finding.waiver !== undefined && !finding.waiver.expired
}

/** Findings by rule id, in the order they come. */
export function groupByRule<T extends {rule: string}>(findings: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>()
  for (const finding of findings) {
    const group = groups.get(finding.rule)
    if (group) group.push(finding)
    else groups.set(finding.rule, [finding])
  }

  return groups
}

declare const SHARED: unique symbol

/**
 * One subject's own finding per rule, by rule id. Subjects whose findings agree on every rule (most
 * nodes of a pool) are given one and the same map, never a copy: what is made of it (a node's
 * checks, their JSON) may be made once and kept by the map's identity. Only the engine makes them.
 */
export type SharedFindings = ReadonlyMap<string, Finding> & {readonly [SHARED]: true}

/** What a rule is, as a finding repeats it: enough to speak of a rule with no finding of its own to copy. */
type RuleHeader = Pick<Finding, 'confidence' | 'references' | 'rule' | 'severity' | 'title'>

/**
 * A rule's results on subjects of a kind that can number in the tens of thousands, as the engine
 * gives them: subjects whose inputs were equal in one group, with the one finding they share (told
 * of the group's first subject). The planner lists the failures and unknowns one by one and sums up
 * the rest.
 */
export interface GroupedResults {
  rule: RuleHeader
  kind: string
  /** The rule's subjects, in the order they were evaluated. */
  subjects: readonly SubjectRef[]
  /** Subjects alike (by index in `subjects`) with the finding they share, in the order of their first members. */
  groups: ReadonlyArray<{finding: Finding; members: readonly number[]}>
}

/** A finding a group of subjects share, told of one of them. */
export function toldOf(finding: Finding, subject: SubjectRef): Finding {
  const {kind, namespace, name} = subject
  if (finding.subject.name === name && finding.subject.kind === kind && finding.subject.namespace === namespace) return finding
  return {...finding, subject: namespace === undefined ? {kind, name} : {kind, namespace, name}}
}
