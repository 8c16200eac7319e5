/**
 * `kpx-check cluster --node-probe exec` through bin/run.js against the test API server, whose pods/exec
 * runs the collector for real on this machine with only the kube-proxy image's tools (apiserver-exec.ts).
 * Every simulated node is this machine seen from inside a kube-proxy container, so its kernel and nft are
 * this machine's; a process named kube-proxy runs meanwhile, as it does in the container.
 */
import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {release} from 'node:os'
import {describe, it} from 'node:test'
import {parseAllDocuments} from 'yaml'

import type {Report} from '../../src/contract/report.js'
import {loadScenario, type Scenario} from '../helpers/apiserver-scenario.js'
import {type ApiServerOptions, DEFAULT_USER, type Fault, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {useProbeTestSetting} from '../helpers/probe-tests.js'
import {validateReport} from '../helpers/schemas.js'

const KUBEADM_PODS: Record<string, string> = {'k8s-cp-01': 'kube-proxy-8xq2w', 'k8s-worker-01': 'kube-proxy-kd9f4', 'k8s-worker-02': 'kube-proxy-tz6mb'}
const EKS_PODS: Record<string, string> = {'ip-10-0-10-170.ec2.internal': 'kube-proxy-4xk9p', 'ip-10-0-11-23.ec2.internal': 'kube-proxy-b7m2q', 'ip-10-0-12-88.ec2.internal': 'kube-proxy-zt5wd'}
/** AKS's kube-proxy pods carry component=kube-proxy, not k8s-app. */
const AKS_PODS: Record<string, string> = {'aks-nodepool1-38290314-vmss000000': 'kube-proxy-x7kq2', 'aks-nodepool1-38290314-vmss000001': 'kube-proxy-b9w4m', 'aks-nodepool1-38290314-vmss000002': 'kube-proxy-r2c8v'}

/** The checks a node shell decides, and that the kube-proxy container can read. */
const READ_IN_POD = ['node/nf-tables-kernel', 'node/nftables-kernel-features', 'node/nft-version', 'node/iptables-backend-mix', 'node/ipvs-other-users', 'node/ipvs-leftovers', 'node/kernel-check-bypass']

/** This machine's nft, which the simulated kube-proxy image runs: `nftables v1.0.6 (Lester Gooch #5)` → 1.0.6; undefined without one. */
function localNft(): string | undefined {
  try {
    return /nftables v(\S+)/.exec(execFileSync('nft', ['--version'], {encoding: 'utf8'}))?.[1]
  } catch {
    return undefined
  }
}

const LOCAL_NFT = localNft()

const execPath = (pod: string) => `/api/v1/namespaces/kube-system/pods/${pod}/exec`

const setting = useProbeTestSetting('kpx-exec-probe-')

interface ProbeRun {
  code: null | number
  report: Report
  stderr: string
  ms: number
  execs: Array<{path: string; query: Record<string, string>; status?: number}>
}

async function probe(options: ApiServerOptions, args: string[] = []): Promise<ProbeRun> {
  const server = await startApiServer(options)
  try {
    const kubeconfig = writeKubeconfig(setting.dir, server)
    const started = Date.now()
    const {code, stdout, stderr} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--node-probe', 'exec', '--json', ...args])
    const ms = Date.now() - started
    assert.equal(stdout.trimStart()[0], '{', `stdout is the report only:\n${stdout}\n${stderr}`)
    const report = JSON.parse(stdout) as Report
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
    assert.equal(report.exitCode, code)
    return {code, report, stderr, ms, execs: server.requests.filter((request) => request.path.endsWith('/exec'))}
  } finally {
    await server.close()
  }
}

const row = (report: Report, name: string) => report.nodes.find((node) => node.name === name)!

/** The node was probed in its kube-proxy pod: every check decided or unknown for a reason of its own, none for want of a node shell. */
function assertProbed(report: Report, name: string, pod: string): void {
  const node = row(report, name)
  assert.deepEqual([node.source, node.origin, node.reachable, node.reason], ['exec', `kube-system/${pod}`, true, undefined], name)
  assert.equal(node.kernelRelease, release())
  for (const [rule, check] of Object.entries(node.checks)) assert.notEqual(check.reason, 'not-collected', `${name} ${rule}: ${check.message}`)
  for (const rule of READ_IN_POD) assert.ok(['pass', 'fail'].includes(node.checks[rule].status), `${name} ${rule}: ${node.checks[rule].status} ${node.checks[rule].message}`)
  // What the container cannot see of the node says so.
  assert.deepEqual([node.checks['node/host-firewall'].status, node.checks['node/host-firewall'].reason], ['unknown', 'not-present'])
  assert.match(node.checks['node/host-firewall'].message, /no hostPID/)
  assert.deepEqual([node.checks['node/nodeport-addresses'].status, node.checks['node/nodeport-addresses'].reason], ['unknown', 'not-installed'])
  // The nft the container runs is the image's, kube-proxy's own; the node's own nft it cannot run.
  assert.equal(node.nftVersion, null)
  assert.equal(node.kubeProxyNftVersion, LOCAL_NFT)
  const pair = node.checks['node/kube-proxy-nft-pair']
  if (LOCAL_NFT === '1.0.6.1') assert.equal(pair.status, 'pass')
  else if (LOCAL_NFT !== undefined) assert.deepEqual([pair.status, pair.reason], ['unknown', 'not-present'], pair.message)
}

/** The node could not be probed: what only a node shell tells is unknown with the probe's reason; what the API shows still counts. */
function assertUnprobed(report: Report, name: string, reason: RegExp): void {
  const node = row(report, name)
  assert.deepEqual([node.source, node.reachable], ['exec', false], name)
  assert.match(node.reason ?? '', reason)
  for (const rule of READ_IN_POD.filter((id) => id !== 'node/kernel-check-bypass')) {
    const check = node.checks[rule]
    assert.deepEqual([check.status, check.reason], ['unknown', 'node-unreachable'], `${name} ${rule}`)
    assert.ok(check.message.includes(node.reason!), check.message)
  }

  assert.equal(node.checks['node/kernel-version'].status, 'fail', 'the kernel the Node object shows still fails')
}

describe('cluster --node-probe exec', () => {
  it('probes every Linux node of a kubeadm cluster in its kube-proxy pod, with the collector on stdin of /bin/sh -s kube-proxy-pod', async () => {
    const {report, execs} = await probe({scenario: 'kubeadm-calico'})
    for (const [name, pod] of Object.entries(KUBEADM_PODS)) assertProbed(report, name, pod)
    assert.deepEqual(execs.map((exec) => exec.path).toSorted(), Object.values(KUBEADM_PODS).map((pod) => execPath(pod)).toSorted())
    for (const exec of execs) {
      assert.deepEqual(exec.query, {command: 'kube-proxy-pod', container: 'kube-proxy', stdin: 'true', stdout: 'true', stderr: 'true'})
      assert.equal(exec.status, 101)
    }

    // The OS the kube-proxy container cannot see comes from the Node object.
    assert.deepEqual(row(report, 'k8s-cp-01').os, {id: 'rocky', versionId: '8.10', prettyName: 'Rocky Linux 8.10 (Green Obsidian)'})
    assert.equal(row(report, 'k8s-cp-01').checks['node/os-distro'].status, 'fail')
    // Metrics need an HTTP client the image lacks: the localhost-NodePort blocker stays unknown, so the verdict is not go.
    assert.deepEqual([row(report, 'k8s-cp-01').checks['node/localhost-nodeports'].status, row(report, 'k8s-cp-01').checks['node/localhost-nodeports'].reason], ['unknown', 'not-installed'])
    assert.equal(report.verdict, 'incomplete')
  })

  it('probes through an API server older than 1.30, which speaks v4 only (no close frame: the collector ends by itself)', async () => {
    const {report} = await probe({scenario: 'kubeadm-calico', execProtocols: ['v4.channel.k8s.io']})
    for (const [name, pod] of Object.entries(KUBEADM_PODS)) assertProbed(report, name, pod)
  })

  it('probes every Linux node of an EKS and of an AKS cluster the same way', async () => {
    const {report, code} = await probe({scenario: 'eks-old-vpc-cni'})
    for (const [name, pod] of Object.entries(EKS_PODS)) assertProbed(report, name, pod)
    assert.deepEqual(row(report, 'ip-10-0-10-170.ec2.internal').os, {id: 'amzn', versionId: '2023', prettyName: 'Amazon Linux 2023.9.20251208'})
    // The VPC CNI 1.18.6 the API shows blocks the switch, whatever the nodes say.
    assert.deepEqual([report.verdict, code], ['no-go', 3])

    const aks = await probe({scenario: 'aks'})
    for (const [name, pod] of Object.entries(AKS_PODS)) assertProbed(aks.report, name, pod)
    assert.equal(row(aks.report, 'aks-nodepool1-38290314-vmss000000').os.id, 'ubuntu')
  })

  it('exec forbidden on every node: each is unknown with the API server\'s message, and the verdict is never go', async () => {
    const {report, code} = await probe({scenario: 'kubeadm-calico', faults: [{path: /\/exec$/, kind: 'forbidden'}]}, ['--allow-incomplete'])
    for (const [name, pod] of Object.entries(KUBEADM_PODS)) {
      const message = `pods "${pod}" is forbidden: User "${DEFAULT_USER}" cannot create resource "pods/exec" in API group "" in the namespace "kube-system"`
      assertUnprobed(report, name, new RegExp(`^exec-forbidden: ${message.replaceAll(/[.*+?^${}()|[\]\\/]/g, String.raw`\$&`)}$`))
    }

    assert.notEqual(report.verdict, 'go')
    assert.equal(code, 3, 'the old kernels the API shows still fail')
  })

  it('a mixed cluster: probed, no kube-proxy pod, exec forbidden, no shell in the image, no answer before the deadline', async () => {
    const scenario: Scenario = loadScenario('kubeadm-calico')
    // A fourth and fifth node, whose kube-proxy pods are gone and hang.
    const nodes = scenario.objects['/api/v1/nodes']
    const pods = scenario.objects['/api/v1/pods']
    const copyNode = (name: string) => ({...nodes[1], metadata: {...nodes[1].metadata, name}})
    nodes.push(copyNode('k8s-worker-03'), copyNode('k8s-worker-04'))
    pods.push({...pods[1], metadata: {...pods[1].metadata, name: 'kube-proxy-h4ng5'}, spec: {...(pods[1] as {spec: object}).spec, nodeName: 'k8s-worker-04'}} as (typeof pods)[number])
    const faults: Fault[] = [
      {path: execPath(KUBEADM_PODS['k8s-worker-01']), kind: 'forbidden'},
      {path: execPath(KUBEADM_PODS['k8s-worker-02']), kind: 'no-shell'},
      {path: execPath('kube-proxy-h4ng5'), kind: 'hang'},
    ]
    const {report, ms} = await probe({scenario, faults}, ['--timeout', '2'])
    assertProbed(report, 'k8s-cp-01', KUBEADM_PODS['k8s-cp-01'])
    assertUnprobed(report, 'k8s-worker-01', /^exec-forbidden: pods "kube-proxy-kd9f4" is forbidden: /)
    assertUnprobed(
      report,
      'k8s-worker-02',
      /^no-shell: the kube-proxy image has no \/bin\/sh: Internal error occurred: error executing command in container: .*exec: "\/bin\/sh": stat \/bin\/sh: no such file or directory: unknown$/,
    )
    assertUnprobed(report, 'k8s-worker-03', /^no-kube-proxy-pod: no running kube-proxy pod in kube-system on this node$/)
    assertUnprobed(report, 'k8s-worker-04', /^timeout: no answer within 2s \(--timeout\)$/)
    assert.equal(row(report, 'k8s-worker-03').origin, 'kube-system')
    assert.equal(row(report, 'k8s-worker-04').origin, 'kube-system/kube-proxy-h4ng5')
    // The hanging node costs its deadline, not more: the others ran meanwhile.
    assert.ok(ms < 15_000, `took ${ms} ms`)
    assert.notEqual(report.verdict, 'go')
  })

  it('refuses the SSH flags with exec, and the probe flags without a probe, with exit code 2', async () => {
    const ssh = await runCli(['cluster', '--snapshot', 'unused.json', '--node-probe', 'exec', '--ssh-user', 'ops', '--timeout', '5'])
    assert.equal(ssh.code, 2)
    assert.match(ssh.stderr, /--ssh-user only apply with --node-probe ssh/)
    const bare = await runCli(['cluster', '--snapshot', 'unused.json', '--concurrency', '4'])
    assert.equal(bare.code, 2)
    assert.match(bare.stderr, /--concurrency only apply with --node-probe ssh, exec or pod/)
  })

  it('rbac --node-probe exec adds a Role of its own for pods/exec in kube-system; without it nothing may exec', async () => {
    const withExec = await runCli(['rbac', '--node-probe', 'exec', '--group', 'platform'])
    assert.equal(withExec.code, 0)
    const documents = parseAllDocuments(withExec.stdout).map((document) => document.toJS())
    const exec = documents.filter((document) => document.metadata.name === 'kpx-check-reader-exec')
    assert.deepEqual(exec.map((document) => [document.kind, document.metadata.namespace]), [['Role', 'kube-system'], ['RoleBinding', 'kube-system']])
    assert.deepEqual(exec[0].rules, [{apiGroups: [''], resources: ['pods/exec'], verbs: ['create', 'get']}])
    assert.deepEqual(exec[1].roleRef, {apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kpx-check-reader-exec'})
    assert.deepEqual(exec[1].subjects, [{kind: 'Group', name: 'platform', apiGroup: 'rbac.authorization.k8s.io'}])
    const readOnly = await runCli(['rbac', '--group', 'platform'])
    assert.ok(!readOnly.stdout.includes('pods/exec'))
    assert.equal(withExec.stdout.startsWith(readOnly.stdout.trimEnd()), true, 'the read-only documents come first, unchanged')
  })
})
