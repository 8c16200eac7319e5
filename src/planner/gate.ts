/**
 * The gate: findings with waivers and baseline marks, the counts, the verdict, the exit code and the
 * plan, in the one Report every output renders.
 */
import type {AppliedWaiver, GatedFinding, GroupedResults, Severity, SharedFindings, UnknownReason} from '../contract/finding.js'
import {type BaselineSummary, type NodeCheck, type NodeReport, type NodeRow, type Report, REPORT_SCHEMA_VERSION, type WaiverSummary} from '../contract/report.js'
import {subjectName, subjectPath} from '../contract/subject.js'
import {TOOL_NAME, TOOL_VERSION} from '../util/version.js'
import {type Baseline, compareWithBaseline} from './baseline.js'
import {foldGroups} from './fold.js'
import {type ClusterPlanInput, type RulePlan} from './plan-input.js'
import {buildPlan} from './plan.js'
import {countFindings, exitCodeOf, type GatePolicy, verdictOf} from './verdict.js'
import {applyWaivers, type Waiver, WaiverMatcher} from './waivers.js'

export interface ReportInput {
  nodes: NodeRow[]
  /** The engine's findings, one per rule and subject. */
  findings: GatedFinding[]
  /** The engine's results on the kinds it groups (Services; a cluster run's nodes): listed and summed up here. */
  grouped?: readonly GroupedResults[]
  /** Unknown reasons summed up in one finding about the cluster among grouped results, as the same on every subject. */
  foldUnknown?: ReadonlySet<UnknownReason>
  /** Each subject's own finding per rule, by subject path (the engine's `bySubject`): the nodes' are read. */
  bySubject: ReadonlyMap<string, SharedFindings>
  evaluatedRules: number
  skippedRules: readonly string[]
  severityOverrides: ReadonlyMap<string, Severity>
  policy: GatePolicy
  /** What the plan does with each rule's failures. */
  rulePlans: ReadonlyMap<string, RulePlan>
  /** Cluster runs: the summary, and the facts the plan's switch steps are written from. */
  cluster?: ClusterPlanInput
  /** --waivers: accepted risks, kept out of the counts until they expire. */
  waivers?: {file: string; entries: readonly Waiver[]}
  /** --baseline: an earlier report; the exit code then gates on new findings only. */
  baseline?: Baseline
  now?: Date
}

const STATUS_ORDER = {fail: 0, unknown: 1, pass: 2, skip: 3} as const
const SEVERITY_ORDER = {blocker: 0, warning: 1, info: 2} as const

/** Findings in reading order: failures first, most severe first, then by rule and subject. */
function sortFindings(findings: readonly GatedFinding[]): GatedFinding[] {
  return findings.toSorted(
    (a, b) =>
      STATUS_ORDER[a.status] - STATUS_ORDER[b.status] ||
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      a.rule.localeCompare(b.rule) ||
      subjectName(a.subject).localeCompare(subjectName(b.subject)),
  )
}

/**
 * The one result every output renders: findings with waivers and baseline marks, the verdict, the
 * exit code and the plan. Waived findings do not count; with a baseline, the exit code looks only at
 * new findings while the verdict still describes the whole cluster.
 */
export function buildReport(input: ReportInput): Report {
  const now = input.now ?? new Date()
  let findings = reportedFindings(input)
  let waivers: undefined | WaiverSummary
  let baseline: BaselineSummary | undefined
  const matcher = input.waivers && new WaiverMatcher(input.waivers.entries, now)
  // The nodes' checks first: a waiver that matches only a check on one node is not unused.
  const nodeChecks = new NodeChecks(matcher)
  let nodes = input.nodes.map((node) => nodeChecks.of(node, input.bySubject.get(subjectPath({kind: 'Node', name: node.name})))).toSorted((a, b) => a.name.localeCompare(b.name))
  if (input.waivers && matcher) ({findings, summary: waivers} = applyWaivers(findings, matcher, input.waivers.file))
  if (input.baseline) ({findings, nodes, summary: baseline} = compareWithBaseline(findings, nodes, input.baseline))

  const summary = countFindings(findings)
  const verdict = verdictOf(summary)
  const gated = input.baseline ? countFindings(findings.filter((finding) => finding.baseline !== 'existing')) : summary
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    tool: {name: TOOL_NAME, version: TOOL_VERSION},
    generatedAt: now.toISOString(),
    verdict,
    exitCode: exitCodeOf(verdictOf(gated), gated, input.policy),
    summary,
    rules: {
      evaluated: input.evaluatedRules,
      skipped: input.skippedRules.toSorted(),
      severityOverrides: Object.fromEntries(input.severityOverrides),
    },
    ...(input.cluster ? {cluster: input.cluster.summary} : {}),
    nodes,
    findings: sortFindings(findings),
    ...(waivers ? {waivers} : {}),
    ...(baseline ? {baseline} : {}),
    plan: buildPlan({findings, nodes, rulePlans: input.rulePlans, ...(input.cluster ? {cluster: input.cluster} : {})}),
  }
}

/**
 * The engine's findings with its grouped results listed and summed up, rule by rule in the rules'
 * order (the plan's steps follow it), then the unknowns summed up across subjects.
 */
function reportedFindings(input: ReportInput): GatedFinding[] {
  if (!input.grouped) return input.findings
  const {listed, folded} = foldGroups(input.grouped, input.foldUnknown)
  const order = new Map([...input.rulePlans.keys()].map((rule, index) => [rule, index]))
  return [...[...input.findings, ...listed].toSorted((a, b) => order.get(a.rule)! - order.get(b.rule)!), ...folded]
}

const NO_FINDINGS = new Map() as unknown as SharedFindings
const NO_WAIVERS: ReadonlyMap<string, AppliedWaiver> = new Map()

/**
 * Each node with its verdict and every node rule's result on it, waived where a waiver names the rule
 * and the node. Nodes that share their findings (the engine gives them one map) and carry no waiver
 * share their checks too: one object, made once.
 */
class NodeChecks {
  private readonly unwaived = new WeakMap<SharedFindings, Pick<NodeReport, 'checks' | 'verdict'>>()

  constructor(private readonly matcher: undefined | WaiverMatcher) {}

  of(node: NodeRow, own: SharedFindings = NO_FINDINGS): NodeReport {
    const waivers = this.matcher && waiversOf(this.matcher, node, own)
    if (waivers) return {...node, ...checksOf(own, waivers)}
    let checks = this.unwaived.get(own)
    if (!checks) this.unwaived.set(own, (checks = checksOf(own, NO_WAIVERS)))
    return {...node, ...checks}
  }
}

/** The waivers that apply to the node's findings, by rule; undefined when none does. */
function waiversOf(matcher: WaiverMatcher, node: NodeRow, own: SharedFindings): Map<string, AppliedWaiver> | undefined {
  const subject = {kind: 'Node', name: node.name}
  const waivers = new Map<string, AppliedWaiver>()
  for (const [rule, {status}] of own) {
    const waiver = matcher.waiverOf({rule, status, subject})
    if (waiver) waivers.set(rule, waiver)
  }

  return waivers.size > 0 ? waivers : undefined
}

function checksOf(own: SharedFindings, waivers: ReadonlyMap<string, AppliedWaiver>): Pick<NodeReport, 'checks' | 'verdict'> {
  const checks: Record<string, NodeCheck> = {}
  for (const [rule, {message, reason, severity, status}] of [...own].toSorted(([a], [b]) => a.localeCompare(b))) {
    const waiver = waivers.get(rule)
    checks[rule] = {status, severity, message, ...(reason ? {reason} : {}), ...(waiver ? {waiver} : {})}
  }

  // The checks are counted as findings are: waived ones apart.
  return {verdict: verdictOf(countFindings(Object.values(checks))), checks}
}
