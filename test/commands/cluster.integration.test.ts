import assert from 'node:assert/strict'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {parseAllDocuments, stringify as stringifyYaml} from 'yaml'

import type {Finding} from '../../src/contract/finding.js'
import type {Report} from '../../src/contract/report.js'
import {subjectName} from '../../src/contract/subject.js'
import {PAGING} from '../../src/sources/cluster/kube-client.js'
import type {ClusterSnapshot} from '../../src/sources/cluster/snapshot.js'
import {type ApiServer, type Fault, OTHER_CONTEXT, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {FIXTURES} from '../helpers/paths.js'
import {validateReport} from '../helpers/schemas.js'

const EXAMPLE_SNAPSHOT = join(FIXTURES, 'snapshots', 'kubespray-ipvs-metallb.snapshot.json')


let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-cluster-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

interface Run {
  code: null | number
  report: Report
  stderr: string
  server: ApiServer
}

/** Serves a scenario over HTTPS and runs `kpx-check cluster --json` against it through a kubeconfig. */
async function checkScenario(scenario: string, options: {args?: string[]; faults?: Fault[]} = {}): Promise<Run> {
  const server = await startApiServer({scenario, faults: options.faults})
  try {
    const dir = mkdtempSync(join(workdir, `${scenario}-`))
    const kubeconfig = writeKubeconfig(dir, server)
    const {code, stdout, stderr} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--json', ...(options.args ?? [])])
    const report = JSON.parse(stdout) as Report
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
    assert.equal(report.exitCode, code)
    return {code, report, stderr, server}
  } finally {
    await server.close()
  }
}

const find = (report: Report, rule: string, status?: Finding['status']) =>
  report.findings.filter((finding) => finding.rule === rule && (status === undefined || finding.status === status))

describe('kpx-check cluster against a real HTTPS API server', () => {
  it('EKS with an old VPC CNI: no-go, and the finding names the DaemonSet', async () => {
    const {code, report, server} = await checkScenario('eks-old-vpc-cni')
    assert.equal(code, 3)
    assert.equal(report.verdict, 'no-go')
    assert.deepEqual([report.cluster?.platform, report.cluster?.proxyMode], ['eks', 'iptables'])
    const [cni] = find(report, 'cluster/cni-version', 'fail')
    assert.deepEqual(cni.subject, {kind: 'DaemonSet', namespace: 'kube-system', name: 'aws-node'})
    assert.equal(cni.severity, 'blocker')
    assert.match(cni.message, /1\.18\.6 .*older than 1\.23\.0/)
    assert.ok(report.nodes.every((node) => node.source === 'api' && node.kernelRelease?.startsWith('6.1')))
    // Read-only: only GETs, every list paginated, never a Secret.
    assert.ok(server.requests.every((request) => request.method === 'GET'))
    assert.ok(server.requests.every((request) => !/secrets/.test(request.path)))
    assert.ok(server.requests.filter((request) => /^\/api\/v1\/(nodes|services)$/.test(request.path)).every((request) => request.query.limit === String(PAGING.first)))
  })

  it('AKS on Ubuntu 22.04: nothing fails from the API; node-shell checks stay unknown, so incomplete', async () => {
    const {code, report} = await checkScenario('aks')
    assert.equal(report.cluster?.platform, 'aks')
    assert.equal(report.summary.blockers, 0)
    assert.equal(report.verdict, 'incomplete')
    assert.equal(code, 5)
    const nft = find(report, 'node/nf-tables-kernel', 'unknown')
    assert.equal(nft.length, 1, 'one summary finding for all nodes')
    assert.match(nft[0].message, /^3 node\(s\), e\.g\. .*the Kubernetes API does not show it/)
    assert.match(find(report, 'cluster/platform-switch')[0].message, /az aks update --kube-proxy-config/)
  })

  for (const [scenario, replacedBy] of [
    ['gke-dataplane-v2', 'gke-dataplane-v2'],
    ['cilium-kpr', 'cilium-kube-proxy-replacement'],
    ['openshift-ovn', 'ovn-kubernetes'],
  ]) {
    it(`${scenario}: go, nothing to migrate`, async () => {
      const {code, report} = await checkScenario(scenario)
      assert.equal(code, 0)
      assert.equal(report.verdict, 'go')
      assert.equal(report.cluster?.proxyMode, 'none')
      assert.equal(report.cluster?.nothingToMigrate, true)
      assert.equal(report.cluster?.kubeProxy.replacedBy, replacedBy)
      assert.match(find(report, 'cluster/kube-proxy-mode')[0].message, /^Nothing to migrate/)
      assert.equal(report.findings.length, 1, 'no other rule speaks when there is nothing to migrate')
    })
  }

  it('kubeadm on Rocky 8.10 with Calico: kernel blockers per node, Calico and NodePort warnings', async () => {
    const {code, report} = await checkScenario('kubeadm-calico')
    assert.equal(code, 3)
    assert.equal(report.cluster?.platform, 'kubeadm')
    const kernels = find(report, 'node/kernel-version', 'fail')
    assert.equal(kernels.length, 3)
    assert.ok(kernels.every((finding) => finding.subject.kind === 'Node' && /4\.18\.0-553/.test(finding.message)))
    const [calico] = find(report, 'cluster/cni-version', 'fail')
    assert.deepEqual([subjectName(calico.subject), calico.severity], ['kube-system/calico-node', 'warning'])
    assert.match(calico.message, /Iptables dataplane/)
    // The scenario's one NodePort Service is the finding's subject; the node with two addresses is why.
    const nodePorts = find(report, 'cluster/nodeport-addresses', 'fail')
    assert.deepEqual(nodePorts.map((finding) => finding.subject.kind), ['Service'])
    assert.match(nodePorts[0].message, /k8s-worker-02/)
  })

  it('k3s: kube-proxy embedded, mode not visible through the API', async () => {
    const {report} = await checkScenario('k3s')
    assert.equal(report.cluster?.platform, 'k3s')
    assert.equal(report.cluster?.proxyMode, 'unknown')
    assert.match(report.cluster?.kubeProxy.workload ?? '', /k3s/)
    assert.match(find(report, 'cluster/platform-switch')[0].message, /--kube-proxy-arg=proxy-mode=nftables/)
  })

  it('an IPVS cluster with a shared load-balancer address names the Services', async () => {
    const {report} = await checkScenario('ipvs-metallb', {args: ['--target-version', '1.40']})
    assert.equal(report.cluster?.proxyMode, 'ipvs')
    const hijacks = find(report, 'cluster/ipvs-lb-hijack', 'fail')
    assert.deepEqual(hijacks.map((finding) => subjectName(finding.subject)).toSorted(), ['dns/coredns-external', 'ingress-nginx/ingress-nginx-controller'])
    assert.ok(hijacks.every((finding) => finding.subject.kind === 'Service' && /192\.168\.10\.240/.test(finding.message)))
    assert.match(hijacks[0].message, /Ingress shop\/storefront/)
    const [deadline] = find(report, 'cluster/ipvs-deprecation', 'fail')
    assert.equal(deadline.severity, 'blocker')
    assert.match(deadline.message, /Migrate to nftables before upgrading to 1\.40/)
  })

  it('OpenShift SDN cannot switch: its kube-proxy has no nftables mode', async () => {
    const {report} = await checkScenario('openshift-sdn')
    assert.equal(report.verdict, 'no-go')
    assert.match(find(report, 'cluster/platform-switch', 'fail')[0].message, /OVN-Kubernetes/)
  })

  it('RKE2 with Canal: a blocker on the Canal DaemonSet', async () => {
    const {report} = await checkScenario('rke2-canal')
    const [canal] = find(report, 'cluster/cni-version', 'fail')
    assert.deepEqual([subjectName(canal.subject), canal.severity], ['kube-system/rke2-canal', 'blocker'])
  })

  it('a forbidden list makes exactly its rules unknown, names the permission, and never yields go', async () => {
    const {code, report} = await checkScenario('aks', {faults: [{path: '/api/v1/services', kind: 'forbidden'}]})
    assert.notEqual(report.verdict, 'go')
    assert.equal(code, 5)
    const forbidden = report.findings.filter((finding) => finding.reason === 'permission-denied')
    assert.deepEqual([...new Set(forbidden.map((finding) => finding.rule))].toSorted(), ['cluster/external-ips', 'cluster/nodeport-addresses', 'cluster/service-comment-length', 'cluster/service-count'])
    assert.ok(forbidden.every((finding) => /list services \(all namespaces\)/.test(finding.message)))
    assert.ok(report.cluster?.unreadable.some((line) => line.startsWith('services: ')))
    assert.equal(find(report, 'cluster/cni-version')[0].status, 'pass', 'the other rules still run')
  })

  it('retries 5xx and 429 with backoff, and follows continue tokens', async () => {
    const {report, server} = await checkScenario('eks-old-vpc-cni', {
      faults: [
        {path: '/api/v1/nodes', kind: 'error', status: 503, times: 2},
        {path: '/apis/apps/v1/daemonsets', kind: 'throttle', retryAfterSeconds: 1, times: 1},
      ],
    })
    assert.equal(report.verdict, 'no-go')
    assert.equal(server.requests.filter((request) => request.path === '/api/v1/nodes').length, 3)
  })
})

describe('kpx-check cluster: connection errors end in exit 2 with a clear message', () => {
  let server: ApiServer
  let kubeconfig: string
  before(async () => {
    server = await startApiServer({scenario: 'aks', faults: [{path: '/api/v1/nodes', kind: 'hang'}]})
    kubeconfig = writeKubeconfig(mkdtempSync(join(workdir, 'errors-')), server)
  })
  after(() => server.close())

  it('reads contexts from every file in KUBECONFIG, as kubectl does', async () => {
    const dir = mkdtempSync(join(workdir, 'kubeconfig-env-'))
    const second = join(dir, 'second')
    const {clusters, users} = parseAllDocuments(readFileSync(kubeconfig, 'utf8'))[0].toJS()
    writeFileSync(
      second,
      stringifyYaml({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{...clusters[0], name: 'second'}],
        users: [{...users[0], name: 'second'}],
        contexts: [{name: 'second', context: {cluster: 'second', user: 'second'}}],
      }),
    )
    const {code, stdout} = await runCli(['cluster', '--context', 'second', '--request-timeout', '1', '--json'], {env: {KUBECONFIG: `${kubeconfig}:${second}`}})
    assert.equal(code, 5)
    assert.equal((JSON.parse(stdout) as Report).cluster?.context, 'second')
  })

  it('authenticates through an exec credential plugin (the client-node path)', async () => {
    const dir = mkdtempSync(join(workdir, 'exec-'))
    const plugin = join(dir, 'credential-plugin.mjs')
    const credential = {apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: {token: server.token}}
    writeFileSync(plugin, `process.stdout.write(${JSON.stringify(JSON.stringify(credential))})\n`)
    const config = parseAllDocuments(readFileSync(kubeconfig, 'utf8'))[0].toJS()
    config.users[0].user = {exec: {apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: [plugin], interactiveMode: 'Never'}}
    const execConfig = join(dir, 'kubeconfig')
    writeFileSync(execConfig, stringifyYaml(config))
    const {code, stdout} = await runCli(['cluster', '--kubeconfig', execConfig, '--request-timeout', '1', '--json'])
    assert.equal(code, 5, stdout)
    // Authenticated: the version was read (the node list of this server hangs on purpose).
    assert.match((JSON.parse(stdout) as Report).cluster?.kubernetesVersion ?? '', /^1\.33\./)
  })

  it('rejected credentials (401)', async () => {
    const {code, stderr} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--context', OTHER_CONTEXT])
    assert.equal(code, 2)
    assert.match(stderr, /Unauthorized/)
    assert.match(stderr, /credentials were rejected/)
  })

  it('an unknown context', async () => {
    const {code, stdout} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--context', 'nope', '--json'])
    assert.equal(code, 2)
    assert.match(JSON.parse(stdout).error.message, /--context nope: no such context/)
  })

  it('a server that does not answer, within --request-timeout', async () => {
    const started = Date.now()
    const {code, stdout} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--request-timeout', '1', '--json'])
    // Well under the 30 s default: the flag bounds the wait (with room for a loaded machine).
    assert.ok(Date.now() - started < 20_000)
    // /version answers, the node list hangs: the report is honest about it.
    const report = JSON.parse(stdout) as Report
    assert.equal(code, 5)
    assert.ok(report.cluster?.unreadable.some((line) => /nodes: no answer within 1s/.test(line)))
  })

  it('a broken rule file is a usage error before any request reaches the API server', async () => {
    const before = server.requests.length
    const {code, stdout} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--rules', join(FIXTURES, 'bad-rules', 'typo-field.yaml'), '--json'])
    assert.equal(code, 2)
    assert.match(JSON.parse(stdout).error.message, /typo-field\.yaml:3:1 rule: unknown field "severty"/)
    assert.deepEqual(server.requests.slice(before), [])
  })

  it('a closed port and an untrusted certificate', async () => {
    const closed = await startApiServer({scenario: 'aks'})
    const closedConfig = writeKubeconfig(mkdtempSync(join(workdir, 'closed-')), closed)
    await closed.close()
    const refused = await runCli(['cluster', '--kubeconfig', closedConfig])
    assert.equal(refused.code, 2)
    // Said once, on the failed step's line, then what to do: not again as "Error:".
    assert.match(refused.stderr, /^✖ Connect to the API server \[FAILED: cannot use the API server https:\/\/127\.0\.0\.1:\d+ \(context [^)]+\): connection refused\]$/m)
    assert.equal(refused.stderr.split('connection refused').length - 1, 1, refused.stderr)
    assert.doesNotMatch(refused.stderr, /Error:/)
    assert.match(refused.stderr, /^Try this: Check the server address, the network path, and the CA in the kubeconfig\.$/m)
    const asJson = await runCli(['cluster', '--kubeconfig', closedConfig, '--json'])
    assert.equal(asJson.code, 2)
    assert.match((JSON.parse(asJson.stdout) as {error: {message: string}}).error.message, /connection refused$/)

    // Without the test CA, the server's certificate is checked against the system's CAs and refused.
    const untrusted = join(mkdtempSync(join(workdir, 'ca-')), 'kubeconfig')
    writeFileSync(untrusted, readFileSync(kubeconfig, 'utf8').replaceAll(/^\s*certificate-authority-data: .*$/gm, ''))
    const refusedCertificate = await runCli(['cluster', '--kubeconfig', untrusted])
    assert.equal(refusedCertificate.code, 2)
    assert.match(refusedCertificate.stderr, /certificate is not trusted/)
  })
})

describe('kpx-check snapshot, cluster --snapshot, rbac', () => {
  it('a snapshot evaluated offline gives the same result as the live run (consistency), and that result is the scenario\'s', async () => {
    const server = await startApiServer({scenario: 'ipvs-metallb'})
    try {
      const dir = mkdtempSync(join(workdir, 'snapshot-'))
      const kubeconfig = writeKubeconfig(dir, server)
      const file = join(dir, 'cluster.snapshot.json')
      const saved = await runCli(['snapshot', '--kubeconfig', kubeconfig, '-o', file])
      assert.equal(saved.code, 0, saved.stderr)
      assert.doesNotMatch(readFileSync(file, 'utf8'), /kpx-test-token|BEGIN CERTIFICATE|managedFields/)
      const live = JSON.parse((await runCli(['cluster', '--kubeconfig', kubeconfig, '--json'])).stdout) as Report
      const offline = JSON.parse((await runCli(['cluster', '--snapshot', file, '--json'])).stdout) as Report
      assert.deepEqual({...offline, generatedAt: ''}, {...live, generatedAt: ''})
      // What the ipvs-metallb cluster is, written by hand: warnings only, but two blockers cannot be checked;
      // each finding about objects names one of them: the two workloads that ping a ClusterIP, the Service
      // with externalIPs, the two that share a load-balancer address, the three that allocate NodePorts.
      assert.equal(live.verdict, 'incomplete')
      assert.equal(live.exitCode, 5)
      assert.deepEqual(
        live.findings.filter((finding) => finding.status === 'fail' && finding.severity !== 'info').map((finding) => `${finding.rule} ${finding.subject.kind} ${subjectName(finding.subject)}`),
        [
          'cluster/clusterip-ping Deployment legacy/billing-worker',
          'cluster/clusterip-ping CronJob monitoring/dns-canary',
          'cluster/cni-version DaemonSet kube-flannel/kube-flannel-ds',
          'cluster/external-ips Service legacy/billing-api',
          'cluster/ipvs-lb-hijack Service dns/coredns-external',
          'cluster/ipvs-lb-hijack Service ingress-nginx/ingress-nginx-controller',
          'cluster/kubernetes-version Cluster cluster',
          'cluster/nodeport-addresses Service dns/coredns-external',
          'cluster/nodeport-addresses Service ingress-nginx/ingress-nginx-controller',
          'cluster/nodeport-addresses Service monitoring/grafana',
        ],
      )
      // The example the README runs is this scenario's snapshot: it must not drift from what `snapshot` writes.
      const resourcesOf = (path: string) => (JSON.parse(readFileSync(path, 'utf8')) as ClusterSnapshot).resources
      assert.deepEqual(resourcesOf(EXAMPLE_SNAPSHOT), resourcesOf(file), 'regenerate test/fixtures/snapshots/kubespray-ipvs-metallb.snapshot.json')
    } finally {
      await server.close()
    }
  })

  it('a file that is not a snapshot is a usage error', async () => {
    const {code, stderr} = await runCli(['cluster', '--snapshot', join(workdir)])
    assert.equal(code, 2)
    assert.match(stderr, /--snapshot/)
  })

  it('rbac prints a read-only, Secret-free ClusterRole and Role', async () => {
    const {code, stdout} = await runCli(['rbac', '--service-account', 'kpx-check/kpx-check'])
    assert.equal(code, 0)
    const documents = parseAllDocuments(stdout).map((document) => document.toJS())
    const kinds = documents.map((document) => document.kind)
    assert.deepEqual(kinds.slice(0, 2), ['ClusterRole', 'ClusterRoleBinding'])
    assert.deepEqual(kinds.slice(2), ['Role', 'RoleBinding'], 'one Role and its binding')
    // Roles only where the namespace exists on every cluster, so kubectl apply never fails on a missing one.
    assert.deepEqual(documents.filter((document) => document.kind === 'Role' || document.kind === 'RoleBinding').map((document) => document.metadata.namespace), ['kube-system', 'kube-system'])
    const clusterWide = documents[0].rules.find((rule: {resources?: string[]}) => rule.resources?.includes('configmaps'))
    assert.deepEqual(clusterWide.resourceNames, ['kube-flannel-cfg'], 'a ConfigMap outside kube-system is granted by name in the ClusterRole')
    assert.deepEqual(documents[1].subjects, [{kind: 'ServiceAccount', name: 'kpx-check', namespace: 'kpx-check'}])
    const rules = documents.filter((document) => document.kind.endsWith('Role')).flatMap((document) => document.rules)
    assert.ok(rules.every((rule: {verbs: string[]}) => rule.verbs.every((verb) => verb === 'get' || verb === 'list')))
    assert.ok(rules.every((rule: {resources?: string[]}) => !rule.resources?.includes('secrets')))
    const configMaps = rules.find((rule: {resources?: string[]}) => rule.resources?.includes('configmaps'))
    assert.ok(configMaps.resourceNames.length > 0, 'ConfigMaps only by name')
  })
})

describe('kpx-check cluster --target-version', () => {
  it('1.40 with kube-proxy\'s mode unset: a warning, a step that sets the mode before the upgrade, and the deadline says why', async () => {
    const {report} = await checkScenario('kubeadm-calico', {args: ['--target-version', '1.40']})
    assert.equal(report.cluster?.proxyMode, 'iptables')
    const [implicit] = find(report, 'cluster/kube-proxy-mode-implicit', 'fail')
    assert.equal(implicit.severity, 'warning')
    assert.match(implicit.message, /upgrading kube-proxy 1\.34\.0 to 1\.40 switches every node to nftables at the upgrade/)
    const pin = report.plan.steps.find((step) => step.id === 'prerequisites/cluster-kube-proxy-mode-implicit')
    assert.ok(pin, report.plan.steps.map((step) => step.id).join(', '))
    assert.ok(pin.actions.some((action) => action.includes('Before kube-proxy is upgraded to 1.40, write the mode into ConfigMap kube-system/kube-proxy')), pin.actions.join('\n'))
    assert.match(report.plan.deadline ?? '', /^kube-proxy's mode is unset, and KEP-5343 plans an unset mode to be nftables from 1\.40: upgrading to Kubernetes 1\.40 switches every node/)
  })

  it('no target, the mode unset on kube-proxy 1.34: the implicit mode passes as iptables, and no step pins it', async () => {
    const {report} = await checkScenario('kubeadm-calico')
    const [implicit] = find(report, 'cluster/kube-proxy-mode-implicit')
    assert.equal(implicit.status, 'pass')
    assert.match(implicit.message, /kube-proxy 1\.34\.0 runs iptables, its default up to 1\.39/)
    assert.ok(!report.plan.steps.some((step) => step.id === 'prerequisites/cluster-kube-proxy-mode-implicit'))
  })

  it('v1.35, as kubectl prints versions, is taken as 1.35', async () => {
    const {report} = await checkScenario('ipvs-metallb', {args: ['--target-version', 'v1.35']})
    assert.match(find(report, 'cluster/ipvs-deprecation', 'fail')[0].message, /^IPVS mode is deprecated in 1\.35 \(/)
    assert.match(report.plan.deadline ?? '', /^IPVS mode is deprecated in Kubernetes 1\.35 \(/)
  })

  it('older than the cluster\'s own Kubernetes is refused with exit 2 and both versions, before any node is probed', async () => {
    const server = await startApiServer({scenario: 'kubeadm-calico'})
    try {
      const kubeconfig = writeKubeconfig(mkdtempSync(join(workdir, 'behind-')), server)
      const {code, stdout} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--node-probe', 'exec', '--target-version', '1.33', '--json'])
      assert.equal(code, 2)
      assert.deepEqual(JSON.parse(stdout).error, {
        name: 'UsageError',
        message: '--target-version 1.33 is older than the cluster\'s own Kubernetes 1.34.0 (context kpx-test)',
        exitCode: 2,
        suggestions: ['Give the version you are upgrading to: 1.34 or later.'],
      })
      assert.deepEqual(server.requests.filter((request) => request.path.endsWith('/exec')), [])
    } finally {
      await server.close()
    }
  })

  it('the cluster\'s own minor version is a target; an older one is refused in text runs too', async () => {
    // The snapshot's cluster runs v1.32.5.
    const same = await runCli(['cluster', '--snapshot', EXAMPLE_SNAPSHOT, '--target-version', '1.32', '--json'])
    assert.equal(same.code, 5, same.stdout.slice(0, 300))
    assert.equal((JSON.parse(same.stdout) as Report).verdict, 'incomplete')
    const behind = await runCli(['cluster', '--snapshot', EXAMPLE_SNAPSHOT, '--target-version', '1.2'])
    assert.equal(behind.code, 2)
    assert.equal(behind.stdout, '')
    assert.match(behind.stderr, /Error: --target-version 1\.2 is older than the cluster's own Kubernetes 1\.32\.5 \(context kubespray-prod\)\n/)
    assert.match(behind.stderr, /Try this: Give the version you are upgrading to: 1\.32 or later\./)
  })

  it('a value that is no minor version (1.x, banana, 1.35.2) is exit 2 with what to give', async () => {
    for (const value of ['1.x', 'banana', '1.35.2']) {
      const {code, stdout, stderr} = await runCli(['cluster', '--snapshot', EXAMPLE_SNAPSHOT, '--target-version', value])
      assert.equal(code, 2, value)
      assert.equal(stdout, '')
      assert.ok(stderr.includes(`Error: --target-version ${value}: expected a Kubernetes minor version such as 1.35 (or v1.35)\n`), stderr)
      assert.ok(stderr.includes('Try this: Give the major.minor of the release you are upgrading to: 1.35, not 1.35.2 or 1.x.'), stderr)
    }
  })
})
