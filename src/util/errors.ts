import {EXIT_CODES} from '../contract/exit-codes.js'
import type {ClusterAccessReason} from '../contract/fleet.js'

/**
 * A mistake the user can fix (bad flag value, unreadable or malformed input, invalid rule file).
 * Exits 2, with what to do next.
 */
export class UsageError extends Error {
  readonly exitCode = EXIT_CODES.usageError

  constructor(
    message: string,
    readonly suggestions: string[] = [],
  ) {
    super(message)
    this.name = 'UsageError'
  }
}

/**
 * A cluster that cannot be used: its kubeconfig context is broken, or its API server cannot be reached, does not
 * trust-check, or refuses the credentials. One cluster's usage error (exit 2, named UsageError as before); in a
 * fleet, that cluster's entry, with `reason`, while the other clusters are checked.
 */
export class ClusterAccessError extends UsageError {
  constructor(
    readonly reason: ClusterAccessReason,
    message: string,
    suggestions: string[] = [],
  ) {
    super(message, suggestions)
  }
}

/** What a probe could not delete of what it made, and what becomes of it. */
export function leftBehindSentence(leftBehind: readonly string[]): string {
  return `could not delete what it made: ${leftBehind.join('; ')}. A probe pod ends at its activeDeadlineSeconds, and the next run with --node-probe pod deletes it (by hand: kubectl delete pod -A -l app.kubernetes.io/managed-by=kpx-check)`
}

/** Exit codes of a run stopped by a signal, as a shell reports them: 128 + the signal's number. */
const SIGNAL_EXIT_CODES = {SIGHUP: 129, SIGINT: 130, SIGTERM: 143} as const

/**
 * A run stopped by SIGINT, SIGTERM or SIGHUP after it deleted what it had made in the cluster, or tried to:
 * `leftBehind` names what it could not delete, with why; `waiting`, what it was waiting for when it made nothing
 * there to delete (verify --watch). Exits 130, 143 or 129.
 */
export class InterruptedError extends Error {
  readonly exitCode: number

  constructor(
    readonly signal: keyof typeof SIGNAL_EXIT_CODES,
    readonly leftBehind: readonly string[] = [],
    waiting?: string,
  ) {
    let done = leftBehind.length === 0 ? 'the probe pods it made (and their namespace) are deleted' : leftBehindSentence(leftBehind)
    if (waiting !== undefined) done = `it was waiting for ${waiting}`
    super(`stopped by ${signal}; ${done}`)
    this.name = 'InterruptedError'
    this.exitCode = SIGNAL_EXIT_CODES[signal]
  }
}
