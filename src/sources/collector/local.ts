import {spawn} from 'node:child_process'

import {COLLECTOR_SCRIPT} from '../../util/paths.js'
import type {ProbeFailure} from '../probe.js'

/** What the collector printed, or why its run failed. */
export type CollectorRun = {failure: ProbeFailure; ok: false} | {ok: true; stdout: string}

/** A run of the collector that failed: `collector: why`. */
export function collectorFailed(detail: string): CollectorRun {
  return {ok: false, failure: {class: 'collector', detail}}
}

/** Runs the collector on this machine with `sh`, bounded by `timeoutMs`. */
export function runCollectorLocally(timeoutMs: number): Promise<CollectorRun> {
  return new Promise((resolve) => {
    const child = spawn('sh', [COLLECTOR_SCRIPT], {stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL'})
    const stdout: Buffer[] = []
    const stderr: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
    child.on('error', (error) => resolve(collectorFailed(`could not run sh: ${error.message}`)))
    child.on('close', (code, signal) => {
      if (code === 0) return resolve({ok: true, stdout: Buffer.concat(stdout).toString('utf8')})
      const why = signal ? `killed by ${signal} after ${timeoutMs / 1000}s` : `exited ${code}`
      const detail = Buffer.concat(stderr).toString('utf8').trim().split('\n').at(-1) ?? ''
      resolve(collectorFailed(`${why}${detail ? `: ${detail}` : ''}`))
    })
  })
}
