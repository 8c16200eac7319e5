import type {GatedFinding, SubjectRef} from '../contract/finding.js'
import type {BaselineSummary, NodeCheck, NodeReport} from '../contract/report.js'
import {findingKey} from '../contract/subject.js'
import type {BaselineNode} from '../derive/node-baseline.js'

type Open = 'fail' | 'unknown'

/** What an earlier report had failed or unknown, by rule and subject: each node's own checks, and the other findings. */
export interface Baseline {
  file: string
  generatedAt: string
  /** A cluster run's: which cluster the baseline is of. */
  cluster?: {context: null | string; server?: string}
  /** The nodes it checked (a cluster run's and a node run's alike). */
  nodes?: readonly string[]
  findings: Map<string, OpenResult>
  /** Each node's checks and the facts their findings showed: what verify --baseline compares a node with. */
  nodeRecords: ReadonlyMap<string, BaselineNode>
}

/** A failed or unknown result, by rule and subject. */
interface OpenResult {
  rule: string
  status: Open
  subject: SubjectRef
}

/** The failed and unknown results of a report, the way a baseline compares them. */
interface OpenResults {
  /** By key (rule and subject): node checks, and findings that are not a sum of node checks. */
  byKey: Baseline['findings']
  /** Findings about the cluster that sum up the nodes' checks of their rule (a cluster run's folded ones). */
  sums: ReadonlySet<GatedFinding>
}

/**
 * A report's failed and unknown results, each node's checks counted one by one: a cluster run sums
 * up a node rule's results in one finding about the cluster, which would hide a node that joined.
 */
export function openResults(findings: readonly GatedFinding[], nodes: ReadonlyArray<Pick<NodeReport, 'checks' | 'name'>>): OpenResults {
  const byKey: Baseline['findings'] = new Map()
  const nodeRules = new Set<string>()
  for (const node of nodes) {
    for (const [rule, {status}] of Object.entries(node.checks ?? {})) {
      nodeRules.add(rule)
      if (isOpen(status)) byKey.set(findingKey({rule, subject: {kind: 'Node', name: node.name}}), {rule, status, subject: {kind: 'Node', name: node.name}})
    }
  }

  const sums = new Set<GatedFinding>()
  for (const finding of findings) {
    if (!isOpen(finding.status)) continue
    if (finding.subject.kind === 'Cluster' && nodeRules.has(finding.rule)) sums.add(finding)
    else byKey.set(findingKey(finding), {rule: finding.rule, status: finding.status, subject: finding.subject})
  }

  return {byKey, sums}
}

function isOpen(status: string): status is Open {
  return status === 'fail' || status === 'unknown'
}

/**
 * Marks each failed or unknown result new or existing (the baseline had it, with the same status),
 * node checks included, and lists what the baseline had that is gone: the gate then looks at new
 * findings only. A finding that sums up nodes' checks is existing only if each of them is.
 */
export function compareWithBaseline(findings: GatedFinding[], nodes: NodeReport[], baseline: Baseline): {findings: GatedFinding[]; nodes: NodeReport[]; summary: BaselineSummary} {
  const summary: BaselineSummary = {file: baseline.file, generatedAt: baseline.generatedAt, new: 0, existing: 0, fixed: []}
  const current = openResults(findings, nodes)
  const byCluster = new ClusterWideBaseline(baseline, current.byKey)
  const markOf = (key: string, status: Open, finding?: {rule: string; subject: SubjectRef}) => {
    const earlier = baseline.findings.get(key) ?? (finding && byCluster.standingFor(finding))
    return earlier?.status === status ? 'existing' : 'new'
  }

  for (const [key, result] of current.byKey) {
    summary[markOf(key, result.status, result)]++
    if (!baseline.findings.has(key)) byCluster.count(result)
  }
  for (const [key, earlier] of baseline.findings) {
    if (!current.byKey.has(key) && !byCluster.used(key)) summary.fixed.push({rule: earlier.rule, subject: earlier.subject, was: earlier.status})
  }

  const notes = byCluster.notes()
  if (notes.length > 0) summary.notes = notes

  // Rules whose sum-up finding is new: a node check of that rule and status that the baseline did not have.
  const newInSums = new Set<string>()
  const markedNodes = nodes.map((node): NodeReport => {
    const checks: Record<string, NodeCheck> = {}
    for (const [rule, check] of Object.entries(node.checks)) {
      if (!isOpen(check.status)) {
        checks[rule] = check
        continue
      }

      const mark = markOf(findingKey({rule, subject: {kind: 'Node', name: node.name}}), check.status)
      if (mark === 'new') newInSums.add(`${rule} ${check.status}`)
      checks[rule] = {...check, baseline: mark}
    }

    return {...node, checks}
  })
  const marked = findings.map((finding): GatedFinding => {
    if (!isOpen(finding.status)) return finding
    if (current.sums.has(finding)) return {...finding, baseline: newInSums.has(`${finding.rule} ${finding.status}`) ? 'new' : 'existing'}
    return {...finding, baseline: markOf(findingKey(finding), finding.status, finding)}
  })
  return {findings: marked, nodes: markedNodes, summary}
}

const CLUSTER: SubjectRef = {kind: 'Cluster', name: 'cluster'}

/**
 * A baseline from before a rule's findings named their objects has one finding about the cluster for
 * it. An object's finding of that rule, absent from such a baseline, compares with that one: as well as
 * it can (a new object then joins an existing finding, as it did), and the summary says so.
 */
class ClusterWideBaseline {
  private readonly objects = new Map<string, number>()

  constructor(
    private readonly baseline: Baseline,
    private readonly current: ReadonlyMap<string, unknown>,
  ) {}

  /** The baseline's finding about the cluster an object's finding compares with, if the baseline is of that age. */
  standingFor(finding: {rule: string; subject: SubjectRef}): OpenResult | undefined {
    if (finding.subject.kind === 'Cluster' || finding.subject.kind === 'Node') return undefined
    const key = findingKey({rule: finding.rule, subject: CLUSTER})
    return this.current.has(key) ? undefined : this.baseline.findings.get(key)
  }

  /** Notes that this result (absent from the baseline) was compared with the baseline's finding about the cluster. */
  count(result: OpenResult): void {
    if (!this.standingFor(result)) return
    const key = findingKey({rule: result.rule, subject: CLUSTER})
    this.objects.set(key, (this.objects.get(key) ?? 0) + 1)
  }

  used(key: string): boolean {
    return this.objects.has(key)
  }

  notes(): string[] {
    return [...this.objects].map(
      ([key, count]) =>
        `the baseline has ${key.split(' ', 1)[0]} about the cluster (a report from before its findings named their objects): ${count} finding(s) on objects were compared with that one; write a new baseline to gate on each object`,
    )
  }
}
