/**
 * `npm run bench`, second part: how fast and how lean `kpx-check cluster` reads a large cluster
 * from the test API server (test/helpers/apiserver.ts): 5,000 Nodes, 30,000 Services and 3,000
 * EndpointSlices of 100 endpoints each (300,000 endpoints), with the kube-proxy and VPC CNI
 * DaemonSets and ConfigMaps of the eks-old-vpc-cni scenario. Each figure is the median of RUNS:
 *
 * - floor: what the command reads and nothing else (floor.ts, in a worker thread);
 * - `kpx-check cluster --kubeconfig FILE --json` in a child process: wall time and peak RSS;
 * - `kubectl get nodes,services,endpointslices -A -o json` against the same server, if installed.
 *
 * Floor and kpx-check runs alternate, and each kpx-check run is compared with the floor runs just
 * before and after it: on a shared machine the load drifts, and it then moves both.
 *
 * Targets: kpx-check within 1.5× the floor's wall time, and at most 512 MB peak RSS.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Worker} from 'node:worker_threads'

import {PACKAGE_ROOT} from '../../src/util/paths.js'
import {type ApiServer, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {RUN_JS} from '../helpers/paths.js'
import {BENCH_SIZE, benchCluster} from './big-cluster.js'
import type {FloorInput, FloorResult} from './floor.js'
import {measure, type Measurement, median} from './measure.js'

const RUNS = 5
/** kubectl takes about 40 s a run, and kpx-check is not compared with it: three runs will do. */
const KUBECTL_RUNS = 3
const WALL_TARGET = 1.5
const RSS_TARGET_MB = 512
const CLUSTER_COMMAND = join(PACKAGE_ROOT, 'dist', 'src', 'commands', 'cluster.js')

function runFloor(server: ApiServer): Promise<FloorResult> {
  const input: FloorInput = {url: server.url, ca: server.ca, token: server.token}
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('floor.js', import.meta.url), {workerData: input})
    worker.once('message', resolve)
    worker.once('error', reject)
  })
}

interface Row {
  what: string
  wallMs: number
  peakRssMb?: number
  exitCode?: null | number
  /** Requests the server received in one run, and whether all were GETs. */
  requests: string
}

/** Runs `run` and notes the requests the server received meanwhile, and whether all were GETs. */
async function counted(server: ApiServer, run: () => Promise<Measurement>): Promise<{measurement: Measurement; requests: string}> {
  const before = server.requests.length
  const measurement = await run()
  const received = server.requests.slice(before)
  return {measurement, requests: `${received.length}${received.every((request) => request.method === 'GET') ? '' : ' (not all GET)'}`}
}

/** The median wall time, the highest peak RSS, and the last run's exit code and requests. */
function summary(what: string, runs: Array<{measurement: Measurement; requests: string}>): Row {
  const measurements = runs.map((run) => run.measurement)
  return {
    what,
    wallMs: median(measurements.map((run) => run.wallMs)),
    peakRssMb: Math.max(...measurements.map((run) => run.peakRssMb)),
    exitCode: measurements.at(-1)!.exitCode,
    requests: runs.at(-1)!.requests,
  }
}

/** `runs` runs of `run`, summed up as a table row. */
async function repeat(server: ApiServer, what: string, run: () => Promise<Measurement>, runs = RUNS): Promise<Row> {
  const results = []
  for (let index = 0; index < runs; index++) results.push(await counted(server, run))
  return summary(what, results)
}

const kubectlInstalled = () => spawnSync('kubectl', ['version', '--client'], {stdio: 'ignore'}).error === undefined

const started = performance.now()
const server = await startApiServer({scenario: benchCluster()})
const dir = mkdtempSync(join(tmpdir(), 'kpx-bench-cluster-'))
const kubeconfig = writeKubeconfig(dir, server)
console.log(
  `kpx-check cluster against the test API server: ${BENCH_SIZE.nodes} nodes, ${BENCH_SIZE.services} services, ${BENCH_SIZE.slices} EndpointSlices × ${BENCH_SIZE.endpointsPerSlice} endpoints` +
    ` (served from ${((performance.now() - started) / 1000).toFixed(1)} s); median of ${RUNS} runs (kubectl: ${KUBECTL_RUNS}); Node ${process.version}`,
)

const built = existsSync(CLUSTER_COMMAND)
if (!built) console.log(`kpx-check cluster: not built yet (${CLUSTER_COMMAND} is missing)`)
// floor, kpx-check, floor, kpx-check, …, floor: each kpx-check run sits between two floor runs.
const floorRuns: FloorResult[] = [await runFloor(server)]
const kpxRuns: Array<{measurement: Measurement; requests: string}> = []
const ratios: number[] = []
for (let run = 0; run < RUNS; run++) {
  if (built) kpxRuns.push(await counted(server, () => measure(process.execPath, [RUN_JS, 'cluster', '--kubeconfig', kubeconfig, '--json'])))
  floorRuns.push(await runFloor(server))
  if (built) ratios.push(kpxRuns[run].measurement.wallMs / ((floorRuns[run].wallMs + floorRuns[run + 1].wallMs) / 2))
}

const floor: Row = {what: 'floor: GET every page (~2 MB each) + JSON.parse, 4 at a time', wallMs: median(floorRuns.map((run) => run.wallMs)), requests: String(floorRuns[0].requests)}
const rows: Row[] = [floor]
const kpxCheck = built ? summary('kpx-check cluster --kubeconfig FILE --json', kpxRuns) : undefined
if (kpxCheck) rows.push(kpxCheck, await repeat(server, 'of which start-up: kpx-check --version', () => measure(process.execPath, [RUN_JS, '--version'])))

if (kubectlInstalled()) {
  const cacheDir = join(dir, 'kubectl-cache')
  const args = ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, 'get', 'nodes,services,endpointslices', '-A', '-o', 'json']
  rows.push(await repeat(server, 'kubectl get nodes,services,endpointslices -A -o json', () => measure('kubectl', args), KUBECTL_RUNS))
} else {
  console.log('kubectl not installed')
}

await server.close()
rmSync(dir, {recursive: true, force: true})

const width = Math.max(...rows.map((row) => row.what.length))
console.log(`${'what'.padEnd(width)}  wall ms  peak RSS MB  exit  requests`)
for (const row of rows) {
  const rss = row.peakRssMb === undefined ? '-' : row.peakRssMb.toFixed(0)
  const exit = row.exitCode === undefined ? '-' : String(row.exitCode)
  console.log(`${row.what.padEnd(width)}  ${row.wallMs.toFixed(0).padStart(7)}  ${rss.padStart(11)}  ${exit.padStart(4)}  ${row.requests.padStart(8)}`)
}

console.log(`floor: ${floorRuns[0].items} items read`)
if (kpxCheck) {
  const ratio = median([...ratios])
  const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED')
  console.log(
    `kpx-check / floor: ${ratio.toFixed(2)}× median of the runs (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}; target ≤ ${WALL_TARGET}×: ${verdict(ratio <= WALL_TARGET)}); ` +
      `peak RSS ${kpxCheck.peakRssMb!.toFixed(0)} MB (target ≤ ${RSS_TARGET_MB} MB: ${verdict(kpxCheck.peakRssMb! <= RSS_TARGET_MB)})`,
  )
}
