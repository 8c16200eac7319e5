/**
 * `kpx-check cluster --node-probe pod` (and `exec,pod`) through bin/run.js against the test API server,
 * whose stand-in kubelets run each probe pod's real command on this machine with only the kube-proxy
 * image's tools (apiserver-kubelet.ts), the host's mounted files taken from a folder here. Every
 * simulated node is this machine, so its kernel and nft are this machine's; a process named kube-proxy
 * runs meanwhile, as one runs on a node. Each test ends with no probe pod (and no probe namespace) left
 * in the server's store.
 */
import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {release} from 'node:os'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {parseAllDocuments} from 'yaml'

import type {Report} from '../../src/contract/report.js'
import {loadScenario, type Scenario} from '../helpers/apiserver-scenario.js'
import {type ApiServer, type ApiServerOptions, DEFAULT_USER, type Fault, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {FIXTURES, RUN_JS} from '../helpers/paths.js'
import {useProbeTestSetting} from '../helpers/probe-tests.js'
import {validateReport} from '../helpers/schemas.js'

const KUBEADM_NODES = ['k8s-cp-01', 'k8s-worker-01', 'k8s-worker-02']
const EKS_NODES = ['ip-10-0-10-170.ec2.internal', 'ip-10-0-11-23.ec2.internal', 'ip-10-0-12-88.ec2.internal']
const AKS_NODES = ['aks-nodepool1-38290314-vmss000000', 'aks-nodepool1-38290314-vmss000001', 'aks-nodepool1-38290314-vmss000002']
const PODS = '/api/v1/namespaces/kube-system/pods'

/** The checks a node shell decides that a probe pod reads: the kube-proxy container's, and the host's firewall through its processes and /etc. */
const READ_IN_PROBE_POD = ['node/nf-tables-kernel', 'node/nftables-kernel-features', 'node/nft-version', 'node/iptables-backend-mix', 'node/ipvs-other-users', 'node/ipvs-leftovers', 'node/kernel-check-bypass', 'node/host-firewall', 'node/os-distro']

const setting = useProbeTestSetting('kpx-pod-probe-')

/** A folder standing in for a node's mounted files: its os-release (a real one) and an /etc with ufw off. */
function hostRoot(osRelease: string): string {
  const root = mkdtempSync(join(setting.dir, 'host-'))
  copyFileSync(join(FIXTURES, 'os-release', osRelease), join(root, 'os-release'))
  mkdirSync(join(root, 'etc', 'ufw'), {recursive: true})
  writeFileSync(join(root, 'etc', 'ufw', 'ufw.conf'), '# /etc/ufw/ufw.conf\nENABLED=no\nLOGLEVEL=low\n')
  return root
}

/** Nothing kpx-check made is left: no pod labelled as its probes, no namespace it created. */
function assertNothingLeft(server: ApiServer): void {
  const probes = server.objects('/api/v1/pods').filter((pod) => pod.metadata.labels?.['app.kubernetes.io/managed-by'] === 'kpx-check')
  assert.deepEqual(probes.map((pod) => `${pod.metadata.namespace}/${pod.metadata.name}`), [], 'no probe pod is left')
  const namespaces = server.objects('/api/v1/namespaces').filter((namespace) => namespace.metadata.labels?.['app.kubernetes.io/managed-by'] === 'kpx-check')
  assert.deepEqual(namespaces.map((namespace) => namespace.metadata.name), [], 'no probe namespace is left')
}

interface ProbeRun {
  code: null | number
  report: Report
  stderr: string
  server: ApiServer
  /** The probe pods kpx-check asked to create. */
  created: Array<Record<string, any>> // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function probe(options: ApiServerOptions, args: string[] = ['--node-probe', 'pod']): Promise<ProbeRun> {
  const server = await startApiServer({...options, kubelet: {hostRoot: hostRoot('rocky-8.10.txt'), ...options.kubelet}})
  try {
    const kubeconfig = writeKubeconfig(setting.dir, server)
    const {code, stdout, stderr} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--json', ...args])
    assert.equal(stdout.trimStart()[0], '{', `stdout is the report only:\n${stdout}\n${stderr}`)
    const report = JSON.parse(stdout) as Report
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
    assert.equal(report.exitCode, code)
    assertNothingLeft(server)
    const created = server.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/pods')).map((request) => request.body!)
    return {code, report, stderr, server, created}
  } finally {
    await server.close()
  }
}

const row = (report: Report, name: string) => report.nodes.find((node) => node.name === name)!

/** Waits until the server holds this many probe pods (at most 20 s). */
async function waitForProbePods(server: ApiServer, count: number): Promise<void> {
  const probes = () => server.objects('/api/v1/pods').filter((pod) => pod.metadata.labels?.['app.kubernetes.io/managed-by'] === 'kpx-check')
  for (let waited = 0; probes().length < count; waited += 50) {
    assert.ok(waited < 20_000, 'the probe pods were made')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The node was probed in a probe pod: every check decided or unknown for a reason of its own, none for want of a node shell. */
function assertProbed(report: Report, name: string, namespace = 'kube-system'): void {
  const node = row(report, name)
  assert.deepEqual([node.source, node.reachable, node.reason], ['pod', true, undefined], `${name}: ${node.reason}`)
  assert.match(node.origin, new RegExp(`^${namespace}/kpx-check-probe-[0-9a-f]{8}-[0-9a-f]{10}$`))
  assert.equal(node.kernelRelease, release())
  for (const [rule, check] of Object.entries(node.checks)) assert.notEqual(check.reason, 'not-collected', `${name} ${rule}: ${check.message}`)
  for (const rule of READ_IN_PROBE_POD) assert.ok(['pass', 'fail'].includes(node.checks[rule].status), `${name} ${rule}: ${node.checks[rule].status} ${node.checks[rule].message}`)
  // The node's own nft does not run in the pod; the nft there is kube-proxy's image's.
  assert.equal(node.nftVersion, null)
}

/** The node could not be probed: what only a node shell tells is unknown with the probe's reason. */
function assertUnprobed(report: Report, name: string, reason: RegExp): void {
  const node = row(report, name)
  assert.deepEqual([node.source, node.reachable], ['pod', false], name)
  assert.match(node.reason ?? '', reason)
  const check = node.checks['node/nf-tables-kernel']
  assert.deepEqual([check.status, check.reason], ['unknown', 'node-unreachable'], `${name}: ${check.message}`)
  assert.ok(check.message.includes(node.reason!), check.message)
  assert.notEqual(node.verdict, 'go')
}

describe('cluster --node-probe pod', () => {
  it('probes every Linux node of a kubeadm cluster in a probe pod on its kube-proxy image, reading the host\'s os-release and firewall', async () => {
    const {report, created} = await probe({scenario: 'kubeadm-calico'})
    for (const name of KUBEADM_NODES) assertProbed(report, name)
    assert.deepEqual(row(report, 'k8s-cp-01').os, {id: 'rocky', versionId: '8.10', prettyName: 'Rocky Linux 8.10 (Green Obsidian)'})
    assert.deepEqual(created.map((pod) => pod.spec.nodeName).toSorted(), KUBEADM_NODES)
    const [pod] = created
    assert.deepEqual(pod.metadata.labels['app.kubernetes.io/managed-by'], 'kpx-check')
    assert.match(pod.metadata.labels['kpx-check.io/run'], /^[0-9a-f]{8}$/)
    assert.equal(pod.metadata.namespace, 'kube-system')
    const {spec} = pod
    assert.deepEqual(
      [spec.hostNetwork, spec.hostPID, spec.restartPolicy, spec.activeDeadlineSeconds, spec.priorityClassName, spec.automountServiceAccountToken, spec.tolerations],
      [true, true, 'Never', 60, 'system-node-critical', false, [{operator: 'Exists'}]],
    )
    const [container] = spec.containers
    assert.deepEqual([container.image, container.imagePullPolicy, container.securityContext], ['registry.k8s.io/kube-proxy:v1.34.0', 'IfNotPresent', {privileged: true}])
    assert.deepEqual(container.command.slice(0, 2), ['/bin/sh', '-c'])
    assert.deepEqual(container.command.slice(3), ['kpx-check-collector', 'probe-pod'])
    assert.ok(container.volumeMounts.every((mount: {readOnly: boolean}) => mount.readOnly))
    assert.deepEqual(spec.volumes.map((volume: {hostPath: {path: string}}) => volume.hostPath.path), ['/etc/os-release', '/etc', '/boot', '/lib/modules'])
  })

  it('probes the nodes of an EKS and of an AKS cluster the same way: no check waits on a node shell', async () => {
    const eks = await probe({scenario: 'eks-old-vpc-cni', kubelet: {hostRoot: hostRoot('amazonlinux-2023.8.20250715.txt')}})
    for (const name of EKS_NODES) assertProbed(eks.report, name)
    assert.equal(row(eks.report, EKS_NODES[0]).os.id, 'amzn')
    // The VPC CNI 1.18.6 the API shows blocks the switch, whatever the nodes say.
    assert.deepEqual([eks.report.verdict, eks.code], ['no-go', 3])
    const aks = await probe({scenario: 'aks', kubelet: {hostRoot: hostRoot('ubuntu-22.04.txt')}})
    for (const name of AKS_NODES) assertProbed(aks.report, name)
    assert.deepEqual(row(aks.report, AKS_NODES[0]).os, {id: 'ubuntu', versionId: '22.04', prettyName: 'Ubuntu 22.04.5 LTS'})
    // What stays unknown is what the image cannot do (no HTTP client for kube-proxy's metrics, no ip), never what it
    // could not see; and the rollback target, read from the kernel's module index, which this machine has none of.
    const undecided = aks.report.nodes.flatMap((node) => Object.entries(node.checks).filter(([, check]) => check.status === 'unknown').map(([rule, check]) => `${rule} ${check.reason}`))
    const besides = (line: string) => !line.startsWith('node/kube-proxy-nft-pair ') && line !== 'node/rollback-target not-present'
    assert.deepEqual([...new Set(undecided)].toSorted().filter((line) => besides(line)), [...new Set(undecided)].toSorted().filter((line) => line.endsWith(' not-installed')))
  })

  it('pins the image by the digest the kube-proxy pod\'s status reports, and uses the cluster\'s kube-proxy image on a node without a kube-proxy pod', async () => {
    const scenario: Scenario = loadScenario('kubeadm-calico')
    const pods = scenario.objects['/api/v1/pods'] as Array<Record<string, any>> // eslint-disable-line @typescript-eslint/no-explicit-any
    const digest = 'sha256:9d2d6bc7b8f0c5c2b7d2c3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4'
    for (const pod of pods) pod.status = {...pod.status, containerStatuses: [{name: 'kube-proxy', image: pod.spec.containers[0].image, imageID: `registry.k8s.io/kube-proxy@${digest}`}]}
    scenario.objects['/api/v1/pods'] = pods.filter((pod) => pod.spec.nodeName !== 'k8s-worker-02') as typeof scenario.objects['/api/v1/pods']
    const {report, created} = await probe({scenario})
    for (const name of KUBEADM_NODES) assertProbed(report, name)
    assert.deepEqual(created.map((pod) => pod.spec.containers[0].image), Array.from({length: 3}, () => `registry.k8s.io/kube-proxy@${digest}`))
  })

  it('makes the pods in a namespace of its own with --probe-namespace (Pod Security privileged, no system priority class) and deletes it', async () => {
    const {report, created, server} = await probe({scenario: 'kubeadm-calico'}, ['--node-probe', 'pod', '--probe-namespace', 'kpx-probes'])
    for (const name of KUBEADM_NODES) assertProbed(report, name, 'kpx-probes')
    assert.ok(created.every((pod) => pod.metadata.namespace === 'kpx-probes' && pod.spec.priorityClassName === undefined))
    const namespace = server.requests.find((request) => request.method === 'POST' && request.path === '/api/v1/namespaces')
    assert.deepEqual((namespace?.body?.metadata as {labels: Record<string, string>}).labels['pod-security.kubernetes.io/enforce'], 'privileged')
    assert.ok(server.requests.some((request) => request.method === 'DELETE' && request.path === '/api/v1/namespaces/kpx-probes'))
    // Refused at first for want of the new namespace's default service account, then made.
    const creates = server.requests.filter((request) => request.method === 'POST' && request.path === '/api/v1/namespaces/kpx-probes/pods')
    assert.ok(creates.some((request) => request.status === 403) && creates.filter((request) => request.status === 201).length === KUBEADM_NODES.length)
  })

  it('a refused create is each node\'s reason, quoting the server: Pod Security, RBAC, GKE Autopilot, an OpenShift SCC; no pod is made', async () => {
    const baseline = await probe({scenario: 'kubeadm-calico', namespaceLabels: {'kube-system': {'pod-security.kubernetes.io/enforce': 'baseline'}}})
    for (const name of KUBEADM_NODES) {
      assertUnprobed(
        baseline.report,
        name,
        /^pod-security: pods "kpx-check-probe-[0-9a-f-]+" is forbidden: violates PodSecurity "baseline:latest": host namespaces \(hostNetwork=true, hostPID=true\), privileged \(container "probe" must not set securityContext.privileged=true\), hostPath volumes \(volumes "os-release", "etc", "boot", "lib-modules"\)$/,
      )
    }

    const forbidden = await probe({scenario: 'kubeadm-calico', faults: [{path: PODS, method: 'POST', kind: 'forbidden'}]})
    for (const name of KUBEADM_NODES) {
      assertUnprobed(forbidden.report, name, new RegExp(`^pod-forbidden: pods is forbidden: User "${DEFAULT_USER}" cannot create resource "pods" in API group "" in the namespace "kube-system"$`))
    }

    const warden =
      'admission webhook "warden-validating.common-webhooks.networking.gke.io" denied the request: GKE Warden rejected the request because it violates one or more constraints. Violations details: {"[denied by autogke-disallow-hostnamespaces]":["enabling hostPID is not allowed in Autopilot.","enabling hostNetwork is not allowed in Autopilot."],"[denied by autogke-disallow-privilege]":["container probe is privileged; not allowed in Autopilot"]}'
    const autopilot = await probe({scenario: 'kubeadm-calico', faults: [{path: PODS, method: 'POST', kind: 'reject', status: 403, message: warden}]})
    for (const name of KUBEADM_NODES) assertUnprobed(autopilot.report, name, /^autopilot: admission webhook "warden-validating\.common-webhooks\.networking\.gke\.io" denied the request: GKE Warden rejected the request/)
    const scc =
      'pods "kpx-check-probe" is forbidden: unable to validate against any security context constraint: [provider "anyuid": Forbidden: not usable by user or serviceaccount, spec.volumes[0]: Invalid value: "hostPath": hostPath volumes are not allowed to be used, spec.containers[0].securityContext.privileged: Invalid value: true: Privileged containers are not allowed]'
    const openshift = await probe({scenario: 'kubeadm-calico', faults: [{path: PODS, method: 'POST', kind: 'reject', status: 403, message: scc}]})
    for (const name of KUBEADM_NODES) assertUnprobed(openshift.report, name, /^scc: pods "kpx-check-probe" is forbidden: unable to validate against any security context constraint: /)
    for (const run of [baseline, forbidden, autopilot, openshift]) assert.equal(run.server.objects('/api/v1/pods').filter((pod) => pod.metadata.name.startsWith('kpx-check-probe')).length, 0)
  })

  it('what the nodes do with the pods: image not on the node, never started, past its deadline, no shell in the image, a tainted node, a Fargate node', async () => {
    const scenario: Scenario = loadScenario('kubeadm-calico')
    const nodes = scenario.objects['/api/v1/nodes'] as Array<Record<string, any>> // eslint-disable-line @typescript-eslint/no-explicit-any
    const copyNode = (name: string, extra: Record<string, unknown> = {}) => ({...nodes[1], metadata: {...nodes[1].metadata, name, ...extra}})
    nodes.push(copyNode('k8s-worker-03'), copyNode('k8s-worker-04'), copyNode('k8s-worker-05'), copyNode('fargate-ip-10-0-1-5.ec2.internal', {labels: {...nodes[1].metadata.labels, 'eks.amazonaws.com/compute-type': 'fargate'}}))
    nodes[0] = {...nodes[0], spec: {...nodes[0].spec, taints: [{key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule'}, {key: 'dedicated', value: 'infra', effect: 'NoExecute'}]}}
    const kubelet = {nodes: {'k8s-worker-01': 'image-missing', 'k8s-worker-02': 'pending', 'k8s-worker-03': 'hang', 'k8s-worker-04': 'no-shell'} as const}
    const {report, created} = await probe({scenario, kubelet}, ['--node-probe', 'pod', '--timeout', '5'])
    assertProbed(report, 'k8s-cp-01')
    assertProbed(report, 'k8s-worker-05')
    assertUnprobed(report, 'k8s-worker-01', /^image: the node cannot get kube-proxy's image \(imagePullPolicy IfNotPresent\): ImagePullBackOff: Back-off pulling image "registry\.k8s\.io\/kube-proxy:v1\.34\.0"$/)
    assertUnprobed(report, 'k8s-worker-02', /^unschedulable: the probe pod stayed Pending for 15s: the node's kubelet never started it/)
    assertUnprobed(report, 'k8s-worker-03', /^deadline: the probe pod ran past its activeDeadlineSeconds \(5s, --timeout\): DeadlineExceeded: Pod was active on the node longer than the specified deadline$/)
    assertUnprobed(report, 'k8s-worker-04', /^no-shell: the kube-proxy image has no \/bin\/sh: StartError: .*exec: "\/bin\/sh": stat \/bin\/sh: no such file or directory: unknown$/)
    assertUnprobed(report, 'fargate-ip-10-0-1-5.ec2.internal', /^fargate: an EKS Fargate node runs no host-network or privileged pods: not probed, no pod made$/)
    assert.ok(!created.some((pod) => pod.spec.nodeName.startsWith('fargate-')), 'no pod is made for a Fargate node')
    assert.notEqual(report.verdict, 'go')
  })

  it('a later run deletes the probe pods an interrupted run left (past their deadline), and only those', async () => {
    const scenario: Scenario = loadScenario('kubeadm-calico')
    const leftover = {
      metadata: {name: 'kpx-check-probe-0badc0de-1234567890', namespace: 'kube-system', creationTimestamp: '2026-01-05T08:00:00Z', labels: {'app.kubernetes.io/managed-by': 'kpx-check', 'app.kubernetes.io/name': 'kpx-check-probe', 'kpx-check.io/run': '0badc0de'}},
      spec: {nodeName: 'k8s-worker-01', activeDeadlineSeconds: 60, containers: [{name: 'probe', image: 'registry.k8s.io/kube-proxy:v1.34.0'}]},
      status: {phase: 'Running'},
    }
    scenario.objects['/api/v1/pods'].push(leftover as (typeof scenario.objects)['/api/v1/pods'][number])
    const {report, server} = await probe({scenario})
    for (const name of KUBEADM_NODES) assertProbed(report, name)
    assert.ok(server.requests.some((request) => request.method === 'DELETE' && request.path === `${PODS}/${leftover.metadata.name}`))
  })

  it('a mixed cluster with --node-probe exec,pod: exec where a kube-proxy pod runs with a shell, a probe pod where none runs or its image has no shell, unknown where both fail', async () => {
    const scenario: Scenario = loadScenario('kubeadm-calico')
    const nodes = scenario.objects['/api/v1/nodes']
    nodes.push({...nodes[1], metadata: {...nodes[1].metadata, name: 'k8s-worker-03'}}, {...nodes[1], metadata: {...nodes[1].metadata, name: 'k8s-worker-04'}})
    const faults = [{path: `${PODS}/kube-proxy-tz6mb/exec`, kind: 'no-shell' as const}]
    const {report, code} = await probe({scenario, faults, kubelet: {nodes: {'k8s-worker-04': 'image-missing'}}}, ['--node-probe', 'exec,pod', '--timeout', '5'])
    assert.deepEqual([row(report, 'k8s-cp-01').source, row(report, 'k8s-cp-01').origin], ['exec', 'kube-system/kube-proxy-8xq2w'])
    assert.deepEqual([row(report, 'k8s-worker-01').source, row(report, 'k8s-worker-01').origin], ['exec', 'kube-system/kube-proxy-kd9f4'])
    assertProbed(report, 'k8s-worker-02') // its image has no shell for exec; a probe pod (the test's kubelet has one) ran
    assertProbed(report, 'k8s-worker-03') // no kube-proxy pod at all
    assertUnprobed(report, 'k8s-worker-04', /^image: .*; by exec before it: no-kube-proxy-pod: no running kube-proxy pod in kube-system on this node$/)
    for (const name of ['k8s-cp-01', 'k8s-worker-01']) {
      for (const [rule, check] of Object.entries(row(report, name).checks)) assert.notEqual(check.reason, 'not-collected', `${name} ${rule}`)
    }

    assert.notEqual(row(report, 'k8s-worker-04').verdict, 'go')
    assert.equal(row(report, 'k8s-cp-01').checks['node/host-firewall'].reason, 'not-present', 'exec cannot see the host\'s processes')
    assert.ok(['pass', 'fail'].includes(row(report, 'k8s-worker-03').checks['node/host-firewall'].status), 'a probe pod can')
    assert.equal(code, report.exitCode)
  })

  it('SIGINT, SIGTERM and SIGHUP (the terminal closed) mid-run through bin/run.js: every probe pod and the probe namespace are deleted, then exit 130, 143 and 129', async () => {
    for (const [signal, exitCode, args] of [['SIGINT', 130, ['--probe-namespace', 'kpx-probes']], ['SIGTERM', 143, []], ['SIGHUP', 129, ['--probe-namespace', 'kpx-probes']]] as const) {
      const kubelet = {hostRoot: hostRoot('rocky-8.10.txt'), nodes: Object.fromEntries(KUBEADM_NODES.map((name) => [name, 'hang' as const]))}
      const server = await startApiServer({scenario: 'kubeadm-calico', kubelet})
      try {
        const kubeconfig = writeKubeconfig(setting.dir, server)
        const child = spawn(process.execPath, [RUN_JS, 'cluster', '--kubeconfig', kubeconfig, '--node-probe', 'pod', '--json', ...args], {stdio: ['ignore', 'pipe', 'pipe'], env: {...process.env, NO_COLOR: '1'}})
        let stdout = ''
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
        const exited = new Promise<null | number>((resolve) => child.on('close', resolve))
        await waitForProbePods(server, KUBEADM_NODES.length)

        child.kill(signal)
        assert.equal(await exited, exitCode, stdout)
        assert.match(JSON.parse(stdout).error.message, new RegExp(String.raw`^stopped by ${signal}; the probe pods it made \(and their namespace\) are deleted$`))
        assertNothingLeft(server)
      } finally {
        await server.close()
      }
    }
  })

  it('what it cannot delete is said: in the report (cluster.probeLeftovers) after a run, in the error after SIGINT; the probes still count', async () => {
    const undeletable: Fault[] = [
      {path: /^\/api\/v1\/namespaces\/kpx-probes\/pods\/kpx-check-probe-/, method: 'DELETE', kind: 'forbidden'},
      {path: '/api/v1/namespaces/kpx-probes', method: 'DELETE', kind: 'forbidden'},
    ]
    const server = await startApiServer({scenario: 'kubeadm-calico', faults: undeletable, kubelet: {hostRoot: hostRoot('rocky-8.10.txt')}})
    try {
      const kubeconfig = writeKubeconfig(setting.dir, server)
      const textFile = join(setting.dir, 'leftovers.txt')
      const {code, stdout} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--json', '--node-probe', 'pod', '--probe-namespace', 'kpx-probes', '--output', `text=${textFile}`])
      const report = JSON.parse(stdout) as Report
      assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
      assert.equal(report.exitCode, code)
      for (const name of KUBEADM_NODES) assertProbed(report, name, 'kpx-probes')
      const left = report.cluster?.probeLeftovers ?? []
      assert.equal(left.length, KUBEADM_NODES.length + 1, left.join('\n'))
      for (const entry of left.slice(0, -1)) assert.match(entry, /^pod kpx-probes\/kpx-check-probe-[0-9a-f]{8}-[0-9a-f]{10}: pods "kpx-check-probe-[0-9a-f-]+" is forbidden: User "[^"]+" cannot delete resource "pods"/)
      assert.match(left.at(-1)!, /^namespace kpx-probes: namespaces "kpx-probes" is forbidden: User "[^"]+" cannot delete resource "namespaces"/)
      assert.match(readFileSync(textFile, 'utf8'), /^ {2}The probe could not delete what it made: pod kpx-probes\/kpx-check-probe-.*; namespace kpx-probes: .*\(by hand: kubectl delete pod -A -l app\.kubernetes\.io\/managed-by=kpx-check\)$/m)
    } finally {
      await server.close()
    }

    const hanging = {hostRoot: hostRoot('rocky-8.10.txt'), nodes: Object.fromEntries(KUBEADM_NODES.map((name) => [name, 'hang' as const]))}
    const stopped = await startApiServer({scenario: 'kubeadm-calico', faults: [{path: /^\/api\/v1\/namespaces\/kube-system\/pods\/kpx-check-probe-/, method: 'DELETE', kind: 'forbidden'}], kubelet: hanging})
    try {
      const kubeconfig = writeKubeconfig(setting.dir, stopped)
      const child = spawn(process.execPath, [RUN_JS, 'cluster', '--kubeconfig', kubeconfig, '--node-probe', 'pod', '--json'], {stdio: ['ignore', 'pipe', 'pipe'], env: {...process.env, NO_COLOR: '1'}})
      let stdout = ''
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
      const exited = new Promise<null | number>((resolve) => child.on('close', resolve))
      await waitForProbePods(stopped, KUBEADM_NODES.length)
      child.kill('SIGINT')
      assert.equal(await exited, 130, stdout)
      const {message} = (JSON.parse(stdout) as {error: {message: string}}).error
      assert.match(message, /^stopped by SIGINT; could not delete what it made: pod kube-system\/kpx-check-probe-[0-9a-f]{8}-[0-9a-f]{10}: pods "[^"]+" is forbidden: .*; pod kube-system\/.*; pod kube-system\/.*\. A probe pod ends at its activeDeadlineSeconds, and the next run with --node-probe pod deletes it \(by hand: kubectl delete pod -A -l app\.kubernetes\.io\/managed-by=kpx-check\)$/)
    } finally {
      await stopped.close()
    }
  })

  it('refuses --probe-namespace without a pod probe, and a name that is no namespace, with exit code 2', async () => {
    const alone = await runCli(['cluster', '--snapshot', 'unused.json', '--probe-namespace', 'kpx'])
    assert.deepEqual([alone.code, /--probe-namespace only applies with --node-probe pod or exec,pod/.test(alone.stderr)], [2, true], alone.stderr)
    const bad = await runCli(['cluster', '--snapshot', 'unused.json', '--node-probe', 'pod', '--probe-namespace', 'Not_A_Namespace'])
    assert.deepEqual([bad.code, /--probe-namespace Not_A_Namespace: not a namespace name/.test(bad.stderr)], [2, true], bad.stderr)
  })

  it('rbac --node-probe pod adds a Role of its own for the probe pods in kube-system; with --probe-namespace a ClusterRole for namespaces and pods', async () => {
    const withPod = await runCli(['rbac', '--node-probe', 'pod', '--group', 'platform'])
    assert.equal(withPod.code, 0, withPod.stderr)
    const documents = parseAllDocuments(withPod.stdout).map((document) => document.toJS())
    const pod = documents.filter((document) => document.metadata.name === 'kpx-check-reader-pod')
    assert.deepEqual(pod.map((document) => [document.kind, document.metadata.namespace]), [['Role', 'kube-system'], ['RoleBinding', 'kube-system']])
    assert.deepEqual(pod[0].rules, [
      {apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'get', 'list', 'watch']},
      {apiGroups: [''], resources: ['pods/log'], verbs: ['get']},
    ])
    const readOnly = await runCli(['rbac', '--group', 'platform'])
    assert.ok(!/create|delete/.test(readOnly.stdout))
    assert.ok(withPod.stdout.startsWith(readOnly.stdout.trimEnd()), 'the read-only documents come first, unchanged')
    const both = parseAllDocuments((await runCli(['rbac', '--node-probe', 'exec,pod', '--group', 'platform'])).stdout).map((document) => document.toJS())
    assert.deepEqual(both.map((document) => document.metadata.name).filter((name) => name !== 'kpx-check-reader'), ['kpx-check-reader-exec', 'kpx-check-reader-exec', 'kpx-check-reader-pod', 'kpx-check-reader-pod'])
    const namespaced = parseAllDocuments((await runCli(['rbac', '--node-probe', 'pod', '--probe-namespace', 'kpx-probes', '--group', 'platform'])).stdout).map((document) => document.toJS())
    const clusterRole = namespaced.find((document) => document.kind === 'ClusterRole' && document.metadata.name === 'kpx-check-reader-pod')
    assert.deepEqual(clusterRole.rules, [
      {apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'get', 'list', 'watch']},
      {apiGroups: [''], resources: ['pods/log'], verbs: ['get']},
      {apiGroups: [''], resources: ['namespaces'], verbs: ['create']},
      {apiGroups: [''], resources: ['namespaces'], resourceNames: ['kpx-probes'], verbs: ['delete', 'get']},
    ])
    assert.ok(namespaced.some((document) => document.kind === 'ClusterRoleBinding' && document.roleRef.name === 'kpx-check-reader-pod'))
  })
})
