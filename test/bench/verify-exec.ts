/**
 * `npm run bench`, verify part: `kpx-check verify cluster --node-probe exec --json` over 5,000 simulated nodes
 * (big-cluster.ts, each node with its running kube-proxy pod) at the default --concurrency (32). Figures: wall
 * time, kpx-check's own CPU time per node, API requests per node, peak RSS.
 *
 * Every exec is answered, once kpx-check has sent the script and closed stdin, with the collector's output on
 * the captured node running kube-proxy 1.36.2 in nftables mode (bundle-nftables.facts): kpx-check does for each
 * node what it does on a real cluster (the WebSocket, the script out, the bundle in, its facts, the checks).
 * A bench of a broken run measures nothing, so each run must verify every node and exit 0, or the bench fails.
 */
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {Report} from '../../src/contract/report.js'
import {startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {capturedBundle} from '../helpers/captured-bundles.js'
import {BENCH_SIZE, clusterWithKubeProxyPods} from './big-cluster.js'
import {type Measurement, measureServerRuns, median, type ServerRun} from './measure.js'

const RUNS = 3

/** The run verified every node (exit 0, each node's state `verified`), or why not. */
function checkVerified(run: Measurement, nodes: number): void {
  const report = JSON.parse(run.stdout!) as Report
  const notVerified = report.nodes.filter((node) => node.state !== 'verified')
  assert.equal(run.exitCode, 0, `exit ${run.exitCode}; states ${JSON.stringify(report.verify?.states)}; first not verified: ${JSON.stringify(notVerified[0])}`)
  assert.equal(report.nodes.length, nodes, 'a node missing from the report')
  assert.deepEqual(notVerified, [])
}

const nodes = BENCH_SIZE.nodes
const server = await startApiServer({
  scenario: clusterWithKubeProxyPods(),
  execReplay: {stdout: capturedBundle('nftables'), realRuns: 0},
})
const dir = mkdtempSync(join(tmpdir(), 'kpx-bench-verify-'))
const kubeconfig = writeKubeconfig(dir, server)
console.log(
  `kpx-check verify cluster --node-probe exec over ${nodes.toLocaleString('en')} simulated nodes (${BENCH_SIZE.services.toLocaleString('en')} Services); ` +
    `every exec answers with the captured nftables node's collector output; median of ${RUNS} runs; Node ${process.version}`,
)
let runs: ServerRun[]
try {
  runs = await measureServerRuns(server, ['verify', 'cluster', '--kubeconfig', kubeconfig, '--node-probe', 'exec', '--json'], {count: RUNS, keepStdout: true, check: (run) => checkVerified(run, nodes)})
} finally {
  await server.close()
  rmSync(dir, {recursive: true, force: true})
}

console.log(`every run: all ${nodes.toLocaleString('en')} nodes verified, exit 0`)
const cpu = median(runs.map((run) => run.cpuMs))
const {requests} = runs.at(-1)!
console.log('what                                    wall s  CPU s  CPU ms/node  requests/node  peak RSS MB')
console.log(
  `${'verify cluster --node-probe exec'.padEnd(38)}  ${(median(runs.map((run) => run.wallMs)) / 1000).toFixed(1).padStart(6)}  ${(cpu / 1000).toFixed(1).padStart(5)}  ` +
    `${(cpu / nodes).toFixed(2).padStart(11)}  ${(requests / nodes).toFixed(2).padStart(13)}  ${Math.max(...runs.map((run) => run.peakRssMb)).toFixed(0).padStart(11)}`,
)
