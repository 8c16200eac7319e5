/**
 * `npm run bench`, fleet part: `kpx-check cluster --all-contexts` over FLEET_SIZE test API servers (the aks
 * scenario each, every answer LATENCY_MS late, as a remote API server is), at several --cluster-concurrency
 * values, beside one of those clusters alone. Each figure is the median of RUNS, in a child process: wall
 * time and peak RSS. What it shows: the clusters' waits overlap, so a fleet at concurrency N costs about
 * FLEET_SIZE / N clusters' time, and memory grows with the reports held, not with the concurrency.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {startApiServer, writeContexts} from '../helpers/apiserver.js'
import {RUN_JS} from '../helpers/paths.js'
import {measure, type Measurement, median} from './measure.js'

const FLEET_SIZE = 12
const LATENCY_MS = 50
const RUNS = 3

const servers = await Promise.all(Array.from({length: FLEET_SIZE}, () => startApiServer({scenario: 'aks', faults: [{path: /./, kind: 'slow', delayMs: LATENCY_MS}]})))
const dir = mkdtempSync(join(tmpdir(), 'kpx-bench-fleet-'))
const kubeconfig = writeContexts(dir, servers.map((server, index) => ({name: `cluster-${index + 1}`, server, token: server.token})))
console.log(`kpx-check cluster over ${FLEET_SIZE} test API servers (aks scenario, every answer ${LATENCY_MS} ms late); median of ${RUNS} runs; Node ${process.version}`)

async function row(what: string, args: string[]): Promise<string> {
  const runs: Measurement[] = []
  for (let run = 0; run < RUNS; run++) runs.push(await measure(process.execPath, [RUN_JS, 'cluster', '--kubeconfig', kubeconfig, '--json', ...args]))
  const wall = median(runs.map((run) => run.wallMs)).toFixed(0)
  const rss = Math.max(...runs.map((run) => run.peakRssMb)).toFixed(0)
  return `${what.padEnd(44)}  ${wall.padStart(7)}  ${rss.padStart(11)}  ${String(runs.at(-1)!.exitCode).padStart(4)}`
}

const rows = [await row('one cluster: --context cluster-1', ['--context', 'cluster-1'])]
for (const concurrency of [1, 4, FLEET_SIZE]) rows.push(await row(`--all-contexts --cluster-concurrency ${concurrency}`, ['--all-contexts', '--cluster-concurrency', String(concurrency)]))
await Promise.all(servers.map((server) => server.close()))
rmSync(dir, {recursive: true, force: true})

console.log(`${'what'.padEnd(44)}  wall ms  peak RSS MB  exit`)
for (const line of rows) console.log(line)
