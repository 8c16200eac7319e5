import {EXIT_CODES} from '../contract/exit-codes.js'

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
