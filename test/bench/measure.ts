/**
 * Measuring a command for the benchmarks: wall time around its child process, and peak RSS read
 * from /proc/<pid>/status (VmHWM) every 10 ms while it runs. Its stdout is read and dropped.
 */
import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'

export interface Measurement {
  wallMs: number
  peakRssMb: number
  exitCode: null | number
}

/** The process's peak resident set size so far, in MB; 0 once it has gone. */
export function peakRss(pid: number): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : 0
  } catch {
    return 0
  }
}

export function measure(command: string, args: string[]): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(command, args, {stdio: ['ignore', 'pipe', 'inherit']})
    let peak = 0
    const sampler = setInterval(() => (peak = Math.max(peak, peakRss(child.pid!))), 10)
    child.stdout.resume()
    child.on('error', reject)
    child.on('exit', (exitCode) => {
      clearInterval(sampler)
      resolve({wallMs: Number(process.hrtime.bigint() - started) / 1e6, peakRssMb: peak, exitCode})
    })
  })
}

export const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]
