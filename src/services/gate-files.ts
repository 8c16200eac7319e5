/**
 * --waivers and --baseline: read before any probing, so a mistake costs nothing. The waivers
 * reader (YAML, a JSON Schema) loads only when --waivers is given.
 */

import type {FactValue, Finding} from '../contract/finding.js'
import {FLEET_SCHEMA_VERSION} from '../contract/fleet.js'
import {type ClusterSummary, type NodeCheck, type NodeReport, type Report, REPORT_SCHEMA_VERSION} from '../contract/report.js'
import type {BaselineNode} from '../derive/node-baseline.js'
import type {LoadedRule} from '../engine/rule-lint.js'
import {type Baseline, openResults} from '../planner/baseline.js'
import type {ReportInput} from '../planner/gate.js'
import {UsageError} from '../util/errors.js'
import {someNames} from '../util/names.js'
import {MAX_FILE_BYTES, readUserJson} from '../util/user-file.js'

/** --waivers and --baseline, as given on the command line. */
export interface GateFiles {
  waiversPath?: string
  baselinePath?: string
}

/** Which command the report is for: a baseline must come from the same kind of run. */
type RunKind = 'cluster' | 'node'

/** Reads --waivers (whose rules must exist) and --baseline (a report of the same kind of run). */
export async function readGateFiles(rules: readonly LoadedRule[], files: GateFiles, run: RunKind): Promise<Pick<ReportInput, 'baseline' | 'waivers'>> {
  const {waiversPath, baselinePath} = files
  const waivers = waiversPath === undefined ? undefined : await import('./waivers-file.js').then(({readWaivers}) => readWaivers(waiversPath, new Set(rules.map((rule) => rule.id))))
  const baseline = baselinePath === undefined ? undefined : await readBaseline(baselinePath, run)
  return {...(waivers ? {waivers: {file: waiversPath!, entries: waivers}} : {}), ...(baseline ? {baseline} : {})}
}

const BASELINE_HINT = ['Pass a report written earlier with --json or --output json=FILE.']

async function readBaseline(path: string, run: RunKind): Promise<Baseline> {
  const report = (await readUserJson('--baseline', path, {maxBytes: MAX_FILE_BYTES.baseline, suggestions: BASELINE_HINT})) as Partial<Report>
  if ((report as {schemaVersion?: unknown}).schemaVersion === FLEET_SCHEMA_VERSION) {
    throw new UsageError(`--baseline ${path}: a fleet's report, and a baseline is one cluster's`, ['Take that cluster\'s report out of it: jq \'.clusters[] | select(.context == "NAME") | .report\' FILE > baseline.json'])
  }

  if (report.schemaVersion !== REPORT_SCHEMA_VERSION || !Array.isArray(report.findings) || !report.findings.every((finding) => isFindingLike(finding))) {
    throw new UsageError(`--baseline ${path}: not a kpx-check report (expected schemaVersion "${REPORT_SCHEMA_VERSION}" and findings)`, BASELINE_HINT)
  }

  // Cluster runs carry the cluster's summary; node runs do not.
  const kind: RunKind = report.cluster === undefined ? 'node' : 'cluster'
  if (kind !== run) {
    throw new UsageError(`--baseline ${path}: a report of \`kpx-check ${kind}\`, and this is \`kpx-check ${run}\`: their findings are not comparable`, [
      `Pass a report written earlier by kpx-check ${run} --json (or --output json=FILE).`,
    ])
  }

  const nodes = nodeChecksOf(report.nodes)
  return {
    file: path,
    generatedAt: String(report.generatedAt ?? ''),
    ...(report.cluster ? {cluster: clusterOf(report.cluster)} : {}),
    nodes: nodes.map((node) => node.name),
    findings: openResults(report.findings, nodes).byKey,
    nodeRecords: nodeRecordsOf(nodes, report.findings),
  }
}

/** Each node's checks, with the evidence of the findings about it (verify --baseline's side of the comparisons). */
export function nodeRecordsOf(nodes: ReadonlyArray<Pick<NodeReport, 'checks' | 'name'>>, findings: readonly Finding[]): Map<string, BaselineNode> {
  const records = new Map(nodes.map(({name, checks}) => [name, {checks: Object.fromEntries(Object.entries(checks).map(([rule, {message, status}]) => [rule, {status, message: String(message)}])), evidence: {} as Record<string, FactValue>}]))
  for (const {subject, evidence} of findings) {
    const record = subject.kind === 'Node' ? records.get(subject.name) : undefined
    if (!record || typeof evidence !== 'object' || evidence === null || Array.isArray(evidence)) continue
    // A JSON key __proto__ is the file's: assigned, it would set the record's prototype.
    for (const [fact, value] of Object.entries(evidence)) if (fact !== '__proto__') record.evidence[fact] = value
  }

  return records
}

/**
 * A node run's baseline is an earlier report of some of the same nodes: one that shares none of them
 * (another machine's, another inventory's) would make every finding here new, or pass another node's
 * as existing. Refused once the run's nodes are known; nodes added or gone since are fine.
 */
export function refuseBaselineOfOtherNodes(baseline: Baseline | undefined, names: readonly string[]): void {
  const earlier = baseline?.nodes
  if (!earlier || earlier.length === 0 || names.length === 0 || names.some((name) => earlier.includes(name))) return
  throw new UsageError(`--baseline ${baseline.file}: a report of other nodes (${someNames(earlier)}), and this run checks ${someNames(names)}: its findings are not these nodes'`, [
    'Pass a report written earlier of these nodes (kpx-check node or cluster --json, or --output json=FILE), or drop --baseline.',
  ])
}

/** Which cluster a baseline is of, as far as the file says. */
function clusterOf(summary: Partial<ClusterSummary>): NonNullable<Baseline['cluster']> {
  return {context: typeof summary.context === 'string' ? summary.context : null, ...(typeof summary.server === 'string' ? {server: summary.server} : {})}
}

/** Enough of a finding to compare: its rule, status and subject. */
function isFindingLike(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  const {rule, status, subject} = value as Partial<Finding>
  return typeof rule === 'string' && typeof status === 'string' && typeof subject?.kind === 'string' && typeof subject.name === 'string'
}

/** Each node's name and checks, as far as the file has them (reports from before per-node checks have none). */
export function nodeChecksOf(nodes: unknown): Array<Pick<NodeReport, 'checks' | 'name'>> {
  if (!Array.isArray(nodes)) return []
  return nodes.flatMap((node: Partial<NodeReport> | null) => {
    if (typeof node?.name !== 'string' || typeof node.checks !== 'object' || node.checks === null) return []
    const checks = Object.entries(node.checks).filter(([, check]) => typeof (check as Partial<NodeCheck> | null)?.status === 'string')
    return [{name: node.name, checks: Object.fromEntries(checks)}]
  })
}
