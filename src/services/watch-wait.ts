/** verify --watch's wait between its two reads of the nodes, the same for verify cluster and verify node. */
import {setTimeout as sleep} from 'node:timers/promises'

import {InterruptedError} from '../util/errors.js'

/**
 * Waits `seconds`, unless `signal` ends the wait first (Ctrl-C): it then rejects with the signal's InterruptedError, saying
 * what was waited for (`what`), since the wait made nothing on the nodes or in the cluster to clean up.
 */
export async function waitForSecondRead(seconds: number, signal: AbortSignal | undefined, what: string): Promise<void> {
  await sleep(seconds * 1000, undefined, signal ? {signal} : {}).catch(() => {
    throw interruption(signal, seconds, what)
  })
}

/** After the second read: a signal that came while it ran ends the command, not a report of half a watch. */
export function throwIfInterrupted(signal: AbortSignal | undefined, seconds: number, what: string): void {
  if (signal?.aborted) throw interruption(signal, seconds, what)
}

function interruption(signal: AbortSignal | undefined, seconds: number, what: string): unknown {
  const reason: unknown = signal?.reason
  return reason instanceof InterruptedError ? new InterruptedError(reason.signal, [], `${what} (--watch ${seconds}s)`) : reason
}
