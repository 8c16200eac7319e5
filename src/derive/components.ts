import {FactSet, type UnknownFact} from '../facts/fact-set.js'
import {type KeptContainer, type KeptObject, type KeptPodHolder, listed} from '../sources/cluster/kept-objects.js'
import {configMapData, containerFlags, readEnv} from '../sources/cluster/read-fields.js'
import type {SnapshotReads} from './snapshot-reads.js'

/** An object's namespace and name. */
export interface NamespacedName {
  namespace: string
  name: string
}

/** `namespace/name`, as reports and kubectl spell an object. */
export function namespaced(object: NamespacedName): string {
  return `${object.namespace}/${object.name}`
}

/** A networking component found in the cluster, from its DaemonSet and configuration. */
export interface Component {
  name: string
  /** cni: pod networking (checked against the CNI matrix); addon: other node-level networking. */
  role: 'addon' | 'cni'
  daemonSet: NamespacedName
  image: string
  version?: string
  dataplane?: string
  /** It implements Services itself; false too when `unread.replacesKubeProxy` says that could not be read. */
  replacesKubeProxy: boolean
  /** The AWS VPC CNI: its network policy agent enforces policies (aws-eks-nodeagent --enable-network-policy=true). */
  networkPolicy?: boolean
  /** Antrea: its host rules are written with nftables (the NFTablesHostNetworkMode feature gate), which does not rely on kube-proxy's mode. */
  nftablesHostNetwork?: boolean
  /** It balances with IPVS virtual servers, which every start of a kube-proxy in nftables mode flushes: kube-vip with lb_enable, lvscare. */
  ipvsBalancing?: boolean
  /** Settings its configuration would show, when that configuration could not be read (a 403 on its ConfigMap), and why. */
  unread?: Partial<Record<'dataplane' | 'replacesKubeProxy', UnknownFact>>
}

/** A container as the checks read it: of its command line and environment, only what read-fields.ts declares. */
interface Container {
  name: string
  image: string
  flags: Map<string, string>
  env: Map<string, string>
}

export function containersOf(object: KeptPodHolder): Container[] {
  const spec = object.spec?.template?.spec ?? object.spec
  return [...listed(spec?.containers), ...listed(spec?.initContainers)].map((container) => readContainer(container ?? {}))
}

function readContainer(container: KeptContainer): Container {
  return {name: String(container.name ?? ''), image: String(container.image ?? ''), flags: containerFlags(container), env: readEnv(container.env)}
}

/** `quay.io/calico/node:v3.30.7` → 3.30.7; digests and `latest` give undefined. */
export function imageVersion(image: string): string | undefined {
  const tag = /:([^:/@]+)(?:@sha256:[0-9a-f]+)?$/.exec(image)?.[1]
  return tag ? /^v?(\d+\.\d+(?:\.\d+)?)/.exec(tag)?.[1] : undefined
}

interface Detector {
  name: string
  role: Component['role']
  /** Matches the DaemonSet by name or by its main image. */
  matches: (name: string, images: string[]) => boolean
}

const byImage = (pattern: RegExp) => (_name: string, images: string[]) => images.some((image) => pattern.test(image))

const DETECTORS: Detector[] = [
  {name: 'gke-dataplane-v2', role: 'cni', matches: (name) => name === 'anetd'},
  {name: 'canal', role: 'cni', matches: (name) => /(^|-)canal$/.test(name)},
  {name: 'calico', role: 'cni', matches: (name, images) => name === 'calico-node' || byImage(/\/calico\/node:|\/tigera\/.*node:/)(name, images)},
  {name: 'flannel', role: 'cni', matches: (name, images) => name.startsWith('kube-flannel') || byImage(/\/flannel(-io)?\/flannel:|coreos\/flannel:/)(name, images)},
  {name: 'cilium', role: 'cni', matches: (name, images) => name === 'cilium' || byImage(/\/cilium\/cilium:/)(name, images)},
  {name: 'aws-vpc-cni', role: 'cni', matches: (name, images) => name === 'aws-node' || byImage(/amazon-k8s-cni:/)(name, images)},
  {name: 'azure-cni', role: 'cni', matches: (name) => name === 'azure-cns'},
  {name: 'antrea', role: 'cni', matches: (name) => name === 'antrea-agent'},
  {name: 'kube-router', role: 'cni', matches: (name, images) => name === 'kube-router' || byImage(/cloudnativelabs\/kube-router/)(name, images)},
  {name: 'weave', role: 'cni', matches: (name, images) => name === 'weave-net' || byImage(/weaveworks\/weave-kube/)(name, images)},
  {name: 'kube-ovn', role: 'cni', matches: (name) => name === 'kube-ovn-cni'},
  {name: 'ovn-kubernetes', role: 'cni', matches: (name) => name === 'ovnkube-node'},
  {name: 'openshift-sdn', role: 'cni', matches: (name, images) => name === 'sdn' && byImage(/openshift/)(name, images)},
  {name: 'terway', role: 'cni', matches: (name) => name.startsWith('terway')},
  {name: 'kindnet', role: 'cni', matches: (name) => name === 'kindnet'},
  {name: 'metallb', role: 'addon', matches: (name, images) => byImage(/metallb\/speaker/)(name, images) || name === 'metallb-speaker'},
  {name: 'kube-vip', role: 'addon', matches: (name, images) => byImage(/kube-vip/)(name, images)},
  {name: 'lvscare', role: 'addon', matches: (name, images) => byImage(/\/lvscare:/)(name, images)},
  {name: 'node-local-dns', role: 'addon', matches: (name) => name === 'node-local-dns'},
  {name: 'istio', role: 'addon', matches: (name) => name === 'istio-cni-node'},
]

/**
 * A key of a component's own ConfigMap, read in its DaemonSet's namespace (a pod mounts ConfigMaps of
 * its namespace only): '' when the ConfigMap or the key is absent, the failure when it could not be read.
 */
function ownConfig(reads: SnapshotReads, component: Component, configMap: string, key: string): {failure: UnknownFact} | {value: string} {
  const read = reads.object('configMaps', configMap, component.daemonSet.namespace)
  if (read.failure) return {failure: read.failure}
  return {value: (read.object && configMapData(read.object)[key]) ?? ''}
}

export function detectComponents(daemonSets: readonly KeptPodHolder[], reads: SnapshotReads): Component[] {
  const components: Component[] = []
  for (const daemonSet of daemonSets) {
    const name = daemonSet.metadata?.name ?? ''
    const containers = containersOf(daemonSet)
    const detector = DETECTORS.find((candidate) => candidate.matches(name, containers.map((container) => container.image)))
    if (!detector) continue
    const main = containers.find((container) => container.name === name || container.image.includes(detector.name)) ?? containers[0]
    const component: Component = {
      name: detector.name,
      role: detector.role,
      daemonSet: {namespace: daemonSet.metadata?.namespace ?? '', name},
      image: main?.image ?? '',
      version: main ? imageVersion(main.image) : undefined,
      replacesKubeProxy: detector.name === 'gke-dataplane-v2' || detector.name === 'ovn-kubernetes',
    }
    refine(component, containers, reads)
    components.push(component)
  }

  return components
}

/** Calico's dataplane for each FELIX_NFTABLESMODE (a manifest install without an Installation); else Iptables. */
const FELIX_NFTABLES_DATAPLANE: Record<string, string> = {Enabled: 'Nftables', Auto: 'Auto'}

/**
 * Calico 3.32+ with the operator sets FelixConfiguration default's nftablesMode to Auto (tigera/operator#4389): Felix
 * then follows each node's kube-proxy, so an iptables dataplane switches with it. Read only when the dataplane
 * would be Iptables; a 403 leaves it unknown; a snapshot saved before kpx-check read it keeps what the rest shows.
 */
function followFelixConfiguration(component: Component, reads: SnapshotReads): void {
  const felix = reads.object('felixConfigurations', 'default')
  if (felix.failure?.reason === 'not-collected') return
  if (felix.failure) component.unread = {dataplane: felix.failure}
  else if (felix.object?.spec?.nftablesMode === 'Auto') component.dataplane = 'Auto'
}

/** Dataplane and kube-proxy replacement, from each component's own configuration. */
function refine(component: Component, containers: Container[], reads: SnapshotReads): void {
  const env = new Map(containers.flatMap((container) => [...container.env]))
  switch (component.name) {
    case 'calico': {
      const installation = reads.object('calicoInstallations', 'default')
      if (installation.failure) {
        component.unread = {dataplane: installation.failure, replacesKubeProxy: installation.failure}
        break
      }

      const linuxDataplane = installation.object?.spec?.calicoNetwork?.linuxDataplane
      const installed = typeof linuxDataplane === 'string' ? linuxDataplane : undefined
      component.dataplane = installed ?? (env.get('FELIX_BPFENABLED') === 'true' ? 'BPF' : (FELIX_NFTABLES_DATAPLANE[env.get('FELIX_NFTABLESMODE') ?? ''] ?? 'Iptables'))
      component.replacesKubeProxy = component.dataplane === 'BPF'
      if (component.dataplane === 'Iptables') followFelixConfiguration(component, reads)
      break
    }

    case 'flannel': {
      const netConf = ownConfig(reads, component, 'kube-flannel-cfg', 'net-conf.json')
      if ('failure' in netConf) component.unread = {dataplane: netConf.failure}
      else component.dataplane = /"EnableNFTables"\s*:\s*true/.test(netConf.value) ? 'nftables' : 'iptables'
      break
    }

    case 'cilium': {
      const replacement = ownConfig(reads, component, 'cilium-config', 'kube-proxy-replacement')
      if ('failure' in replacement) component.unread = {replacesKubeProxy: replacement.failure}
      else component.replacesKubeProxy = replacement.value === 'true' || replacement.value === 'strict'
      break
    }

    case 'antrea': {
      const agentConf = ownConfig(reads, component, 'antrea-config', 'antrea-agent.conf')
      if ('failure' in agentConf) component.unread = {replacesKubeProxy: agentConf.failure}
      else {
        component.replacesKubeProxy = /^[ \t]*proxyAll:[ \t]*true/m.test(agentConf.value)
        component.nftablesHostNetwork = /^[ \t]*NFTablesHostNetworkMode:[ \t]*true/m.test(agentConf.value)
      }
      break
    }

    case 'aws-vpc-cni': {
      component.networkPolicy = containers.some((container) => container.flags.get('enable-network-policy') === 'true')
      break
    }

    case 'kube-vip': {
      // Only the control-plane load balancer (lb_enable) makes IPVS virtual servers; ARP or BGP announcing alone makes none.
      component.ipvsBalancing = env.get('lb_enable') === 'true'
      break
    }

    case 'lvscare': {
      component.ipvsBalancing = true
      break
    }

    case 'kube-router': {
      component.replacesKubeProxy = containers.some((container) => container.flags.get('run-service-proxy') === 'true')
      break
    }
  }
}

/** The DaemonSets that may run on Linux nodes: one whose node selector names Windows alone is no component here, nor kube-proxy. */
export function linuxDaemonSets(resources: SnapshotReads): Array<KeptObject<'daemonSets'>> {
  return resources.items('daemonSets').filter((daemonSet) => daemonSet.spec?.template?.spec?.nodeSelector?.['kubernetes.io/os'] !== 'windows')
}

/** What the cluster checks read of the components found: the VPC CNI's network policies, the add-ons, and what balances with IPVS. */
export function deriveComponentFacts(cluster: FactSet, resources: SnapshotReads, components: readonly Component[]): void {
  resources.derive(cluster, ['daemonSets'], ['cluster.awsNetworkPolicy', 'cluster.components'], () => {
    cluster.set(
      'cluster.awsNetworkPolicy',
      components.some((component) => component.name === 'aws-vpc-cni' && component.networkPolicy === true),
    )
    cluster.set('cluster.components', [
      ...components.filter((component) => component.role === 'addon').map((component) => component.name),
      ...components.filter((component) => component.name === 'kube-router' && component.replacesKubeProxy).map(() => 'kube-router-service-proxy'),
      ...components.filter((component) => component.ipvsBalancing === true).map((component) => `${component.name}-ipvs`),
    ])
  })
}

/** A CNI as a rule subject. */
export function componentFacts(cluster: FactSet, component: Component): FactSet {
  const facts = new FactSet(cluster)
    .set('component.name', component.name)
    .set('component.workload', `DaemonSet ${namespaced(component.daemonSet)}`)
    .set('component.image', component.image)
    .set('component.replacesKubeProxy', component.replacesKubeProxy)
  if (component.version) facts.set('component.version', component.version)
  else facts.unknown('component.version', 'unparseable', `no version in the image tag ${component.image}`)
  if (component.dataplane) facts.set('component.dataplane', component.dataplane)
  else facts.unknown('component.dataplane', 'not-present', `${component.name} has one dataplane`)
  if (component.unread?.dataplane) facts.unknown('component.dataplane', component.unread.dataplane.reason, component.unread.dataplane.detail)
  if (component.unread?.replacesKubeProxy) facts.unknown('component.replacesKubeProxy', component.unread.replacesKubeProxy.reason, component.unread.replacesKubeProxy.detail)
  const unreadConfig = component.unread?.replacesKubeProxy
  if (component.nftablesHostNetwork === undefined) facts.unknown('component.nftablesHostNetwork', unreadConfig?.reason ?? 'not-present', unreadConfig?.detail ?? `${component.name} has no NFTablesHostNetworkMode (Antrea's)`)
  else facts.set('component.nftablesHostNetwork', component.nftablesHostNetwork)
  return facts
}
