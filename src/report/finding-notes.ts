// The phrases every format adds to a finding's message, so text, Markdown, SARIF and JUnit say the same thing.
import {type AppliedWaiver, type GatedFinding, isWaived} from '../contract/finding.js'
import type {Plan, StepFinding} from '../contract/report.js'

/** `unknown (permission-denied)`: the status with the reason behind it, when there is one. */
export function statusWithReason(finding: GatedFinding): string {
  return finding.reason ? `${finding.status} (${finding.reason})` : finding.status
}

/** The finding's message; a finding whose waiver expired counts again, and its message says the waiver lapsed. */
export function messageOf(finding: GatedFinding): string {
  return finding.waiver?.expired ? `${finding.message} (${waiverNote(finding.waiver)})` : finding.message
}

/** Until when a waiver accepts the finding, or that it has expired (only a waiver with a date can expire). */
export function waiverNote(waiver: AppliedWaiver): string {
  if (waiver.expired) return `waiver expired on ${waiver.expires} (${waiver.source}): ${waiver.reason}`
  return waiver.expires ? `waived until ${waiver.expires}: ${waiver.reason}` : `waived: ${waiver.reason}`
}

/** What a plan whose switch steps are not verified asks of the reader; undefined for verified ones. */
export function planConfidenceNote(plan: Plan): string | undefined {
  if (plan.confidence === 'derived') return 'The switch steps are derived: reasoned from the platform\'s documentation, not taken from it; rehearse them on a test cluster.'
  if (plan.confidence === 'heuristic') return 'The switch steps are heuristic: the platform documents no in-place switch kpx-check could verify; check with your provider.'
  return undefined
}

/** The sections of a long report (text, Markdown) that list findings; a passed or skipped finding is in none. */
export type FindingSection = 'Blockers' | 'Notes' | 'Unknown' | 'Waived' | 'Warnings'

/** The section that lists a finding. */
export function findingSection(finding: GatedFinding): FindingSection | undefined {
  if (isWaived(finding)) return 'Waived'
  if (finding.status === 'unknown') return 'Unknown'
  if (finding.status !== 'fail') return undefined
  return FAILED_SECTION[finding.severity]
}

const FAILED_SECTION = {blocker: 'Blockers', warning: 'Warnings', info: 'Notes'} as const satisfies Record<GatedFinding['severity'], FindingSection>

/** The section that lists the findings a plan step was made from (its rule's, with its status, not waived). */
export function stepFindingSection(findings: readonly GatedFinding[], step: StepFinding): FindingSection | undefined {
  const first = findings.find((finding) => finding.rule === step.rule && finding.status === step.status && !isWaived(finding))
  return first && findingSection(first)
}
