import {EXIT_CODES} from '../contract/exit-codes.js'
import {type GatedFinding, isWaived} from '../contract/finding.js'
import type {Summary, Verdict} from '../contract/report.js'

export interface GatePolicy {
  /** The lowest failed severity that fails the run: blockers only (default) or warnings too. */
  failOn: 'blocker' | 'warning'
  allowIncomplete: boolean
}

/** What the counts read of a finding, or of a node's check. */
type Counted = Pick<GatedFinding, 'severity' | 'status' | 'waiver'>

export function countFindings(findings: readonly Counted[]): Summary {
  const summary: Summary = {blockers: 0, warnings: 0, info: 0, unknown: 0, unknownBlockers: 0, passed: 0, skipped: 0, waived: 0}
  for (const finding of findings) {
    if (isWaived(finding)) {
      summary.waived++
      continue
    }

    switch (finding.status) {
      case 'fail': {
        if (finding.severity === 'blocker') summary.blockers++
        else if (finding.severity === 'warning') summary.warnings++
        else summary.info++
        break
      }

      case 'unknown': {
        summary.unknown++
        if (finding.severity === 'blocker') summary.unknownBlockers++
        break
      }

      case 'pass': {
        summary.passed++
        break
      }

      case 'skip': {
        summary.skipped++
        break
      }
    }
  }

  return summary
}

/** no-go if any blocker fails; else incomplete if any blocker is unknown; else go. */
export function verdictOf(summary: Summary): Verdict {
  if (summary.blockers > 0) return 'no-go'
  if (summary.unknownBlockers > 0) return 'incomplete'
  return 'go'
}

export function exitCodeOf(verdict: Verdict, summary: Summary, policy: GatePolicy): number {
  if (verdict === 'no-go') return EXIT_CODES.noGo
  if (verdict === 'incomplete' && !policy.allowIncomplete) return EXIT_CODES.incomplete
  if (policy.failOn === 'warning' && summary.warnings > 0) return EXIT_CODES.warnings
  return EXIT_CODES.go
}

/** Verdicts from the worst: a fleet's is the worst of its clusters'. */
const VERDICTS_WORST_FIRST: readonly Verdict[] = ['no-go', 'incomplete', 'go']
/** Exit codes from the worst: no-go, incomplete, warnings (--fail-on warning), go. */
const EXIT_CODES_WORST_FIRST: readonly number[] = [EXIT_CODES.noGo, EXIT_CODES.incomplete, EXIT_CODES.warnings, EXIT_CODES.go]

/** The worst of these verdicts; go for none. */
export function worstVerdict(verdicts: readonly Verdict[]): Verdict {
  return VERDICTS_WORST_FIRST.find((verdict) => verdicts.includes(verdict)) ?? 'go'
}

/** The worst of these exit codes (each one a verdict's, from exitCodeOf); go's for none. */
export function worstExitCode(codes: readonly number[]): number {
  return EXIT_CODES_WORST_FIRST.find((code) => codes.includes(code)) ?? EXIT_CODES.go
}

/** The exit code of a cluster that could not be checked: nothing about it is known, so it is incomplete (unless --allow-incomplete). */
export function uncheckedExitCode(policy: GatePolicy): number {
  return exitCodeOf('incomplete', countFindings([]), policy)
}
