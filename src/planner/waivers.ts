import type {AppliedWaiver, GatedFinding, SubjectRef} from '../contract/finding.js'
import type {WaiverSummary} from '../contract/report.js'
import {subjectPath} from '../contract/subject.js'

/** A waiver's reason has at least this many characters (spaces around it aside): enough for a ticket or a name, so the next reader can ask why. */
export const MIN_WAIVER_REASON_LENGTH = 8

/** One accepted risk: a rule's failures (or unknowns) on matching subjects, with why and until when. */
export interface Waiver {
  rule: string
  /** A pattern over subject paths (node/edge-*, service/default/*); * stops at /, ** does not. */
  subject: string
  reason: string
  /** The last day the waiver holds, YYYY-MM-DD (UTC). */
  expires?: string
  /** FILE:LINE, so a report points back at the entry. */
  source: string
}

/** Finds the waiver for failed and unknown findings (the first matching one wins), and keeps which were used. */
export class WaiverMatcher {
  private readonly used = new Set<Waiver>()
  /** `cluster` waivers matched to objects, with how many. */
  private readonly widened = new Map<Waiver, number>()
  private readonly today: string
  private readonly matchers: Array<{matches: (path: string) => boolean; waiver: Waiver}>

  constructor(private readonly waivers: readonly Waiver[], now: Date) {
    this.today = now.toISOString().slice(0, 10)
    this.matchers = waivers.map((waiver) => ({waiver, matches: subjectMatcher(waiver.subject)}))
  }

  /** A waiver past its expiry day still marks the finding, as expired: the finding counts again and says why. */
  waiverOf(finding: Pick<GatedFinding, 'rule' | 'status' | 'subject'>): AppliedWaiver | undefined {
    if (finding.status !== 'fail' && finding.status !== 'unknown') return undefined
    const path = subjectPath(finding.subject)
    const match = this.matchers.find(({waiver, matches}) => waiver.rule === finding.rule && (matches(path) || coversAsCluster(waiver, finding.subject)))
    if (!match) return undefined
    const {waiver} = match
    this.used.add(waiver)
    if (!match.matches(path)) this.widened.set(waiver, (this.widened.get(waiver) ?? 0) + 1)
    return {reason: waiver.reason, ...(waiver.expires ? {expires: waiver.expires} : {}), expired: waiver.expires !== undefined && waiver.expires < this.today, source: waiver.source}
  }

  /** What the `cluster` waivers matched that are now each an object's. */
  notes(): string[] {
    return [...this.widened].map(
      ([{rule, source}, count]) =>
        `waiver ${source} names the cluster for ${rule}, whose findings are each about one object now: it waives all ${count} of them; name the objects (service/NAMESPACE/NAME, deployment/NAMESPACE/NAME, …) to waive only those`,
    )
  }

  /** The waivers that matched nothing: fixed, or mistyped. */
  unused(): WaiverSummary['unused'] {
    return this.waivers.filter((waiver) => !this.used.has(waiver)).map(({rule, subject, source}) => ({rule, subject, source}))
  }
}

/**
 * Marks the failed and unknown findings a waiver covers, and counts the active and expired ones; the
 * unused waivers are those neither these findings nor the matcher's earlier uses (nodes' checks) matched.
 */
export function applyWaivers(findings: GatedFinding[], matcher: WaiverMatcher, file: string): {findings: GatedFinding[]; summary: WaiverSummary} {
  const summary: WaiverSummary = {file, applied: 0, expired: 0, unused: []}
  const marked = findings.map((finding) => {
    const waiver = matcher.waiverOf(finding)
    if (!waiver) return finding
    if (waiver.expired) summary.expired++
    else summary.applied++
    return {...finding, waiver}
  })
  summary.unused = matcher.unused()
  const notes = matcher.notes()
  if (notes.length > 0) summary.notes = notes
  return {findings: marked, summary}
}

/**
 * A waiver for `cluster` written before a rule's findings named their objects (a Service, a workload):
 * it still accepts what it accepted, each of them. Nodes have their own waivers (node/NAME), as before.
 */
function coversAsCluster(waiver: Waiver, subject: SubjectRef): boolean {
  return waiver.subject === 'cluster' && subject.kind !== 'Cluster' && subject.kind !== 'Node'
}

/** node/edge-* → a test of subject paths: * matches within one path segment, ** across them. */
function subjectMatcher(pattern: string): (path: string) => boolean {
  const source = pattern
    .split('**')
    .map((part) => part.split('*').map((literal) => literal.replaceAll(/[.+?^${}()|[\]\\]/g, String.raw`\$&`)).join('[^/]*'))
    .join('.*')
  const regex = new RegExp(`^${source}$`)
  return (path) => regex.test(path)
}
