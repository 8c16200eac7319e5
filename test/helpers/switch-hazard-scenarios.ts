/**
 * Cluster scenarios for the checks of what breaks after the switch and of rollback readiness: each one
 * of the scenarios in test/fixtures/clusters with one detail changed, in pairs (one that triggers the
 * check, a twin that differs in one detail and does not). The changes are spelled out here, on the
 * objects as the test API server serves them; test/fixtures/SOURCES.md lists the rule fixtures saved
 * from them with `kpx-check snapshot`.
 */
import type {KubeObject} from '../../src/sources/cluster/snapshot.js'
import {loadScenario, type Scenario} from './apiserver-scenario.js'

type Raw = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const DAEMONSETS = '/apis/apps/v1/daemonsets'
const CONFIGMAPS = '/api/v1/configmaps'
const ENDPOINTSLICES = '/apis/discovery.k8s.io/v1/endpointslices'

/** A scenario of test/fixtures/clusters, and what the test API server's GET /version says, when it differs. */
export interface HazardScenario {
  scenario: Scenario
  version?: {gitVersion: string}
}

function copy(name: string): Scenario {
  return structuredClone(loadScenario(name))
}

function named(objects: KubeObject[], name: string): Raw {
  const found = objects.find((object) => object.metadata?.name === name)
  if (!found) throw new Error(`no object ${name}`)
  return found as Raw
}

function container(daemonSet: Raw, name: string): Raw {
  return (daemonSet.spec.template.spec.containers as Raw[]).find((candidate) => candidate.name === name)!
}

/**
 * kubeadm-calico with kube-vip as its DaemonSet runs it for the control plane (`kube-vip manifest daemonset
 * --controlplane --services --arp`): announcing the VIP by ARP only, or also balancing the API servers with
 * IPVS (lb_enable=true).
 */
export function kubeVip(loadBalancing: boolean): HazardScenario {
  const scenario = copy('kubeadm-calico')
  const env = [
    {name: 'vip_arp', value: 'true'},
    {name: 'port', value: '6443'},
    {name: 'vip_interface', value: 'ens192'},
    {name: 'cp_enable', value: 'true'},
    {name: 'svc_enable', value: 'true'},
    {name: 'address', value: '10.20.0.100'},
    ...(loadBalancing ? [{name: 'lb_enable', value: 'true'}, {name: 'lb_port', value: '6443'}] : []),
  ]
  scenario.objects[DAEMONSETS].push({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name: 'kube-vip-ds', namespace: 'kube-system'},
    spec: {
      selector: {matchLabels: {'app.kubernetes.io/name': 'kube-vip-ds'}},
      template: {
        metadata: {labels: {'app.kubernetes.io/name': 'kube-vip-ds'}},
        spec: {hostNetwork: true, containers: [{name: 'kube-vip', image: 'ghcr.io/kube-vip/kube-vip:v0.8.9', args: ['manager'], env}]},
      },
    },
    status: {desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 3},
  } as KubeObject)
  return {scenario}
}

/** rke2-canal (v1.33.4+rke2r1, k3s-root's nft without JSON), or the same on another RKE2 release. */
export function rke2(gitVersion: string): HazardScenario {
  return {scenario: copy('rke2-canal'), version: {gitVersion}}
}

/** kubeadm-calico (kube-proxy DaemonSet and all) with Felix's FELIX_BPFENABLED set to true (eBPF mode, a manifest install) or false. */
export function calicoEbpf(enabled: boolean): HazardScenario {
  const scenario = copy('kubeadm-calico')
  container(named(scenario.objects[DAEMONSETS], 'calico-node'), 'calico-node').env.push({name: 'FELIX_BPFENABLED', value: String(enabled)})
  return {scenario}
}

/** kubeadm-calico with Felix in nftables mode (FELIX_NFTABLESMODE=Enabled) on the given Calico version. */
export function calicoNftables(version: string): HazardScenario {
  const scenario = copy('kubeadm-calico')
  const daemonSet = named(scenario.objects[DAEMONSETS], 'calico-node')
  for (const list of [daemonSet.spec.template.spec.containers, daemonSet.spec.template.spec.initContainers] as Raw[][]) {
    for (const each of list ?? []) each.image = String(each.image).replace(':v3.30.7', `:v${version}`)
  }

  container(daemonSet, 'calico-node').env.push({name: 'FELIX_NFTABLESMODE', value: 'Enabled'})
  return {scenario}
}

/**
 * kubeadm-calico with Antrea (2.5.0 unless said) instead of Calico (DaemonSet kube-system/antrea-agent,
 * ConfigMap kube-system/antrea-config) running AntreaProxy's proxyAll beside kube-proxy, with or without
 * the NFTablesHostNetworkMode feature gate.
 */
export function antreaProxyAll(nftablesHostNetwork: boolean, version = '2.5.0'): HazardScenario {
  const scenario = copy('kubeadm-calico')
  const calico = named(scenario.objects[DAEMONSETS], 'calico-node')
  const antrea = structuredClone(calico)
  antrea.metadata = {name: 'antrea-agent', namespace: 'kube-system', labels: {app: 'antrea', component: 'antrea-agent'}}
  antrea.spec.selector = {matchLabels: {app: 'antrea', component: 'antrea-agent'}}
  antrea.spec.template.metadata = {labels: {app: 'antrea', component: 'antrea-agent'}}
  antrea.spec.template.spec.initContainers = [{name: 'install-cni', image: `antrea/antrea-agent-ubuntu:v${version}`}]
  antrea.spec.template.spec.containers = [
    {name: 'antrea-agent', image: `antrea/antrea-agent-ubuntu:v${version}`, args: ['--config=/etc/antrea/antrea-agent.conf', '--logtostderr=false']},
    {name: 'antrea-ovs', image: `antrea/antrea-agent-ubuntu:v${version}`, command: ['start_ovs']},
  ]
  scenario.objects[DAEMONSETS] = scenario.objects[DAEMONSETS].map((object) => (object === (calico as KubeObject) ? (antrea as KubeObject) : object))
  const gates = nftablesHostNetwork ? 'featureGates:\n  NFTablesHostNetworkMode: true\n' : 'featureGates:\n'
  scenario.objects[CONFIGMAPS].push({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {name: 'antrea-config', namespace: 'kube-system', labels: {app: 'antrea'}},
    data: {'antrea-agent.conf': `${gates}trafficEncapMode: encap\nantreaProxy:\n  proxyAll: true\n  nodePortAddresses: []\n`},
  } as KubeObject)
  return {scenario}
}

/** kubeadm-calico (kernel 4.18, unless another kernel release is given) with one more EndpointSlice holding this many endpoints. */
export function endpoints(count: number, kernelRelease?: string): HazardScenario {
  const scenario = copy('kubeadm-calico')
  if (kernelRelease) for (const node of scenario.objects['/api/v1/nodes'] as Raw[]) node.status.nodeInfo.kernelVersion = kernelRelease
  const slice = structuredClone(named(scenario.objects[ENDPOINTSLICES], 'kube-dns-n4k8s'))
  slice.metadata = {...slice.metadata, name: 'bulk-x7k2p', namespace: 'default', labels: {'kubernetes.io/service-name': 'bulk'}}
  slice.endpoints = Array.from({length: count}, (_, index) => ({addresses: [`10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`], conditions: {ready: true}}))
  scenario.objects[ENDPOINTSLICES].push(slice as KubeObject)
  return {scenario}
}

/** kubeadm-calico with the kube-proxy image at this version. */
export function kubeProxyVersion(version: string): HazardScenario {
  const scenario = copy('kubeadm-calico')
  const kubeProxy = container(named(scenario.objects[DAEMONSETS], 'kube-proxy'), 'kube-proxy')
  kubeProxy.image = String(kubeProxy.image).replace(':v1.34.0', `:v${version}`)
  return {scenario}
}

/** kubeadm-calico with nodePortAddresses set in config.conf (in place of null), as YAML list items. */
export function nodePortAddresses(addresses: readonly string[]): HazardScenario {
  const scenario = copy('kubeadm-calico')
  const configMap = named(scenario.objects[CONFIGMAPS], 'kube-proxy')
  const listed = addresses.map((address) => `\n- ${address}`).join('')
  configMap.data['config.conf'] = String(configMap.data['config.conf']).replace('nodePortAddresses: null', `nodePortAddresses:${listed}`)
  return {scenario}
}
