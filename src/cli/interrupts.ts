import {InterruptedError} from '../util/errors.js'

// SIGHUP: the terminal the run was started from closed (an SSH session dropped, a window shut).
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/**
 * Runs `work` with SIGINT, SIGTERM and SIGHUP turned into an abort of its signal, whose reason is an
 * InterruptedError (exit 130, 143 or 129): what the work made in the cluster is deleted before the command
 * ends, without process.exit. The first signal only asks; a second one finds Node's default again and
 * ends the process at once.
 */
export async function withInterrupts<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController()
  const handlers = SIGNALS.map((signal) => {
    const handler = () => {
      release()
      controller.abort(new InterruptedError(signal))
    }

    process.on(signal, handler)
    return [signal, handler] as const
  })
  const release = () => {
    for (const [signal, handler] of handlers) process.off(signal, handler)
  }

  try {
    return await work(controller.signal)
  } finally {
    release()
  }
}
