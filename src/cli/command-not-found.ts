/**
 * oclif's `command_not_found` hook: a mistyped command is a usage error (exit 2, as the exit-code
 * table says) that names the closest command. @oclif/plugin-not-found is not used: it exits 127 and,
 * when stdin is not a terminal (CI logs, scripts), says no suggestion at all; on a terminal it asks,
 * and runs the suggestion on Enter.
 */
import * as Errors from '@oclif/core/errors'
import type {Hook} from '@oclif/core/hooks'
import {toConfiguredId} from '@oclif/core/util/ids'

import {EXIT_CODES} from '../contract/exit-codes.js'
import {printable} from '../report/printable.js'

/** Longer than any command: what is typed beyond this is not a typo of one, and is not compared. */
const MAX_COMPARED_LENGTH = 64

/** Levenshtein distance (insertions, deletions, substitutions), one row at a time. */
function editDistance(from: string, to: string): number {
  let previous = Array.from({length: to.length + 1}, (_, index) => index)
  for (let i = 1; i <= from.length; i++) {
    const current = [i]
    for (let j = 1; j <= to.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (from[i - 1] === to[j - 1] ? 0 : 1))
    }

    previous = current
  }

  return previous[to.length]
}

/** The command `typed` is most likely a typo of: at most half its letters off, else none. */
function closestCommand(typed: string, commands: readonly string[]): string | undefined {
  if (typed.length > MAX_COMPARED_LENGTH) return undefined
  const ranked = commands.map((command) => ({command, distance: editDistance(typed, command)})).toSorted((a, b) => a.distance - b.distance)
  const best = ranked[0]
  return best && best.distance <= Math.ceil(typed.length / 2) ? best.command : undefined
}

const hook: Hook.CommandNotFound = async function ({config, id}) {
  const visible = config.commands.filter((command) => !command.hidden).flatMap((command) => [command.id, ...command.aliases])
  const typed = toConfiguredId(id, config)
  const suggestion = closestCommand(typed, visible.map((command) => toConfiguredId(command, config)))
  const notACommand = `${printable(typed)} is not a ${config.bin} command`
  throw new Errors.CLIError(suggestion ? `${notACommand}: did you mean ${suggestion}?` : `${notACommand}.`, {
    exit: EXIT_CODES.usageError,
    suggestions: [`Run ${config.bin} help for the list of commands.`],
  })
}

export default hook
