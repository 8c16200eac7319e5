/**
 * Running the collector on a node over an open session. The script travels on standard input to
 * `sh -s`; the command line is one of two constants, so nothing from a host name, an inventory
 * or a flag ever reaches a remote shell.
 */
import {collectorFailed, type CollectorRun} from '../collector/local.js'
import type {CommandResult, SshSession} from './session.js'

const COLLECTOR_COMMAND = 'sh -s'
/** `-n`: sudo must fail rather than wait for a password nobody will type. */
const SUDO_COLLECTOR_COMMAND = 'sudo -n sh -s'

export type RemoteCollectorRun = CollectorRun & {
  /** Why `sudo -n` did not run the collector, when --sudo fell back to running it as the login user. */
  sudoRefused?: string
}

export async function runRemoteCollector(session: SshSession, script: Buffer, sudo: boolean): Promise<RemoteCollectorRun> {
  if (sudo) {
    const privileged = await session.run(SUDO_COLLECTOR_COMMAND, script, 'while the collector ran under sudo')
    const refusal = sudoRefusal(privileged)
    if (!refusal) return outcome(privileged)
    // Without root the collector still reads most facts; the root-only ones become unknown with the refusal as the reason.
    return {...outcome(await session.run(COLLECTOR_COMMAND, script, 'while the collector ran')), sudoRefused: refusal}
  }

  return outcome(await session.run(COLLECTOR_COMMAND, script, 'while the collector ran'))
}

/** Why sudo itself refused (the collector never started), or undefined when it ran. */
function sudoRefusal(result: CommandResult): string | undefined {
  if (result.exitCode === 0 || result.stdout.length > 0) return undefined
  if (/password is required|terminal is required|askpass/i.test(result.stderr)) return 'sudo -n needs a password'
  if (result.exitCode === 127 && /sudo.*not found/i.test(result.stderr)) return 'sudo is not installed'
  if (/not allowed to execute|not in the sudoers|may not run sudo/i.test(result.stderr)) return `sudo refused: ${lastLine(result.stderr)}`
  return undefined
}

function outcome(result: CommandResult): CollectorRun {
  if (result.exitCode === 0) return {ok: true, stdout: result.stdout.toString('utf8')}
  const why = result.signal ? `killed by ${result.signal}` : `exited ${result.exitCode}`
  const detail = lastLine(result.stderr)
  return collectorFailed(`${why}${detail ? `: ${detail}` : ''}`)
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.trim() ?? ''
}
