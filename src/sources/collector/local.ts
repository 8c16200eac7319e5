import {spawn} from 'node:child_process'

import {COLLECTOR_SCRIPT} from '../../util/paths.js'

export interface CollectorRun {
  ok: boolean
  stdout: string
  /** Why the run failed, for the node's `reason`. */
  reason?: string
}

/** Runs the collector on this machine with `sh`, bounded by `timeoutMs`. */
export function runCollectorLocally(timeoutMs: number): Promise<CollectorRun> {
  return new Promise((resolve) => {
    const child = spawn('sh', [COLLECTOR_SCRIPT], {stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL'})
    const stdout: Buffer[] = []
    const stderr: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
    child.on('error', (error) => resolve({ok: false, stdout: '', reason: `could not run sh: ${error.message}`}))
    child.on('close', (code, signal) => {
      const text = Buffer.concat(stdout).toString('utf8')
      if (code === 0) return resolve({ok: true, stdout: text})
      const why = signal ? `killed by ${signal} after ${timeoutMs / 1000}s` : `exited ${code}`
      const detail = Buffer.concat(stderr).toString('utf8').trim().split('\n').at(-1) ?? ''
      resolve({ok: false, stdout: text, reason: `collector ${why}${detail ? `: ${detail}` : ''}`})
    })
  })
}
