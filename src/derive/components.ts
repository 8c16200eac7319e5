import type {KubeObject} from '../sources/cluster/snapshot.js'

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
  replacesKubeProxy: boolean
}

type Raw = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

interface Container {
  name: string
  image: string
  args: string[]
  env: Map<string, string>
}

export function containersOf(object: KubeObject): Container[] {
  const spec = ((object as Raw).spec?.template?.spec ?? (object as Raw).spec ?? {}) as Raw
  return [...(spec.containers ?? []), ...(spec.initContainers ?? [])].map((container: Raw) => ({
    name: String(container.name ?? ''),
    image: String(container.image ?? ''),
    args: [...(container.command ?? []), ...(container.args ?? [])].map(String),
    env: new Map(((container.env ?? []) as Raw[]).filter((env) => typeof env.value === 'string').map((env) => [env.name, env.value])),
  }))
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
  {name: 'node-local-dns', role: 'addon', matches: (name) => name === 'node-local-dns'},
  {name: 'istio', role: 'addon', matches: (name) => name === 'istio-cni-node'},
]

export interface ComponentInputs {
  daemonSets: KubeObject[]
  configMaps: KubeObject[]
  calicoInstallations: KubeObject[]
}

function configData(configMaps: KubeObject[], name: string): Record<string, string> {
  return ((configMaps.find((map) => map.metadata?.name === name) as Raw | undefined)?.data ?? {}) as Record<string, string>
}

export function detectComponents(inputs: ComponentInputs): Component[] {
  const components: Component[] = []
  for (const daemonSet of inputs.daemonSets) {
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
    refine(component, containers, inputs)
    components.push(component)
  }

  return components
}

/** Calico's dataplane for each FELIX_NFTABLESMODE (a manifest install without an Installation); else Iptables. */
const FELIX_NFTABLES_DATAPLANE: Record<string, string> = {Enabled: 'Nftables', Auto: 'Auto'}

/** Dataplane and kube-proxy replacement, from each component's own configuration. */
function refine(component: Component, containers: Container[], inputs: ComponentInputs): void {
  const env = new Map(containers.flatMap((container) => [...container.env]))
  const args = containers.flatMap((container) => container.args)
  switch (component.name) {
    case 'calico': {
      const installed = (inputs.calicoInstallations[0] as Raw | undefined)?.spec?.calicoNetwork?.linuxDataplane as string | undefined
      component.dataplane = installed ?? (env.get('FELIX_BPFENABLED') === 'true' ? 'BPF' : (FELIX_NFTABLES_DATAPLANE[env.get('FELIX_NFTABLESMODE') ?? ''] ?? 'Iptables'))
      component.replacesKubeProxy = component.dataplane === 'BPF'
      break
    }

    case 'flannel': {
      const netConf = configData(inputs.configMaps, 'kube-flannel-cfg')['net-conf.json'] ?? ''
      component.dataplane = /"EnableNFTables"\s*:\s*true/.test(netConf) ? 'nftables' : 'iptables'
      break
    }

    case 'cilium': {
      const replacement = configData(inputs.configMaps, 'cilium-config')['kube-proxy-replacement'] ?? ''
      component.replacesKubeProxy = replacement === 'true' || replacement === 'strict'
      break
    }

    case 'antrea': {
      const agentConf = configData(inputs.configMaps, 'antrea-config')['antrea-agent.conf'] ?? ''
      component.replacesKubeProxy = /^[ \t]*proxyAll:[ \t]*true/m.test(agentConf)
      break
    }

    case 'kube-router': {
      component.replacesKubeProxy = args.some((arg) => /^--run-service-proxy(=true)?$/.test(arg))
      break
    }
  }
}
