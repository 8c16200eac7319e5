/**
 * `kpx-check cluster --kube-proxy-metrics` through bin/run.js against the test API server, which relays
 * pods/proxy to what its kube-proxy pods serve (a /metrics page and /proxyMode), with the faults a real
 * one shows: 403, nothing listening (503), no answer, a page that is no Prometheus text, one too large.
 */
import assert from 'node:assert/strict'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {parseAllDocuments} from 'yaml'

import type {Report} from '../../src/contract/report.js'
import {type ApiServerOptions, DEFAULT_USER, type PodHttp, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {startKubeProxyStandIn} from '../helpers/kube-proxy-stand-in.js'
import {FIXTURES} from '../helpers/paths.js'
import {validateReport} from '../helpers/schemas.js'

const EKS_PODS: Record<string, string> = {'ip-10-0-10-170.ec2.internal': 'kube-proxy-4xk9p', 'ip-10-0-11-23.ec2.internal': 'kube-proxy-b7m2q', 'ip-10-0-12-88.ec2.internal': 'kube-proxy-zt5wd'}
const [FIRST, SECOND, THIRD] = Object.keys(EKS_PODS)

const metricsPage = (name: string) => readFileSync(join(FIXTURES, 'kube-proxy-metrics', `${name}.prom`), 'utf8')
/** kube-proxy on EKS: iptables mode, its metrics on 0.0.0.0:10249. */
const served = (page: string): PodHttp => ({port: 10_249, paths: {'/proxyMode': 'iptables', '/metrics': metricsPage(page)}})
const proxyPath = (pod: string, path: string) => `/api/v1/namespaces/kube-system/pods/${pod}:10249/proxy${path}`

let dir: string

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kpx-metrics-'))
})

after(() => {
  if (dir) rmSync(dir, {recursive: true, force: true})
})

interface Run {
  code: null | number
  report: Report
  requests: Array<{method: string; path: string; status?: number}>
}

async function check(options: ApiServerOptions, args: string[] = []): Promise<Run> {
  const server = await startApiServer(options)
  try {
    const kubeconfig = writeKubeconfig(dir, server)
    const {code, stdout, stderr} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--kube-proxy-metrics', '--json', ...args])
    assert.equal(stdout.trimStart()[0], '{', `stdout is the report only:\n${stdout}\n${stderr}`)
    const report = JSON.parse(stdout) as Report
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
    return {code, report, requests: server.requests}
  } finally {
    await server.close()
  }
}

const node = (report: Report, name: string) => report.nodes.find((row) => row.name === name)!
const checkOf = (report: Report, name: string, rule = 'node/localhost-nodeports') => node(report, name).checks[rule]

describe('cluster --kube-proxy-metrics', () => {
  it('EKS (metrics on 0.0.0.0:10249): localhost NodePorts in use fail the blocker on every node, from the pod proxy alone', async () => {
    const {report, requests} = await check({scenario: 'eks-old-vpc-cni', podHttp: served('iptables-localhost-nodeports-used')})
    for (const [name, pod] of Object.entries(EKS_PODS)) {
      const localhost = checkOf(report, name)
      assert.equal(localhost.status, 'fail', localhost.message)
      assert.match(localhost.message, /kube-proxy accepted 42 packet\(s\) sent to NodePorts on 127\.0\.0\.1/)
      assert.equal(checkOf(report, name, 'node/conntrack-liberal').status, 'pass')
      assert.deepEqual(node(report, name).kubeProxyMetrics, {origin: `kube-system/${pod}:10249`})
      // The node itself was not probed: its row still says the API.
      assert.equal(node(report, name).source, 'api')
    }

    const proxied = requests.filter((request) => request.path.includes('/proxy/'))
    assert.deepEqual(proxied.map((request) => request.path).toSorted(), Object.values(EKS_PODS).flatMap((pod) => [proxyPath(pod, '/metrics'), proxyPath(pod, '/proxyMode')]).toSorted())
    assert.ok(requests.every((request) => request.method === 'GET'))
    assert.equal(report.verdict, 'no-go')
  })

  it('EKS, no localhost NodePort packets: the blocker passes on every node', async () => {
    const {report} = await check({scenario: 'eks-old-vpc-cni', podHttp: served('iptables-localhost-nodeports-unused')})
    for (const name of Object.keys(EKS_PODS)) assert.equal(checkOf(report, name).status, 'pass', checkOf(report, name).message)
  })

  it('kubeadm (metrics on 127.0.0.1:10249): nothing is asked, and every node says the metrics are bound to localhost', async () => {
    const {report, requests} = await check({scenario: 'kubeadm-calico', podHttp: served('iptables-localhost-nodeports-used')})
    assert.deepEqual(requests.filter((request) => request.path.includes('/proxy/')), [])
    for (const name of ['k8s-cp-01', 'k8s-worker-01', 'k8s-worker-02']) {
      const localhost = checkOf(report, name)
      assert.deepEqual([localhost.status, localhost.reason], ['unknown', 'not-collected'], localhost.message)
      assert.match(localhost.message, /kube-proxy serves its metrics on 127\.0\.0\.1:10249 \(metricsBindAddress\), on its node only: the API server's pod proxy cannot reach them/)
      assert.equal(node(report, name).kubeProxyMetrics?.origin, 'kube-system')
      assert.match(node(report, name).kubeProxyMetrics?.reason ?? '', /127\.0\.0\.1:10249/)
    }

    assert.notEqual(report.verdict, 'go')
  })

  it('each failure is its node\'s reason: 403 quoted, no answer in time, a page that is no Prometheus text', async () => {
    const {report} = await check(
      {
        scenario: 'eks-old-vpc-cni',
        podHttp: served('iptables-localhost-nodeports-unused'),
        faults: [
          {path: new RegExp(`/pods/${EKS_PODS[FIRST]}:10249/proxy/`), kind: 'forbidden'},
          {path: proxyPath(EKS_PODS[SECOND], '/proxyMode'), kind: 'hang'},
          {path: proxyPath(EKS_PODS[THIRD], '/metrics'), kind: 'body', body: '<html><body>Sign in to continue</body></html>\n'},
        ],
      },
      ['--request-timeout', '2', '--allow-incomplete'],
    )
    const forbidden = checkOf(report, FIRST)
    assert.deepEqual([forbidden.status, forbidden.reason], ['unknown', 'permission-denied'])
    assert.ok(
      forbidden.message.includes(String.raw`pods \"${EKS_PODS[FIRST]}:10249\" is forbidden: User \"${DEFAULT_USER}\" cannot get resource \"pods/proxy\" in API group \"\" in the namespace \"kube-system\"`),
      forbidden.message,
    )
    assert.match(forbidden.message, /kpx-check rbac --kube-proxy-metrics/)
    const hung = checkOf(report, SECOND)
    assert.deepEqual([hung.status, hung.reason], ['unknown', 'timeout'], hung.message)
    assert.match(hung.message, /no answer within 2s \(--request-timeout\)/)
    const malformed = checkOf(report, THIRD)
    assert.deepEqual([malformed.status, malformed.reason], ['unknown', 'unparseable'], malformed.message)
    assert.match(malformed.message, /not the Prometheus text format: "<html><body>Sign in to continue<\/body><\/html>"/)
    // /proxyMode came through on the third node: its mode is kube-proxy's own answer.
    assert.equal(node(report, THIRD).kubeProxyMetrics?.reason, undefined)
    assert.match(node(report, FIRST).kubeProxyMetrics?.reason ?? '', /forbidden/)
    assert.notEqual(report.verdict, 'go')
  })

  it('nothing listens on the port (503), or the page is larger than 4 MiB: unknown, never passed', async () => {
    const silent = await check({scenario: 'eks-old-vpc-cni'}, ['--allow-incomplete'])
    for (const name of Object.keys(EKS_PODS)) {
      const localhost = checkOf(silent.report, name)
      assert.deepEqual([localhost.status, localhost.reason], ['unknown', 'unreachable'], localhost.message)
      assert.match(localhost.message, /503: "error trying to reach service: dial tcp 10\.0\.\d+\.\d+:10249: connect: connection refused": kube-proxy does not serve its metrics there/)
    }

    const huge = `${'kubeproxy_sync_proxy_rules_iptables_total{table="nat"} 112\n'.repeat(80_000)}`
    const large = await check({scenario: 'eks-old-vpc-cni', podHttp: {...served('iptables-localhost-nodeports-unused'), paths: {'/proxyMode': 'iptables', '/metrics': huge}}}, ['--allow-incomplete'])
    for (const name of Object.keys(EKS_PODS)) {
      const localhost = checkOf(large.report, name)
      assert.deepEqual([localhost.status, localhost.reason], ['unknown', 'failed'], localhost.message)
      assert.match(localhost.message, /larger than 4,194,304 bytes/)
    }
  })

  it('with --node-probe exec, whose image has no HTTP client, the pod proxy decides what the collector could not read', async () => {
    // The collector, run in the simulated kube-proxy container, finds kube-proxy's process as it would there.
    const kubeProxy = await startKubeProxyStandIn([])
    try {
      const {report} = await check({scenario: 'eks-old-vpc-cni', podHttp: served('iptables-localhost-nodeports-used')}, ['--node-probe', 'exec'])
      for (const [name, pod] of Object.entries(EKS_PODS)) {
        assert.deepEqual([node(report, name).source, node(report, name).origin], ['exec', `kube-system/${pod}`])
        assert.equal(checkOf(report, name).status, 'fail', checkOf(report, name).message)
        assert.deepEqual(node(report, name).kubeProxyMetrics, {origin: `kube-system/${pod}:10249`})
      }
    } finally {
      kubeProxy.kill('SIGKILL')
    }
  })

  it('rbac --kube-proxy-metrics adds a Role of its own for pods/proxy get in kube-system', async () => {
    const {code, stdout} = await runCli(['rbac', '--kube-proxy-metrics', '--group', 'platform'])
    assert.equal(code, 0)
    const documents = parseAllDocuments(stdout).map((document) => document.toJS())
    const proxy = documents.filter((document) => document.metadata.name === 'kpx-check-reader-proxy')
    assert.deepEqual(proxy.map((document) => [document.kind, document.metadata.namespace]), [['Role', 'kube-system'], ['RoleBinding', 'kube-system']])
    assert.deepEqual(proxy[0].rules, [{apiGroups: [''], resources: ['pods/proxy'], verbs: ['get']}])
    const plain = await runCli(['rbac', '--group', 'platform'])
    assert.ok(!plain.stdout.includes('pods/proxy'))
  })
})
