/**
 * What Kubernetes 1.35–1.37 changed, each through bin/run.js against the HTTPS test API server: a
 * scenario of test/fixtures/clusters with the objects each change is about added, as the API returns them.
 */
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Finding} from '../../src/contract/finding.js'
import type {Report} from '../../src/contract/report.js'
import type {KubeObject} from '../../src/sources/cluster/snapshot.js'
import {loadScenario} from '../helpers/apiserver-scenario.js'
import {type Fault, type RecordedRequest, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {validateReport} from '../helpers/schemas.js'

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-k137-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

/** How a test changes a scenario: objects served besides its own, collections served instead of its own, and faults. */
interface ScenarioChange {
  added?: Record<string, KubeObject[]>
  replaced?: Record<string, KubeObject[]>
  faults?: Fault[]
}

/** Runs `kpx-check cluster --json` against the scenario so changed: the exit code, the report (valid against its schema) and the requests the server received. */
async function checkWith(scenario: string, change: ScenarioChange = {}, args: string[] = []): Promise<{code: null | number; report: Report; requests: RecordedRequest[]}> {
  const base = loadScenario(scenario)
  const objects = {...base.objects, ...change.replaced}
  for (const [path, items] of Object.entries(change.added ?? {})) objects[path] = [...(objects[path] ?? []), ...items]
  const server = await startApiServer({scenario: {...base, objects}, faults: change.faults})
  try {
    const kubeconfig = writeKubeconfig(mkdtempSync(join(workdir, `${scenario}-`)), server)
    const {code, stdout} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--json', ...args])
    const report = JSON.parse(stdout) as Report
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
    return {code, report, requests: server.requests}
  } finally {
    await server.close()
  }
}

const findingsOf = (report: Report, rule: string): Finding[] => report.findings.filter((finding) => finding.rule === rule)

/** A ClusterIP Service as `kubectl get service -o json` shows it. */
function clusterIpService(namespace: string, name: string, portName: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {name, namespace, uid: '5b0e6f0a-51a4-4f0b-8d0e-2f8f4c1d7a61', resourceVersion: '918273', creationTimestamp: '2026-10-02T08:14:55Z'},
    spec: {
      clusterIP: '10.96.212.40',
      clusterIPs: ['10.96.212.40'],
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [{name: portName, port: 9443, protocol: 'TCP', targetPort: 9443}],
      selector: {app: name},
      sessionAffinity: 'None',
      type: 'ClusterIP',
    },
    status: {loadBalancer: {}},
  } as KubeObject
}

describe('kpx-check cluster: one long Service name breaks every node in nftables mode before 1.37.0', () => {
  it('a 129-byte <namespace>/<name>:<port name> on kube-proxy 1.34 is a blocker naming the Service and port', async () => {
    const namespace = 'tenant-northwind-traders-payments-settlement-reconciliation-prd'
    const name = 'ledger-reconciliation-batch-scheduler-eu-central1'
    const {code, report} = await checkWith('kubeadm-calico', {added: {'/api/v1/services': [clusterIpService(namespace, name, 'grpc-settlement')]}})
    const [finding] = findingsOf(report, 'cluster/service-comment-length')
    assert.deepEqual([finding.status, finding.severity, finding.subject], ['fail', 'blocker', {kind: 'Service', namespace, name}])
    assert.ok(finding.message.includes(`${namespace}/${name}:grpc-settlement (129 bytes)`), finding.message)
    assert.equal(report.verdict, 'no-go')
    assert.equal(code, 3)
  })

  it('the scenario as it is, with short names: the rule passes', async () => {
    const {report} = await checkWith('kubeadm-calico')
    const [finding] = findingsOf(report, 'cluster/service-comment-length')
    assert.deepEqual([finding.status, finding.subject.kind], ['pass', 'Cluster'])
    assert.match(finding.message, /^\d+ Service\(s\) pass; for example [^:]+: None of its ports' <namespace>\/<name>:<port name> exceeds/)
  })
})

/** FelixConfiguration default as the Calico 3.32 operator writes it (tigera/operator#4389), as the API returns it. */
const FELIX_AUTO: KubeObject = {
  apiVersion: 'crd.projectcalico.org/v1',
  kind: 'FelixConfiguration',
  metadata: {name: 'default', uid: '8c0f2e4a-3b1d-4e7a-9f65-2d4c8b1a7e93', resourceVersion: '1187', creationTimestamp: '2026-10-02T08:10:12Z', generation: 1},
  spec: {bpfLogLevel: '', floatingIPs: 'Disabled', logSeverityScreen: 'Info', nftablesMode: 'Auto', reportingInterval: '0s'},
} as KubeObject

/** A scenario's collection with `from` replaced by `to` in its JSON text (an image tag, an OS image, a flag). */
function withText(scenario: string, path: string, from: string, to: string): KubeObject[] {
  return loadScenario(scenario).objects[path].map((object) => JSON.parse(JSON.stringify(object).replaceAll(from, to)) as KubeObject)
}

describe('kpx-check cluster: Calico whose Felix follows kube-proxy (nftablesMode Auto)', () => {
  it('Calico 3.32 with FelixConfiguration default Auto: no "switch Calico" warning and no lockstep step; 3.33 is preferred', async () => {
    const {report, requests} = await checkWith('kubeadm-calico', {
      replaced: {'/apis/apps/v1/daemonsets': withText('kubeadm-calico', '/apis/apps/v1/daemonsets', 'calico/node:v3.30.7', 'calico/node:v3.32.1'), '/apis/crd.projectcalico.org/v1/felixconfigurations': [FELIX_AUTO]},
    })
    const [calico] = findingsOf(report, 'cluster/cni-version')
    assert.equal(calico.status, 'pass', calico.message)
    assert.match(calico.message, /^Calico 3\.32\.1 \(DaemonSet kube-system\/calico-node\): Felix's nftablesMode is Auto, so it follows kube-proxy's mode node by node .*prefer Calico 3\.33\+/)
    assert.ok(!report.plan.steps.some((step) => step.id === 'prepare-cni/calico-lockstep'), report.plan.steps.map((step) => step.id).join(', '))
    assert.ok(requests.some((request) => request.path === '/apis/crd.projectcalico.org/v1/felixconfigurations/default' && request.method === 'GET'))
  })

  it('FelixConfiguration not installed (404): Calico on iptables still gets the switch warning and the lockstep step', async () => {
    const {report} = await checkWith('kubeadm-calico')
    const [calico] = findingsOf(report, 'cluster/cni-version')
    assert.deepEqual([calico.status, calico.severity], ['fail', 'warning'])
    assert.ok(report.plan.steps.some((step) => step.id === 'prepare-cni/calico-lockstep'))
  })

  it('FelixConfiguration forbidden (403): whether Calico follows kube-proxy is unknown, never passed', async () => {
    const {report} = await checkWith('kubeadm-calico', {
      added: {'/apis/crd.projectcalico.org/v1/felixconfigurations': [FELIX_AUTO]},
      faults: [{path: '/apis/crd.projectcalico.org/v1/felixconfigurations/default', kind: 'forbidden'}],
    })
    const [calico] = findingsOf(report, 'cluster/cni-version')
    assert.deepEqual([calico.status, calico.reason], ['unknown', 'permission-denied'])
    assert.match(calico.message, /felixconfigurations/)
    assert.notEqual(report.verdict, 'go')
  })
})

describe('kpx-check cluster: what IPVS and DNS add-ons lose at the switch', () => {
  it('an IPVS cluster with spec.externalIPs names each Service and its addresses (deprecated since 1.36; kube-ipvs0 answers them today)', async () => {
    const {report} = await checkWith('ipvs-metallb')
    const [external] = findingsOf(report, 'cluster/external-ips')
    assert.deepEqual([external.status, external.severity, external.subject], ['fail', 'warning', {kind: 'Service', namespace: 'legacy', name: 'billing-api'}])
    assert.match(external.message, /^It sets spec\.externalIPs \([^)]+\)\. In IPVS mode kube-ipvs0 answers those addresses/)
  })

  it('NodeLocal DNSCache: a note, and a canary step that resolves through it on the canary node', async () => {
    const nodeLocalDns: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: {name: 'node-local-dns', namespace: 'kube-system', labels: {'k8s-app': 'node-local-dns'}},
      spec: {
        selector: {matchLabels: {'k8s-app': 'node-local-dns'}},
        template: {
          metadata: {labels: {'k8s-app': 'node-local-dns'}},
          spec: {
            hostNetwork: true,
            priorityClassName: 'system-node-critical',
            containers: [{name: 'node-cache', image: 'registry.k8s.io/dns/k8s-dns-node-cache:1.23.1', args: ['-localip', '169.254.20.10,10.96.0.10', '-conf', '/etc/Corefile', '-upstreamsvc', 'kube-dns-upstream']}],
          },
        },
      },
      status: {currentNumberScheduled: 3, desiredNumberScheduled: 3, numberAvailable: 3, numberMisscheduled: 0, numberReady: 3, observedGeneration: 1, updatedNumberScheduled: 3},
    } as KubeObject
    const {report} = await checkWith('kubeadm-calico', {added: {'/apis/apps/v1/daemonsets': [nodeLocalDns]}})
    const [dns] = findingsOf(report, 'cluster/node-local-dns')
    assert.deepEqual([dns.status, dns.severity], ['fail', 'info'])
    const canary = report.plan.steps.find((step) => step.id === 'canary/canary-dns')
    assert.ok(canary, report.plan.steps.map((step) => step.id).join(', '))
    assert.match(canary.why, /NodeLocal DNSCache .*once the canary has switched, resolve names through it on that node/)
    // From the Kubernetes API alone no node counts as checked: no canary node, so the step says why it has no commands.
    assert.deepEqual([canary.actions, canary.commands], [['No node is ready to switch: fix the blockers and check the unchecked nodes first, then run kpx-check again.'], []])
    const {report: without} = await checkWith('kubeadm-calico')
    assert.ok(!without.plan.steps.some((step) => step.id === 'canary/canary-dns'))
  })
})

describe('kpx-check cluster: EL10 nodes', () => {
  it('AlmaLinux 10 nodes: each says nftables is the only working path there, and flannel needs EnableNFTables', async () => {
    const nodes = loadScenario('kubeadm-calico').objects['/api/v1/nodes'].map((node) => {
      const copy = structuredClone(node) as KubeObject & {status: {nodeInfo: Record<string, string>}}
      copy.status.nodeInfo.osImage = 'AlmaLinux 10.0 (Purple Lion)'
      copy.status.nodeInfo.kernelVersion = '6.12.0-55.9.1.el10_0.x86_64'
      return copy
    })
    const {report} = await checkWith('kubeadm-calico', {replaced: {'/api/v1/nodes': nodes}})
    for (const node of report.nodes) {
      const check = node.checks['node/os-distro']
      assert.deepEqual([check.status, check.severity], ['fail', 'info'], node.name)
      assert.match(check.message, /^AlmaLinux 10\.0 \(Purple Lion\) \(EL10\) has no iptables userspace .* nftables mode is the only working path, and flannel must set EnableNFTables/)
    }
  })
})

describe('kpx-check cluster: EKS on Bottlerocket', () => {
  it('Bottlerocket nodes with the VPC CNI network policy agent on: a heuristic warning naming the caveat', async () => {
    const {report} = await checkWith('eks-old-vpc-cni', {
      replaced: {
        '/api/v1/nodes': withText('eks-old-vpc-cni', '/api/v1/nodes', 'Amazon Linux 2023.9.20251208', 'Bottlerocket OS 1.42.0 (aws-k8s-1.33)'),
        '/apis/apps/v1/daemonsets': withText('eks-old-vpc-cni', '/apis/apps/v1/daemonsets', '--enable-network-policy=false', '--enable-network-policy=true'),
      },
    })
    const [caveat] = findingsOf(report, 'cluster/eks-bottlerocket')
    assert.deepEqual([caveat.status, caveat.severity, caveat.confidence], ['fail', 'warning', 'heuristic'])
    assert.match(caveat.message, /^3 Bottlerocket node\(s\), e\.g\. ip-10-0-10-170\.ec2\.internal, with the VPC CNI's network policy agent\s+enforcing policies: .*bottlerocket-os\/bottlerocket#4674/)

    const {report: plain} = await checkWith('eks-old-vpc-cni')
    assert.equal(findingsOf(plain, 'cluster/eks-bottlerocket')[0].status, 'skip')
  })
})

describe('kpx-check cluster: alerts on metrics nftables mode does not export', () => {
  const prometheusRule = (expr: string): KubeObject =>
    ({
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PrometheusRule',
      metadata: {name: 'kube-proxy', namespace: 'monitoring', labels: {prometheus: 'k8s', role: 'alert-rules'}, uid: '3f9c6a2e-0b4d-4c1e-8a7f-5d2e9b6c1a40', resourceVersion: '52113'},
      spec: {groups: [{name: 'kube-proxy', rules: [{alert: 'KubeProxyDown', expr: 'absent(up{job="kube-proxy"} == 1)', for: '15m'}, {alert: 'KubeProxyRestoreFailures', expr, for: '10m', labels: {severity: 'warning'}}]}]},
    }) as KubeObject

  it('names the PrometheusRule, the alert and the metric, with its nftables-mode replacement', async () => {
    const {report} = await checkWith('kubeadm-calico', {added: {'/apis/monitoring.coreos.com/v1/prometheusrules': [prometheusRule('increase(kubeproxy_sync_proxy_rules_iptables_restore_failures_total[10m]) > 0')]}})
    const [finding] = findingsOf(report, 'cluster/iptables-metric-rules')
    assert.deepEqual([finding.status, finding.severity, finding.subject], ['fail', 'warning', {kind: 'PrometheusRule', namespace: 'monitoring', name: 'kube-proxy'}])
    assert.ok(finding.message.includes('alert KubeProxyRestoreFailures: kubeproxy_sync_proxy_rules_iptables_restore_failures_total'), finding.message)
    assert.ok(finding.message.includes('kubeproxy_sync_proxy_rules_iptables_restore_failures_total → kubeproxy_sync_proxy_rules_nftables_sync_failures_total'), finding.message)
  })

  it('the PrometheusRule CRD not installed (404) concerns nothing; a 403 leaves it unknown', async () => {
    const {report} = await checkWith('kubeadm-calico')
    const [none] = findingsOf(report, 'cluster/iptables-metric-rules')
    assert.deepEqual([none.status, none.message], ['skip', 'No PrometheusRule in the cluster is concerned.'])
    const {report: forbidden} = await checkWith('kubeadm-calico', {
      added: {'/apis/monitoring.coreos.com/v1/prometheusrules': [prometheusRule('up == 0')]},
      faults: [{path: '/apis/monitoring.coreos.com/v1/prometheusrules', kind: 'forbidden'}],
    })
    const [finding] = findingsOf(forbidden, 'cluster/iptables-metric-rules')
    assert.deepEqual([finding.status, finding.reason], ['unknown', 'permission-denied'])
  })
})


describe('kpx-check cluster: platforms with a recipe of their own (k0s, Kubermatic KKP, ACK)', () => {
  const stepIds = (report: Report): string[] => report.plan.steps.map((step) => step.id)
  const commandsOf = (report: Report, id: string): string => report.plan.steps.find((step) => step.id === id)?.commands.join('\n') ?? ''
  const undoOf = (report: Report, id: string): string => report.plan.steps.find((step) => step.id === id)?.undo.join('\n') ?? ''
  const actionsOf = (report: Report, id: string): string => report.plan.steps.find((step) => step.id === id)?.actions.join('\n') ?? ''
  // From the Kubernetes API alone no node counts as checked: a step that restarts kube-proxy on every node is left out, with this note.
  const NOT_YET = /^Not yet: this restarts kube-proxy on every node at once, and \S+, \S+, \S+ are blocked or not checked /m

  it('k0s (kubelets v1.34.0+k0s, kube-proxy on quay.io/k0sproject/kube-proxy): the mode is set in the k0s configuration, after reading the nft of k0s\'s own image', async () => {
    const {report} = await checkWith('kubeadm-calico', {
      replaced: {
        '/api/v1/nodes': withText('kubeadm-calico', '/api/v1/nodes', '"v1.34.0"', '"v1.34.0+k0s"'),
        '/apis/apps/v1/daemonsets': withText('kubeadm-calico', '/apis/apps/v1/daemonsets', 'registry.k8s.io/kube-proxy:v1.34.0', 'quay.io/k0sproject/kube-proxy:v1.34.0'),
      },
    })
    assert.deepEqual([report.cluster?.platform, report.plan.platform, report.plan.confidence], ['k0s', 'k0s', 'derived'])
    assert.ok(stepIds(report).includes('prerequisites/image-nft'), stepIds(report).join(', '))
    assert.match(commandsOf(report, 'prerequisites/image-nft'), /^kubectl -n kube-system exec daemonset\/kube-proxy -- nft --version/m)
    // k0s applies the mode to every node at once: with no node checked, set-mode says why it has no commands; its undo is k0s's own.
    assert.deepEqual(commandsOf(report, 'configure/set-mode'), '')
    assert.match(actionsOf(report, 'configure/set-mode'), NOT_YET)
    assert.match(undoOf(report, 'configure/set-mode'), /^kubectl -n kube-system patch clusterconfig k0s --type merge -p '\{"spec":\{"network":\{"kubeProxy":\{"mode":"iptables"\}\}\}\}'/)
    assert.match(commandsOf(report, 'rollback/rollback'), /"mode":"iptables"/)
    // kubeadm's steps are not k0s's: its ConfigMap is rendered by k0s, and edits to it are undone.
    assert.ok(!/kubeadm|edit configmap/.test(report.plan.steps.flatMap((step) => step.commands).join('\n')), report.plan.steps.flatMap((step) => step.commands).join('\n'))
  })

  it('Kubermatic KKP (nodes labelled system/cluster and system/project), in IPVS mode: proxyMode on the Cluster object in the seed, a heuristic detection', async () => {
    const kkpLabels = '"kubernetes.io/os":"linux","system/cluster":"x7kq2dwz4m","system/project":"b9mlqt5v2c"'
    const {report} = await checkWith('ipvs-metallb', {replaced: {'/api/v1/nodes': withText('ipvs-metallb', '/api/v1/nodes', '"kubernetes.io/os":"linux"', kkpLabels)}})
    assert.deepEqual([report.cluster?.platform, report.cluster?.proxyMode, report.plan.platform], ['kubermatic', 'ipvs', 'kubermatic'])
    // The seed's proxyMode applies to every node at once: with no node checked, set-mode says why it has no commands; its undo is KKP's own.
    assert.deepEqual(commandsOf(report, 'configure/set-mode'), '')
    assert.match(actionsOf(report, 'configure/set-mode'), NOT_YET)
    // It sets and checks CLUSTER_ID itself, then patches: a fresh shell has no CLUSTER_ID.
    assert.match(undoOf(report, 'configure/set-mode'), /^CLUSTER_ID=.*\n: "\$\{CLUSTER_ID:\?.*\}"\nkubectl --kubeconfig seed-kubeconfig patch cluster "\$CLUSTER_ID" --type merge -p '\{"spec":\{"clusterNetwork":\{"proxyMode":"ipvs"\}\}\}'$/)
    assert.match(commandsOf(report, 'rollback/rollback'), /"proxyMode":"ipvs"/)
    assert.ok(report.plan.summary.includes('heuristically'), report.plan.summary)

    const {report: plain} = await checkWith('ipvs-metallb', {replaced: {'/api/v1/nodes': withText('ipvs-metallb', '/api/v1/nodes', '"kubernetes.io/os":"linux"', '"kubernetes.io/os":"linux","system/cluster":"x7kq2dwz4m"')}})
    assert.notEqual(plain.cluster?.platform, 'kubermatic', 'one of the two labels is not KKP')
  })

  it('Alibaba Cloud ACK (nodes labelled alibabacloud.com/nodepool-id): nftables is chosen at cluster creation, a heuristic recipe', async () => {
    const ackLabels = '"kubernetes.io/os":"linux","alibabacloud.com/nodepool-id":"np5b1c3d9e7f2a4c6e8b0d2f4a6c8e0b2"'
    const {report} = await checkWith('kubeadm-calico', {replaced: {'/api/v1/nodes': withText('kubeadm-calico', '/api/v1/nodes', '"kubernetes.io/os":"linux"', ackLabels)}})
    assert.deepEqual([report.cluster?.platform, report.plan.platform, report.plan.confidence], ['ack', 'ack', 'heuristic'])
    assert.ok(stepIds(report).includes('configure/new-cluster'), stepIds(report).join(', '))
    assert.match(commandsOf(report, 'configure/new-cluster'), /proxy_mode = "nftables"/)
    const [platformSwitch] = findingsOf(report, 'cluster/platform-switch')
    assert.ok(platformSwitch, 'cluster/platform-switch has a finding')
  })
})
