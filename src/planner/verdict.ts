import {type GatedFinding} from '../contract/finding.js'

export type Verdict = 'go' | 'incomplete' | 'no-go'

/**
 * The exit-code contract, in one place. CI pipelines gate on these; they hold with and without
 * --json, and `--help` lists them.
 */
export const EXIT_CODES = {
  go: 0,
  internalError: 1,
  usageError: 2,
  noGo: 3,
  warnings: 4,
  incomplete: 5,
} as const

export const EXIT_CODE_HELP = [
  `${EXIT_CODES.go}  go: nothing blocks the switch`,
  `${EXIT_CODES.internalError}  internal error in kpx-check`,
  `${EXIT_CODES.usageError}  usage or input error (bad flag, unreadable file, invalid rules or bundle)`,
  `${EXIT_CODES.noGo}  no-go: a blocker failed`,
  `${EXIT_CODES.warnings}  go with warnings, when --fail-on warning`,
  `${EXIT_CODES.incomplete}  incomplete: a blocker could not be checked (unless --allow-incomplete)`,
]

export interface Summary {
  blockers: number
  warnings: number
  info: number
  unknown: number
  /** Unknown findings of blocker severity: these make the verdict incomplete. */
  unknownBlockers: number
  passed: number
  skipped: number
  /** Failed or unknown findings a --waivers entry accepts: reported, not counted above. */
  waived: number
}

export interface GatePolicy {
  /** The lowest failed severity that fails the run: blockers only (default) or warnings too. */
  failOn: 'blocker' | 'warning'
  allowIncomplete: boolean
}

/** An active waiver accepts the finding: it is reported but not counted. An expired one counts again. */
export function isWaived(finding: GatedFinding): boolean {
  return finding.waiver !== undefined && !finding.waiver.expired
}

export function summarize(findings: readonly GatedFinding[]): Summary {
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
