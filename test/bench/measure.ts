/**
 * Measuring a command for the benchmarks: wall time around its child process, and peak RSS read
 * from /proc/<pid>/status (VmHWM) and CPU time from /proc/<pid>/stat (user + system) every 10 ms while
 * it runs (the CPU of its last 10 ms is missed). Its stdout is read and dropped, or kept when asked (to check
 * that the run measured gave the right answer).
 */
import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'

import type {ApiServer} from '../helpers/apiserver.js'
import {RUN_JS} from '../helpers/paths.js'

export interface Measurement {
  wallMs: number
  peakRssMb: number
  /** User and system CPU time, ms, as last sampled. */
  cpuMs: number
  exitCode: null | number
  /** What it wrote on stdout, with `keepStdout`. */
  stdout?: string
}

/** Clock ticks a second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100

/** The process's user and system CPU time so far, in ms; 0 once it has gone. */
function cpuTime(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND
  } catch {
    return 0
  }
}

/** The process's peak resident set size so far, in MB; 0 once it has gone. */
function peakRss(pid: number): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : 0
  } catch {
    return 0
  }
}

export function measure(command: string, args: string[], {keepStdout = false} = {}): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(command, args, {stdio: ['ignore', 'pipe', 'inherit']})
    let peak = 0
    let cpu = 0
    const sampler = setInterval(() => {
      peak = Math.max(peak, peakRss(child.pid!))
      cpu = Math.max(cpu, cpuTime(child.pid!))
    }, 10)
    const chunks: Buffer[] = []
    if (keepStdout) child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    else child.stdout.resume()
    child.on('error', reject)
    child.on('close', (exitCode) => { // after its stdout has been read to the end
      clearInterval(sampler)
      const measurement = {wallMs: Number(process.hrtime.bigint() - started) / 1e6, peakRssMb: peak, cpuMs: cpu, exitCode}
      resolve(keepStdout ? {...measurement, stdout: Buffer.concat(chunks).toString('utf8')} : measurement)
    })
  })
}

/** A run of kpx-check against the test API server, measured, with the API requests the server received meanwhile. */
export type ServerRun = Measurement & {requests: number}

/**
 * `count` runs of `kpx-check ARGS` (bin/run.js) against the test API server, one after the other, each measured with
 * its requests. `check` sees each run as it ends, and throws when it answered wrong: a broken run measures nothing.
 */
export async function measureServerRuns(
  server: ApiServer,
  args: string[],
  {count, keepStdout = false, check}: {count: number; keepStdout?: boolean; check?: (run: ServerRun, index: number) => void},
): Promise<ServerRun[]> {
  const runs: ServerRun[] = []
  for (let index = 0; index < count; index++) {
    const before = server.requests.length
    const measured = await measure(process.execPath, [RUN_JS, ...args], {keepStdout})
    runs.push({...measured, requests: server.requests.length - before})
    check?.(runs[index], index)
  }

  return runs
}

export const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]
