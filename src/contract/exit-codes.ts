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
