/**
 * `npm run bench`, probe pod part: `kpx-check cluster --node-probe pod` on NODES simulated nodes (the
 * kubeadm-calico scenario, its worker copied, each copy with its kube-proxy pod), against the test API
 * server, whose stand-in kubelets run each probe pod's real collector on this machine. Figures, median
 * of RUNS in a child process: wall time, API requests per node, kpx-check's own CPU time per node (the
 * collectors run in the server's kubelets, not in kpx-check) and peak RSS. Every run must leave no
 * probe pod behind.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {KubeObject} from '../../src/sources/cluster/snapshot.js'
import {loadScenario} from '../helpers/apiserver-scenario.js'
import {startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {measureServerRuns, median} from './measure.js'

const NODES = Number(process.env.KPX_BENCH_NODES ?? 200)
const RUNS = Number(process.env.KPX_BENCH_RUNS ?? 3)
const CONCURRENCY = 32

/** The scenario with NODES workers, each running a kube-proxy pod as the DaemonSet's pods do. */
function benchScenario(): ReturnType<typeof loadScenario> {
  const scenario = loadScenario('kubeadm-calico')
  const [, worker] = scenario.objects['/api/v1/nodes']
  const pods = scenario.objects['/api/v1/pods'] as Array<KubeObject & {spec: {nodeName: string}}>
  const kubeProxy = pods.find((pod) => pod.spec.nodeName === worker.metadata!.name)!
  const names = Array.from({length: NODES}, (_, index) => `bench-node-${String(index + 1).padStart(4, '0')}`)
  scenario.objects['/api/v1/nodes'] = names.map((name) => ({...worker, metadata: {...worker.metadata, name}}))
  scenario.objects['/api/v1/pods'] = [
    ...pods.filter((pod) => !(pod.metadata?.name ?? '').startsWith('kube-proxy-')),
    ...names.map((name, index) => ({...kubeProxy, metadata: {...kubeProxy.metadata, name: `kube-proxy-bench${index + 1}`}, spec: {...kubeProxy.spec, nodeName: name}})),
  ]
  return scenario
}

const server = await startApiServer({scenario: benchScenario()})
const dir = mkdtempSync(join(tmpdir(), 'kpx-bench-pods-'))
const kubeconfig = writeKubeconfig(dir, server)
console.log(`kpx-check cluster --node-probe pod --concurrency ${CONCURRENCY} on ${NODES} simulated nodes (test API server, real collectors); median of ${RUNS} runs; Node ${process.version}`)

const runs = await measureServerRuns(server, ['cluster', '--kubeconfig', kubeconfig, '--node-probe', 'pod', '--concurrency', String(CONCURRENCY), '--json'], {
  count: RUNS,
  check(_run, index) {
    const left = server.objects('/api/v1/pods').filter((pod) => pod.metadata.labels?.['app.kubernetes.io/managed-by'] === 'kpx-check')
    if (left.length > 0) throw new Error(`${left.length} probe pod(s) left after run ${index + 1}`)
  },
})

await server.close()
rmSync(dir, {recursive: true, force: true})
const wall = median(runs.map((run) => run.wallMs))
console.log('wall s  requests/node  kpx-check CPU ms/node  peak RSS MB  exit')
console.log(
  `${(wall / 1000).toFixed(1).padStart(6)}  ${(median(runs.map((run) => run.requests)) / NODES).toFixed(1).padStart(13)}  ${(median(runs.map((run) => run.cpuMs)) / NODES).toFixed(1).padStart(21)}  ${Math.max(...runs.map((run) => run.peakRssMb)).toFixed(0).padStart(11)}  ${String(runs.at(-1)!.exitCode).padStart(4)}`,
)
