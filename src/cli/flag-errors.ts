/**
 * oclif's command-line parse errors, said in two lines: what is wrong (with the flag meant, for a typo), and where the
 * help is. oclif's own print the error and then the command's whole help (160 lines for `cluster`), which scrolls the
 * error off the screen; and its flag-value errors carry a tab that is shown as `\t`.
 */
import {stripVTControlCharacters} from 'node:util'

import {UsageError} from '../util/errors.js'
import {closestWord} from './did-you-mean.js'

/** What oclif appends to every parse error. */
const SEE_HELP = '\nSee more help with --help'

/** oclif's wrapping of an error thrown by a flag's parse. */
const FLAG_PARSE_FAILED = /^Parsing (--[\w-]+) \n\t([\s\S]*)\nSee more help with --help$/

/** oclif's header above the reasons of flags that cannot go together, or that need another. */
const FAILED_VALIDATION = /^The following errors? occurred:\n/

/** kubectl's flags that kpx-check has no use for, and what to do instead. */
const KUBECTL_FLAGS: Record<string, string> = {
  '-n': 'kpx-check reads the namespaces it needs itself',
  '--namespace': 'kpx-check reads the namespaces it needs itself',
  '-A': 'kpx-check reads the namespaces it needs itself',
  '--all-namespaces': 'kpx-check reads the namespaces it needs itself',
  '--as': 'use a kubeconfig context with those credentials (--context)',
  '--as-group': 'use a kubeconfig context with those credentials (--context)',
  '--cluster': 'pick the cluster with --context',
  '--user': 'pick the credentials with --context',
  '--server': 'give the API server in a kubeconfig (--kubeconfig, --context)',
  '-s': 'give the API server in a kubeconfig (--kubeconfig, --context)',
  '--token': 'give the token in a kubeconfig (--kubeconfig, --context)',
}

/** A flag as the command defines it: what a typo is compared with. */
interface KnownFlag {
  hidden?: boolean
}

type ParseError = Error & {flags?: unknown; suggestions?: string[]}

/** What to say of one flag the command does not have: the flag meant, or kubectl's habit and what to do. */
function unknownFlagHint(typed: string, known: Record<string, KnownFlag>): string | undefined {
  if (typed in KUBECTL_FLAGS) return KUBECTL_FLAGS[typed]
  const names = Object.entries(known)
    .filter(([, flag]) => !flag.hidden)
    .map(([name]) => `--${name}`)
  // Compared without the dashes, which every candidate shares.
  const meant = typed.startsWith('--') ? closestWord(typed.slice(2), names.filter((name) => name.startsWith('--')).map((name) => name.slice(2))) : undefined
  return meant && `did you mean --${meant}?`
}

/**
 * The parse error oclif threw, as a usage error of at most two lines (the error, then where the help is), or
 * undefined when it is not one. `command` is how the command is typed (`kpx-check cluster`).
 */
export function conciseParseError(error: ParseError, known: Record<string, KnownFlag>, command: string): UsageError | undefined {
  const help = `${command} --help lists its flags.`
  const failedValue = FLAG_PARSE_FAILED.exec(error.message)
  if (failedValue) {
    const [, flag, message] = failedValue
    // A value our own parse refused already names its flag and says what to do.
    const said = message.includes(flag) ? message : `${flag}: ${message}`
    return new UsageError(said, error instanceof UsageError ? error.suggestions : [help])
  }

  // Said by oclif's parser as a CLIError (ours, once said again, is a UsageError).
  if (!(error instanceof UsageError) && /^Flag --[\w-]+ expects a value$/.test(error.message)) return new UsageError(error.message, [help])
  if (!error.message.endsWith(SEE_HELP)) return undefined
  if (Array.isArray(error.flags)) {
    const typed = error.flags.map((flag) => String(flag).replace(/=.*$/s, ''))
    const hints = typed.map((flag) => [flag, unknownFlagHint(flag, known)] as const).filter(([, hint]) => hint !== undefined)
    const which = typed.length === 1 ? `flag ${typed[0]}` : `flags ${typed.join(', ')}`
    const said = hints.length === 1 && typed.length === 1 ? `: ${hints[0][1]}` : hints.map(([flag, hint]) => `; ${flag}: ${hint}`).join('')
    return new UsageError(`${command} has no ${which}${said}`, [help])
  }

  const message = error.message.slice(0, -SEE_HELP.length)
  // oclif dims the reasons on a terminal: the escapes would be shown as text.
  const plain = stripVTControlCharacters(message)
  const reasons = FAILED_VALIDATION.test(plain) ? plain.replace(FAILED_VALIDATION, '').split('\n').map((line) => line.trim()).join('; ') : plain
  return new UsageError(reasons, [help])
}
