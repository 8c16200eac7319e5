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
import {closestWord} from './did-you-mean.js'

const hook: Hook.CommandNotFound = async function ({config, id}) {
  const visible = config.commands.filter((command) => !command.hidden).flatMap((command) => [command.id, ...command.aliases])
  const typed = toConfiguredId(id, config)
  const suggestion = closestWord(typed, visible.map((command) => toConfiguredId(command, config)))
  const notACommand = `${printable(typed)} is not a ${config.bin} command`
  throw new Errors.CLIError(suggestion ? `${notACommand}: did you mean ${suggestion}?` : `${notACommand}.`, {
    exit: EXIT_CODES.usageError,
    suggestions: [`Run ${config.bin} help for the list of commands.`],
  })
}

export default hook
