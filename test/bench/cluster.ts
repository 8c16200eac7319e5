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
 * Targets: kpx-check within 1.5× the floor's wall time, and at most 512 MB peak RSS.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Worker} from 'node:worker_threads'

import {PACKAGE_ROOT} from '../../src/paths.js'
import {type ApiServer, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {RUN_JS} from '../helpers/paths.js'
import {benchCluster, ENDPOINTS_PER_SLICE, NODES, SERVICES, SLICES} from './big-cluster.js'
import type {FloorInput, FloorResult} from './floor.js'
import {type Measurement, measure, median} from './measure.js'

const RUNS = 3
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

/** Runs `run` RUNS times and keeps the median wall time, the highest peak RSS and the last run's requests. */
async function repeat(server: ApiServer, what: string, run: () => Promise<Measurement>): Promise<Row> {
  const runs: Measurement[] = []
  let requests = ''
  for (let index = 0; index < RUNS; index++) {
    const before = server.requests.length
    runs.push(await run())
    const received = server.requests.slice(before)
    requests = `${received.length}${received.every((request) => request.method === 'GET') ? '' : ' (not all GET)'}`
  }

  return {what, wallMs: median(runs.map((run) => run.wallMs)), peakRssMb: Math.max(...runs.map((run) => run.peakRssMb)), exitCode: runs.at(-1)!.exitCode, requests}
}

const kubectlInstalled = () => spawnSync('kubectl', ['version', '--client'], {stdio: 'ignore'}).error === undefined

const started = performance.now()
const server = await startApiServer({scenario: benchCluster()})
const dir = mkdtempSync(join(tmpdir(), 'kpx-bench-cluster-'))
const kubeconfig = writeKubeconfig(dir, server)
console.log(
  `kpx-check cluster against the test API server: ${NODES} nodes, ${SERVICES} services, ${SLICES} EndpointSlices × ${ENDPOINTS_PER_SLICE} endpoints` +
    ` (served from ${((performance.now() - started) / 1000).toFixed(1)} s); median of ${RUNS} runs; Node ${process.version}`,
)

const rows: Row[] = []
const floorRuns: FloorResult[] = []
for (let run = 0; run < RUNS; run++) floorRuns.push(await runFloor(server))
const floor: Row = {what: 'floor: GET every page (limit=500) + JSON.parse, 4 at a time', wallMs: median(floorRuns.map((run) => run.wallMs)), requests: String(floorRuns[0].requests)}
rows.push(floor)

let kpxCheck: Row | undefined
if (existsSync(CLUSTER_COMMAND)) {
  kpxCheck = await repeat(server, 'kpx-check cluster --kubeconfig FILE --json', () => measure(process.execPath, [RUN_JS, 'cluster', '--kubeconfig', kubeconfig, '--json']))
  rows.push(kpxCheck, await repeat(server, 'of which start-up: kpx-check --version', () => measure(process.execPath, [RUN_JS, '--version'])))
} else {
  console.log(`kpx-check cluster: not built yet (${CLUSTER_COMMAND} is missing)`)
}

if (kubectlInstalled()) {
  const cacheDir = join(dir, 'kubectl-cache')
  const args = ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, 'get', 'nodes,services,endpointslices', '-A', '-o', 'json']
  rows.push(await repeat(server, 'kubectl get nodes,services,endpointslices -A -o json', () => measure('kubectl', args)))
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
  const ratio = kpxCheck.wallMs / floor.wallMs
  const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED')
  console.log(
    `kpx-check / floor: ${ratio.toFixed(2)}× (target ≤ ${WALL_TARGET}×: ${verdict(ratio <= WALL_TARGET)}); ` +
      `peak RSS ${kpxCheck.peakRssMb!.toFixed(0)} MB (target ≤ ${RSS_TARGET_MB} MB: ${verdict(kpxCheck.peakRssMb! <= RSS_TARGET_MB)})`,
  )
}
