import {InterruptedError} from '../util/errors.js'

const SIGNALS = ['SIGINT', 'SIGTERM'] as const

/**
 * Runs `work` with SIGINT and SIGTERM turned into an abort of its signal, whose reason is an
 * InterruptedError (exit 130 or 143): what the work made in the cluster is deleted before the command
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
