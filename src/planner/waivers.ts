import type {GatedFinding} from '../contract/finding.js'
import type {WaiverSummary} from '../contract/report.js'
import {subjectPath} from '../contract/subject.js'

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

/**
 * Marks failed and unknown findings that a waiver covers (the first matching waiver wins). A waiver
 * past its expiry day still marks the finding, as expired: the finding counts again and says why.
 */
export function applyWaivers(findings: GatedFinding[], waivers: readonly Waiver[], file: string, now: Date): {findings: GatedFinding[]; summary: WaiverSummary} {
  const today = now.toISOString().slice(0, 10)
  const matchers = waivers.map((waiver) => ({waiver, matches: subjectMatcher(waiver.subject)}))
  const used = new Set<Waiver>()
  const summary: WaiverSummary = {file, applied: 0, expired: 0, unused: []}
  const marked = findings.map((finding) => {
    if (finding.status !== 'fail' && finding.status !== 'unknown') return finding
    const path = subjectPath(finding.subject)
    const match = matchers.find(({waiver, matches}) => waiver.rule === finding.rule && matches(path))
    if (!match) return finding
    const {waiver} = match
    used.add(waiver)
    const expired = waiver.expires !== undefined && waiver.expires < today
    if (expired) summary.expired++
    else summary.applied++
    return {...finding, waiver: {reason: waiver.reason, ...(waiver.expires ? {expires: waiver.expires} : {}), expired, source: waiver.source}}
  })
  summary.unused = waivers.filter((waiver) => !used.has(waiver)).map(({rule, subject, source}) => ({rule, subject, source}))
  return {findings: marked, summary}
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
