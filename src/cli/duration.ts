/**
 * Durations as kubectl takes them (`--request-timeout 30s`): 30s, 2m, 1m30s, 1h, or a bare number of seconds as
 * before. One parser for every flag that takes seconds, and for the same keys in the configuration file.
 */
import * as Flags from '@oclif/core/flags'

import {UsageError} from '../util/errors.js'

/** Whole hours, minutes and seconds in that order, each at most once; or a bare number of seconds. */
const DURATION = /^(?:(\d+)|(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?)$/

/** The same shape for the configuration file's schema (a string there; a bare number is an integer). */
export const DURATION_PATTERN = String.raw`^(?:\d+|(?:\d+h)?(?:\d+m)?(?:\d+s)?)$`

/** Longer than any duration worth writing: beyond it, nothing is matched. */
const MAX_DURATION_LENGTH = 32

/** The longest a Node timer waits (2^31 - 1 ms, 24 days): a longer one would fire at once. */
const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000)

// A type, not an interface: oclif's custom options take an index signature.
export type DurationBounds = {max?: number; min?: number}

/** Seconds in `value`, or a usage error that names `flag` (`--request-timeout`, or where a file sets it). */
export function parseDuration(value: string, flag: string, bounds: DurationBounds = {}): number {
  const match = value.length <= MAX_DURATION_LENGTH && value !== '' ? DURATION.exec(value) : null
  if (!match) {
    throw new UsageError(`${flag} ${value}: expected a duration such as 30s, 2m or 1m30s (or a number of seconds)`, ['Units are h, m and s, largest first, in whole numbers.'])
  }

  const [seconds, hours, minutes, rest] = match.slice(1).map((part) => (part === undefined ? 0 : Number(part)))
  const total = seconds + hours * 3600 + minutes * 60 + rest
  const {max = MAX_TIMER_SECONDS, min = 0} = bounds
  if (total < min) throw new UsageError(`${flag} ${value}: expected at least ${min}s`)
  if (total > max) throw new UsageError(`${flag} ${value}: expected at most ${max}s`)
  return total
}

/** A flag that takes a duration, as a number of seconds; min and max in seconds. */
export const durationFlag = Flags.custom<number, DurationBounds>({
  multiple: false,
  helpValue: 'DURATION',
  parse: async (input, _context, flag) => parseDuration(input, `--${flag.name}`, flag),
})

/** Every duration flag shares this parse, which is how the configuration file tells one from a string flag. */
export const DURATION_PARSE = durationFlag().parse
