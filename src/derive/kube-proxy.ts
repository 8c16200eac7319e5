/**
 * kube-proxy as the API shows it: its DaemonSet or static pods (or what embeds it: k3s, OpenShift SDN),
 * its image, its configuration file (a ConfigMap) and flags, and what replaces it.
 */
import type {ClusterFactPath} from '../facts/catalog.js'
import {FactSet, type UnknownFact} from '../facts/fact-set.js'
import type {KeptObject, KeptPodHolder} from '../sources/cluster/kept-objects.js'
import {configMapData, kubeProxyConfigKey} from '../sources/cluster/read-fields.js'
import type {ClusterSnapshot, KubeObject} from '../sources/cluster/snapshot.js'
import {type Component, containersOf, detectComponents, imageVersion, linuxDaemonSets, namespaced} from './components.js'
import {describeSetting, type KubeProxyConfig, kubeProxySettings, MAX_CONFIG_LENGTH, parseKubeProxyConfiguration} from './kube-proxy-config.js'
import {objectRef} from './namespaced.js'
import {detectPlatform} from './platform.js'
import {SnapshotReads} from './snapshot-reads.js'

/**
 * kube-proxy's configuration alone, as deriveClusterModel finds it, for what is asked of the cluster
 * before it is evaluated (where kube-proxy serves its metrics), without deriving every node and Service.
 */
export function deriveKubeProxyConfig(snapshot: ClusterSnapshot): KubeProxyConfig {
  const resources = new SnapshotReads(snapshot)
  const daemonSets = linuxDaemonSets(resources)
  const cluster = new FactSet()
  const platform = detectPlatform(resources.items('nodes'), resources)
  if (typeof platform === 'string') cluster.set('cluster.platform', platform)
  return deriveKubeProxy(cluster, resources, daemonSets, detectComponents(daemonSets, resources)).config
}

/** What kube-proxy's workload and configuration show: its config, and what every node inherits from it. */
export interface KubeProxyFound {
  config: KubeProxyConfig
  runtime: 'container' | 'k3s' | 'none' | 'unknown'
  skipKernelCheck?: boolean
  /** Static pods that set different modes: each node's mode, by node name (`unknown` where its pods disagree). */
  perNode?: ReadonlyMap<string, string>
}

/** The container of a kube-proxy workload that runs kube-proxy. */
function kubeProxyContainer(workload: KeptPodHolder): ReturnType<typeof containersOf>[number] | undefined {
  return containersOf(workload).find((candidate) => /kube-proxy/.test(candidate.image) || candidate.name === 'kube-proxy') ?? containersOf(workload)[0]
}

/** What is not known of the configuration until it is read. */
const UNKNOWN_CONFIG: Omit<KubeProxyConfig, 'mode'> = {configuredMode: null, version: null, daemonSet: null, configMap: null, carryOver: [], metricsBindAddress: null, healthzBindAddress: null}

/** What kube-proxy's workload shows: how it is deployed, which one, and its image and version. */
const WORKLOAD_PATHS: readonly ClusterFactPath[] = ['kubeProxy.deployment', 'kubeProxy.workload', 'kubeProxy.image', 'kubeProxy.version']

/** What its configuration file and flags set. */
const SETTING_PATHS: readonly ClusterFactPath[] = ['kubeProxy.configSource', 'kubeProxy.configuredMode', 'kubeProxy.nodePortAddresses', 'kubeProxy.carryOver', 'kubeProxy.ipvsScheduler', 'kubeProxy.ipvsStrictARP', 'kubeProxy.featureGates']

/** Its settings, and whether its container skips the kernel check (an environment variable). */
const CONFIG_PATHS: readonly ClusterFactPath[] = [...SETTING_PATHS, 'kubeProxy.skipKernelCheck']

/** What OpenShift SDN's built-in kube-proxy is known to run with: its configuration is its own, in iptables mode. */
const OPENSHIFT_SDN_BUILT_IN: ReadonlySet<ClusterFactPath> = new Set(['kubeProxy.configSource', 'kubeProxy.configuredMode'])

/**
 * The namespaces distributions run kube-proxy in: kube-system (kubeadm, EKS, AKS, kOps, k0s, KKP, and the
 * static pods of RKE2 and legacy GKE). OpenShift SDN's built-in kube-proxy is found as its CNI. A
 * DaemonSet named kube-proxy elsewhere (a tenant's) is reported and never taken for the cluster's.
 */
const KUBE_PROXY_NAMESPACES: ReadonlySet<string> = new Set(['kube-system'])

const inKubeProxyNamespace = (object: KubeObject) => KUBE_PROXY_NAMESPACES.has(object.metadata?.namespace ?? '')

const looksLikeKubeProxy = (object: KeptPodHolder) => object.metadata?.name === 'kube-proxy' || containersOf(object).some((container) => /\/kube-proxy[:@]/.test(container.image))

/** The Node a static kube-proxy pod runs on: its nodeName, else the name RKE2 and GKE give its mirror pod (kube-proxy-<node>). */
function staticPodNode(pod: KeptObject<'kubeProxyPods'>): string {
  const nodeName = pod.spec?.nodeName
  return typeof nodeName === 'string' && nodeName !== '' ? nodeName : (pod.metadata?.name ?? '').replace(/^kube-proxy-/, '')
}

export function deriveKubeProxy(cluster: FactSet, resources: SnapshotReads, daemonSets: Array<KeptObject<'daemonSets'>>, components: Component[]): KubeProxyFound {
  const named = daemonSets.filter((candidate) => looksLikeKubeProxy(candidate))
  const candidates = named.filter((candidate) => inKubeProxyNamespace(candidate))
  const ignored = named.filter((candidate) => !inKubeProxyNamespace(candidate)).map((candidate) => `DaemonSet ${namespaced(objectRef(candidate))}`)
  if (ignored.length > 0) cluster.set('kubeProxy.ignoredWorkloads', ignored)
  else cluster.unknown('kubeProxy.ignoredWorkloads', 'not-present', 'no DaemonSet like kube-proxy outside kube-system')
  const daemonSet = candidates[0]
  const staticPods = resources.items('kubeProxyPods').filter((pod) => pod.metadata?.name?.startsWith('kube-proxy'))
  const platform = cluster.get('cluster.platform')
  const openshiftSdn = components.find((component) => component.name === 'openshift-sdn')
  const embedded = !daemonSet && staticPods.length === 0 && (platform === 'k3s' || openshiftSdn !== undefined)
  const replacement = components.find((component) => component.replacesKubeProxy)
  const replacedBy =
    replacement &&
    {cilium: 'cilium-kube-proxy-replacement', calico: 'calico-ebpf', antrea: 'antrea-proxy-all', 'kube-router': 'kube-router'}[replacement.name as string] ||
    replacement?.name

  const failure = resources.failure('daemonSets') ?? resources.failure('kubeProxyPods')
  if (failure) {
    cluster.unknownAll(['kubeProxy.present', ...WORKLOAD_PATHS, ...CONFIG_PATHS, 'kubeProxy.replacedBy', 'kubeProxy.ignoredWorkloads'], failure.reason, failure.detail)
    return {runtime: 'unknown', config: {mode: 'unknown', ...UNKNOWN_CONFIG}}
  }

  const unsure = components.find((component) => component.unread?.replacesKubeProxy)?.unread?.replacesKubeProxy
  if (replacedBy) cluster.set('kubeProxy.replacedBy', replacedBy)
  else if (unsure) cluster.unknown('kubeProxy.replacedBy', unsure.reason, unsure.detail)
  else cluster.unknown('kubeProxy.replacedBy', 'not-present', 'nothing replaces kube-proxy')

  const workload = daemonSet ?? staticPods[0]
  if (!workload && !embedded) {
    // Not found in the API: whether kube-proxy runs at all, the nodes tell (deriveRollout).
    cluster.set('kubeProxy.present', false)
    cluster.unknownAll([...WORKLOAD_PATHS, ...CONFIG_PATHS], 'not-present', 'kube-proxy does not run in this cluster')
    return {runtime: 'none', config: {mode: 'none', ...UNKNOWN_CONFIG}}
  }

  cluster.set('kubeProxy.present', true)
  if (embedded && openshiftSdn) {
    // OpenShift SDN runs kube-proxy's iptables proxier inside its own pods; it has no other mode.
    cluster.set('kubeProxy.deployment', 'embedded').set('kubeProxy.workload', `DaemonSet ${namespaced(openshiftSdn.daemonSet)} (OpenShift SDN, kube-proxy built in)`)
    cluster.set('kubeProxy.configSource', 'OpenShift SDN (built in)').set('kubeProxy.configuredMode', 'iptables').set('kubeProxy.image', openshiftSdn.image)
    cluster.unknownAll(['kubeProxy.version', ...CONFIG_PATHS.filter((path) => !OPENSHIFT_SDN_BUILT_IN.has(path))], 'not-present', 'OpenShift SDN embeds kube-proxy')
    return {runtime: 'container', config: {...UNKNOWN_CONFIG, mode: 'iptables', configuredMode: 'iptables', daemonSet: openshiftSdn.daemonSet}}
  }

  if (embedded) {
    const version = String(cluster.get('cluster.version') ?? '')
    cluster.set('kubeProxy.deployment', 'embedded').set('kubeProxy.workload', 'k3s (kube-proxy runs inside the k3s process)')
    cluster.unknownAll(['kubeProxy.image', ...CONFIG_PATHS], 'not-present', 'k3s embeds kube-proxy; its flags (--kube-proxy-arg) live in /etc/rancher/k3s/config.yaml on each node')
    cluster.set('kubeProxy.version', version)
    return {runtime: 'k3s', config: {...UNKNOWN_CONFIG, mode: 'unknown', version}}
  }

  const container = kubeProxyContainer(workload)
  const owner = daemonSet ? {namespace: workload.metadata?.namespace ?? '', name: workload.metadata?.name ?? ''} : null
  cluster
    .set('kubeProxy.deployment', daemonSet ? 'daemonset' : 'static-pods')
    .set('kubeProxy.workload', owner ? `DaemonSet ${namespaced(owner)}` : `static pods ${staticPods.map((pod) => pod.metadata?.name).join(', ')}`)
    .set('kubeProxy.image', container?.image ?? '')
  const version = (container && imageVersion(container.image)) || null
  if (version) cluster.set('kubeProxy.version', version)
  else cluster.unknown('kubeProxy.version', 'unparseable', `no version in the image tag ${container?.image ?? ''}`)
  const skipKernelCheck = Boolean(container?.env.get('KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK'))
  cluster.set('kubeProxy.skipKernelCheck', skipKernelCheck)

  // Without its configuration file, what kube-proxy runs is not known: not iptables by default.
  const configUnknown = (why: UnknownFact): KubeProxyFound => {
    cluster.unknownAll(SETTING_PATHS, why.reason, why.detail)
    return {runtime: 'container', skipKernelCheck, config: {...UNKNOWN_CONFIG, mode: 'unknown', version, daemonSet: owner}}
  }

  const flags = container?.flags ?? new Map<string, string>()
  const file = kubeProxyConfigFile(resources)
  if (file.failure && flags.has('config')) return configUnknown(file.failure)
  const source = file.found?.source ?? null
  const parsed = file.found && parseKubeProxyConfiguration(file.found.text)
  if (source && !parsed) {
    const detail = `ConfigMap ${namespaced(source)} key ${source.key} is not a KubeProxyConfiguration kpx-check can read (YAML, at most ${MAX_CONFIG_LENGTH / 1024} KiB)`
    return configUnknown({reason: 'unparseable', detail})
  }

  const settings = kubeProxySettings(parsed, flags, version)
  const modeOf = (candidate: KeptPodHolder) => kubeProxySettings(parsed, kubeProxyContainer(candidate)?.flags ?? new Map(), version).mode
  // Other DaemonSets of kube-proxy in its namespaces that set another mode: which one runs where is not known.
  const disagreeing = candidates.filter((candidate) => modeOf(candidate) !== settings.mode)
  if (disagreeing.length > 0) {
    const modes = [daemonSet, ...disagreeing].map((candidate) => `DaemonSet ${namespaced(objectRef(candidate))} sets ${modeOf(candidate)}`)
    return configUnknown({reason: 'failed', detail: `kube-proxy's DaemonSets disagree on its mode (${modes.join(', ')}), and which of them runs on which node is not known`})
  }

  // Static pods run one per node with flags of their own (RKE2's kube-proxy-arg): each node's mode is its pod's.
  const perNode = new Map<string, string>()
  for (const pod of daemonSet ? [] : staticPods) {
    const node = staticPodNode(pod)
    const mode = modeOf(pod)
    perNode.set(node, perNode.has(node) && perNode.get(node) !== mode ? 'unknown' : mode)
  }

  const podModes = new Set(perNode.values())
  const oldModes = [...podModes].filter((mode) => mode !== 'nftables')
  // The cluster's mode is what is left to migrate from: the static pods not yet switched, when they agree.
  const mode = podModes.size <= 1 ? settings.mode : (oldModes.length === 1 ? oldModes[0] : 'unknown')
  const configuredMode = podModes.size <= 1 ? settings.configuredMode : (mode === 'unknown' ? null : mode)
  if (podModes.size > 1) {
    const byMode = [...podModes].map((each) => `${each} on ${[...perNode].filter(([, podMode]) => podMode === each).map(([node]) => node).join(', ')}`)
    cluster.unknown('kubeProxy.configuredMode', 'failed', `kube-proxy's static pods set different modes per node: ${byMode.join('; ')}`)
  } else cluster.set('kubeProxy.configuredMode', settings.configuredMode)
  cluster
    .set('kubeProxy.configSource', source ? `ConfigMap ${namespaced(source)}` + (flags.has('proxy-mode') ? ' and flags' : '') : 'flags')
    .set('kubeProxy.nodePortAddresses', settings.nodePortAddresses)
    .set('kubeProxy.carryOver', settings.carryOver.map((setting) => describeSetting(setting)))
    .set('kubeProxy.ipvsScheduler', settings.ipvsScheduler)
    .set('kubeProxy.ipvsStrictARP', settings.ipvsStrictARP)
    .set('kubeProxy.featureGates', settings.featureGates)
  return {
    runtime: 'container',
    skipKernelCheck,
    ...(podModes.size > 1 ? {perNode} : {}),
    config: {mode, configuredMode, version, daemonSet: owner, configMap: source, carryOver: settings.carryOver, metricsBindAddress: settings.metricsBindAddress, healthzBindAddress: settings.healthzBindAddress},
  }
}

/** The ConfigMaps in kube-system that can hold kube-proxy's configuration file, the EKS add-on's first. */
const KUBE_PROXY_CONFIG_MAPS = ['kube-proxy-config', 'kube-proxy']

/**
 * kube-proxy's configuration file: from the first of its ConfigMaps that holds one. When one could
 * not be read before one was found, which holds the file is not known: the failure says why.
 */
function kubeProxyConfigFile(resources: SnapshotReads): {failure?: UnknownFact; found?: {source: NonNullable<KubeProxyConfig['configMap']>; text: string}} {
  for (const name of KUBE_PROXY_CONFIG_MAPS) {
    const read = resources.object('configMaps', name, 'kube-system')
    if (read.failure) return {failure: read.failure}
    const data = read.object ? configMapData(read.object) : {}
    const key = kubeProxyConfigKey(data)
    if (key !== undefined && data[key] !== '') return {found: {source: {namespace: 'kube-system', name, key}, text: data[key]}}
  }

  return {}
}
