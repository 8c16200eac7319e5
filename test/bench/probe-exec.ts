/**
 * `npm run bench`, exec part: `kpx-check cluster --node-probe exec --json` over 5,000 simulated nodes
 * (big-cluster.ts: 5,000 Nodes, 30,000 Services, 3,000 EndpointSlices), each with its running kube-proxy
 * pod, at the default --concurrency (32); beside it, the same with --kube-proxy-metrics (two pods/proxy
 * GETs a node). Figures: wall time, kpx-check's own CPU time (user + system, /proc/<pid>/stat) per node,
 * API requests per node (the test API server counts them), peak RSS.
 *
 * What the simulated kubelet runs: the test API server answers pods/exec by running the real collector
 * under sh with the kube-proxy image's tools (apiserver-exec.ts). That costs about 0.3 CPU-seconds a run
 * here: 5,000 runs on this machine's 2 cores would take over 12 minutes and measure the collector, not
 * kpx-check. So only the first REAL_RUNS execs of a run run the collector; every later one is answered,
 * once kpx-check has sent the script and closed stdin, with the output of one real run recorded at the
 * start (this machine seen from inside a kube-proxy container). kpx-check does the same work for each
 * node either way: the WebSocket, the 40 KB script out, the bundle in, parsing and deriving its facts.
 * The API server, its recorded answers and the real collector runs share the 2 cores with kpx-check.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {COLLECTOR_SCRIPT} from '../../src/util/paths.js'
import {imageToolsFolder} from '../helpers/apiserver-exec.js'
import {type ApiServer, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {startKubeProxyStandIn} from '../helpers/kube-proxy-stand-in.js'
import {FIXTURES} from '../helpers/paths.js'
import {BENCH_SIZE, clusterWithKubeProxyPods} from './big-cluster.js'
import {measureServerRuns, median, type ServerRun} from './measure.js'

const RUNS = 3
/** Execs of a run that run the real collector: the first wave at the default concurrency. */
const REAL_RUNS = 32

/** One run of the collector as the exec endpoint runs it: `sh -s kube-proxy-pod` with the image's tools only. */
async function recordCollectorOutput(): Promise<string> {
  const tools = await imageToolsFolder()
  try {
    return await new Promise((resolve, reject) => {
      const child = spawn(join(tools.dir, 'sh'), ['-s', 'kube-proxy-pod'], {argv0: '/bin/sh', cwd: '/', env: {PATH: tools.dir}, stdio: ['pipe', 'pipe', 'ignore']})
      let stdout = ''
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
      child.on('error', reject)
      child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`the collector exited ${code}`))))
      child.stdin.end(readFileSync(COLLECTOR_SCRIPT))
    })
  } finally {
    await tools.remove()
  }
}

interface Row {
  what: string
  runs: ServerRun[]
}

async function row(server: ApiServer, kubeconfig: string, what: string, args: string[]): Promise<Row> {
  return {what, runs: await measureServerRuns(server, ['cluster', '--kubeconfig', kubeconfig, '--node-probe', 'exec', '--json', ...args], {count: RUNS})}
}

// The collector finds kube-proxy's process in its container; a stand-in runs meanwhile, as in the exec tests.
const kubeProxy = await startKubeProxyStandIn([])
const recorded = await recordCollectorOutput()
const metricsPage = readFileSync(join(FIXTURES, 'kube-proxy-metrics', 'iptables-localhost-nodeports-unused.prom'), 'utf8')
const server = await startApiServer({
  scenario: clusterWithKubeProxyPods(),
  execReplay: {stdout: recorded, realRuns: REAL_RUNS},
  podHttp: {port: 10_249, paths: {'/proxyMode': 'iptables', '/metrics': metricsPage}},
})
const dir = mkdtempSync(join(tmpdir(), 'kpx-bench-exec-'))
const kubeconfig = writeKubeconfig(dir, server)
const nodes = BENCH_SIZE.nodes
console.log(
  `kpx-check cluster --node-probe exec over ${nodes.toLocaleString('en')} simulated nodes (${BENCH_SIZE.services.toLocaleString('en')} Services); ` +
    `the first ${REAL_RUNS} execs of each run run the collector, the others answer with its recorded output (${recorded.length.toLocaleString('en')} characters); ` +
    `median of ${RUNS} runs; Node ${process.version}`,
)
const rows = [await row(server, kubeconfig, '--node-probe exec', []), await row(server, kubeconfig, '--node-probe exec --kube-proxy-metrics', ['--kube-proxy-metrics'])]
await server.close()
kubeProxy.kill('SIGKILL')
rmSync(dir, {recursive: true, force: true})

console.log(`${'what'.padEnd(40)}  wall s  CPU s  CPU ms/node  requests/node  peak RSS MB  exit`)
for (const {what, runs} of rows) {
  const {requests} = runs.at(-1)!
  const wall = (median(runs.map((run) => run.wallMs)) / 1000).toFixed(1)
  const cpu = median(runs.map((run) => run.cpuMs))
  const rss = Math.max(...runs.map((run) => run.peakRssMb)).toFixed(0)
  console.log(
    `${what.padEnd(40)}  ${wall.padStart(6)}  ${(cpu / 1000).toFixed(1).padStart(5)}  ${(cpu / nodes).toFixed(2).padStart(11)}  ${(requests / nodes).toFixed(2).padStart(13)}  ${rss.padStart(11)}  ${String(runs.at(-1)!.exitCode).padStart(4)}`,
  )
}
