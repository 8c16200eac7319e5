import type {Finding} from '../engine/evaluate.js'
import type {Severity} from '../engine/rule-schema.js'
import {exitCodeOf, type GatePolicy, summarize, type Summary, type Verdict, verdictOf} from '../planner/verdict.js'
import {TOOL_NAME, TOOL_VERSION} from '../version.js'

export const REPORT_SCHEMA_VERSION = 'kpx-check/v1'

export type NodeSource = 'api' | 'facts' | 'local' | 'pod' | 'ssh'

export interface NodeReport {
  name: string
  source: NodeSource
  /** Where the facts came from: the bundle path, the SSH target, … */
  origin: string
  kernelRelease: null | string
  os: {id: null | string; prettyName: null | string; versionId: null | string}
  nftVersion: null | string
  reachable: boolean
  /** Why the node could not be probed, when reachable is false. */
  reason?: string
}

export interface PlanStep {
  id: string
  phase: string
  title: string
}

/** What a cluster run learnt about the cluster as a whole. */
export interface ClusterSummary {
  context: null | string
  kubernetesVersion: null | string
  platform: null | string
  proxyMode: 'iptables' | 'ipvs' | 'nftables' | 'none' | 'unknown'
  kubeProxy: {replacedBy: null | string; version: null | string; workload: null | string}
  /** kube-proxy is absent or already in nftables mode. */
  nothingToMigrate: boolean
  /** API reads that failed (forbidden, errors), with the message. */
  unreadable: string[]
  /** With --node-probe ssh and --inventory: inventory hosts that match no Node (by name or InternalIP). */
  unmatchedInventory?: string[]
}

export interface Report {
  schemaVersion: typeof REPORT_SCHEMA_VERSION
  tool: {name: string; version: string}
  generatedAt: string
  verdict: Verdict
  exitCode: number
  summary: Summary
  rules: {
    evaluated: number
    skipped: string[]
    severityOverrides: Record<string, Severity>
  }
  cluster?: ClusterSummary
  nodes: NodeReport[]
  findings: Finding[]
  plan: {steps: PlanStep[]}
}

export interface ReportInput {
  nodes: NodeReport[]
  findings: Finding[]
  evaluatedRules: number
  skippedRules: readonly string[]
  severityOverrides: ReadonlyMap<string, Severity>
  policy: GatePolicy
  cluster?: ClusterSummary
  now?: Date
}

const STATUS_ORDER = {fail: 0, unknown: 1, pass: 2, skip: 3} as const
const SEVERITY_ORDER = {blocker: 0, warning: 1, info: 2} as const

/** Findings in reading order: failures first, most severe first, then by rule and subject. */
export function sortFindings(findings: Finding[]): Finding[] {
  return findings.sort(
    (a, b) =>
      STATUS_ORDER[a.status] - STATUS_ORDER[b.status] ||
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      a.rule.localeCompare(b.rule) ||
      a.subject.name.localeCompare(b.subject.name),
  )
}

export function buildReport(input: ReportInput): Report {
  const summary = summarize(input.findings)
  const verdict = verdictOf(summary)
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    tool: {name: TOOL_NAME, version: TOOL_VERSION},
    generatedAt: (input.now ?? new Date()).toISOString(),
    verdict,
    exitCode: exitCodeOf(verdict, summary, input.policy),
    summary,
    rules: {
      evaluated: input.evaluatedRules,
      skipped: [...input.skippedRules].sort(),
      severityOverrides: Object.fromEntries(input.severityOverrides),
    },
    ...(input.cluster ? {cluster: input.cluster} : {}),
    nodes: [...input.nodes].sort((a, b) => a.name.localeCompare(b.name)),
    findings: sortFindings([...input.findings]),
    plan: {steps: []},
  }
}
