import semver from 'semver'

import type {FactValue} from '../contract/finding.js'
import type {NodePool, NodeRow} from '../contract/report.js'
import {type ClusterFactPath, SHELL_ONLY_FACTS} from '../facts/catalog.js'
import {FactSet, type UnknownFact} from '../facts/fact-set.js'
import {parseKernelVersion} from '../facts/parsers/kernel.js'
import {type KeptNode, type KeptObject, type KeptPodHolder, type KeptService, listed} from '../sources/cluster/kept-objects.js'
import {configMapData, kubeProxyConfigKey, readNodeLabels} from '../sources/cluster/read-fields.js'
import type {ClusterSnapshot, KubeObject} from '../sources/cluster/snapshot.js'
import {type Component, containersOf, detectComponents, imageVersion, namespaced} from './components.js'
import {describeSetting, type KubeProxyConfig, kubeProxySettings, MAX_CONFIG_LENGTH, parseKubeProxyConfiguration} from './kube-proxy-config.js'
import {CONTROL_PLANE_ROLES, nodePoolOf, ROLE_LABEL_PREFIX} from './node-pools.js'
import {parseOsImage} from './os-image.js'
import {deriveRollout, type Rollout} from './rollout.js'
import {clusterIPPings} from './service-pings.js'
import {SnapshotReads} from './snapshot-reads.js'

/** What the cluster checks evaluate: the cluster, its Linux nodes as the API shows them, Services and components. */
export interface ClusterModel {
  cluster: FactSet
  /** Nodes alike share their `os` and `pool` objects, as they do their facts' parent: the report writes each once. */
  nodes: Array<{name: string; facts: FactSet; windows: boolean; controlPlane: boolean; pool?: NodePool; kernelRelease: null | string; os: NodeRow['os']; configuredMode: string}>
  /** Every Service; Services alike (most of them) share one fact set. */
  services: NamespacedSubject[]
  /** Every DaemonSet, Deployment, StatefulSet, Job and CronJob (rule subject Workload). */
  workloads: Array<NamespacedSubject & {kind: string}>
  prometheusRules: NamespacedSubject[]
  /** The CNIs, as rule subjects and as found. */
  components: Array<{component: Component; facts: FactSet; name: string}>
  kubeProxy: KubeProxyConfig
  /** Subject kinds whose list could not be read, with why: their rules are unknown, not evaluated over none. */
  unreadableKinds: Map<string, UnknownFact>
  /** What the nodes run, as far as the model's node facts show it: derived again when node probes add theirs. */
  rollout: Rollout
}

/** An object a rule can be about, with its facts over the cluster's. */
interface NamespacedSubject {
  namespace: string
  name: string
  facts: FactSet
}

/** Said in each node check it leaves unknown, thousands of times in a large cluster's report: the plan's first step gives the commands. */
const NOT_IN_API = 'the Kubernetes API does not show it; read it with --node-probe or --facts'

/** The Kubernetes version the cluster's API server reports (v1.33.5-eks-3025e55 is 1.33.5); null when unread or unparseable. */
export function kubernetesVersion(snapshot: ClusterSnapshot): null | semver.SemVer {
  return semver.coerce(gitVersionOf(new SnapshotReads(snapshot)))
}

function gitVersionOf(resources: SnapshotReads): string {
  return String(resources.items('version')[0]?.gitVersion ?? '')
}

export function deriveClusterModel(snapshot: ClusterSnapshot, options: {targetVersion?: string} = {}): ClusterModel {
  const resources = new SnapshotReads(snapshot)
  const cluster = new FactSet()
  const nodes = resources.items('nodes')
  const daemonSets = resources.items('daemonSets').filter((daemonSet) => !isWindowsOnly(daemonSet))
  const components = detectComponents(daemonSets, resources)

  resources.derive(cluster, ['version'], ['cluster.version', 'cluster.gitVersion'], () => {
    const gitVersion = gitVersionOf(resources)
    cluster.set('cluster.gitVersion', gitVersion)
    const version = semver.coerce(gitVersion)
    if (version) cluster.set('cluster.version', version.version)
    else cluster.unknown('cluster.version', 'unparseable', `gitVersion "${gitVersion}"`)
  })
  if (options.targetVersion) cluster.set('cluster.targetVersion', options.targetVersion)
  else cluster.unknown('cluster.targetVersion', 'not-collected', 'no --target-version given')

  resources.derive(cluster, ['nodes'], ['cluster.bottlerocketNodes'], () =>
    cluster.set('cluster.bottlerocketNodes', nodes.filter((node) => String(node.status?.nodeInfo?.osImage ?? '').startsWith('Bottlerocket')).map((node) => node.metadata?.name ?? '')),
  )
  resources.derive(cluster, ['daemonSets'], ['cluster.awsNetworkPolicy'], () =>
    cluster.set(
      'cluster.awsNetworkPolicy',
      components.some((component) => component.name === 'aws-vpc-cni' && component.networkPolicy === true),
    ),
  )
  resources.derive(cluster, ['nodes'], ['cluster.platform', 'cluster.nodes', 'cluster.windowsNodes', 'cluster.osLabelMismatches', 'cluster.multiAddressNodes'], () => {
    const platform = detectPlatform(nodes, resources)
    if (typeof platform === 'string') cluster.set('cluster.platform', platform)
    else cluster.unknown('cluster.platform', platform.reason, platform.detail)
    cluster.set('cluster.nodes', nodes.length)
    cluster.set('cluster.windowsNodes', nodes.filter((node) => isWindowsNode(node)).map((node) => node.metadata?.name ?? ''))
    // Set only when some disagree (the rule's message reads it with has()): agreeing labels are no evidence worth listing.
    const mismatches = nodes.flatMap((node) => osLabelDisagreement(node) ?? [])
    if (mismatches.length > 0) cluster.set('cluster.osLabelMismatches', mismatches.slice(0, OBJECTS_LISTED))
    else cluster.unknown('cluster.osLabelMismatches', 'not-present', "every Node's kubernetes.io/os label agrees with its kubelet")
    cluster.set('cluster.multiAddressNodes', nodes.filter((node) => hasSeveralAddressesPerFamily(node)).map((node) => node.metadata?.name ?? ''))
  })
  resources.derive(cluster, ['nodes'], ['cluster.oldestKernel'], () => {
    const oldest = oldestKernel(nodes)
    if (oldest) cluster.set('cluster.oldestKernel', oldest)
    else cluster.unknown('cluster.oldestKernel', 'not-present', 'no Linux node shows a kernel version kube-proxy can parse')
  })
  resources.derive(cluster, ['daemonSets'], ['cluster.components'], () =>
    cluster.set('cluster.components', [
      ...components.filter((component) => component.role === 'addon').map((component) => component.name),
      ...components.filter((component) => component.name === 'kube-router' && component.replacesKubeProxy).map(() => 'kube-router-service-proxy'),
      ...components.filter((component) => component.ipvsBalancing === true).map((component) => `${component.name}-ipvs`),
    ]),
  )

  const pings = clusterIPPings(resources)
  const kubeProxy = deriveKubeProxy(cluster, resources, daemonSets, components)
  deriveServices(cluster, resources)
  // Unknown on every node alike: held once, under each node's facts, rather than copied into thousands.
  const shellOnly = new FactSet().unknownAll(SHELL_ONLY_FACTS, 'not-collected', NOT_IN_API)
  const alike: Alike = {byImage: new Map(), pools: new Map(), objects: new Map()}

  const model: Omit<ClusterModel, 'rollout'> = {
    cluster,
    nodes: nodes.map((node) => nodeSubject(node, cluster, kubeProxy, shellOnly, alike)),
    services: serviceSubjects(cluster, resources, alike.objects),
    workloads: 'reason' in pings ? [] : pings.map(({kind, workload, pings: found}) => ({kind, ...objectRef(workload), facts: alikeFacts(cluster, alike.objects, [['workload.clusterIPPings', found.slice(0, OBJECTS_LISTED)]])})),
    prometheusRules: prometheusRuleSubjects(cluster, resources, alike.objects),
    components: components
      .filter((component) => component.role === 'cni')
      .map((component) => ({name: namespaced(component.daemonSet), component, facts: componentFacts(cluster, component)})),
    kubeProxy: kubeProxy.config,
    unreadableKinds: new Map(
      (
        [
          ['Node', resources.failure('nodes')],
          ['Service', resources.failure('services')],
          ['DaemonSet', resources.failure('daemonSets')],
          ['Workload', 'reason' in pings ? pings : undefined],
          ['PrometheusRule', resources.failure('prometheusRules')],
        ] as const
      ).flatMap(([kind, failure]) => (failure ? [[kind, failure]] : [])),
    ),
  }
  // What the API shows of the nodes; the cluster check derives it again once the nodes' own facts are in.
  return {...model, rollout: deriveRollout(model)}
}

/**
 * kube-proxy's configuration alone, as deriveClusterModel finds it, for what is asked of the cluster
 * before it is evaluated (where kube-proxy serves its metrics), without deriving every node and Service.
 */
export function deriveKubeProxyConfig(snapshot: ClusterSnapshot): KubeProxyConfig {
  const resources = new SnapshotReads(snapshot)
  const daemonSets = resources.items('daemonSets').filter((daemonSet) => !isWindowsOnly(daemonSet))
  const cluster = new FactSet()
  const platform = detectPlatform(resources.items('nodes'), resources)
  if (typeof platform === 'string') cluster.set('cluster.platform', platform)
  return deriveKubeProxy(cluster, resources, daemonSets, detectComponents(daemonSets, resources)).config
}

/** What kube-proxy's workload and configuration show: its config, and what every node inherits from it. */
interface KubeProxyFound {
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
const UNKNOWN_CONFIG: Omit<KubeProxyConfig, 'mode'> = {configuredMode: null, version: null, daemonSet: null, configMap: null, carryOver: [], metricsBindAddress: null}

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

function deriveKubeProxy(cluster: FactSet, resources: SnapshotReads, daemonSets: Array<KeptObject<'daemonSets'>>, components: Component[]): KubeProxyFound {
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

  const proxyPaths: ClusterFactPath[] = ['kubeProxy.present', 'kubeProxy.deployment', 'kubeProxy.workload', 'kubeProxy.image', 'kubeProxy.version']
  const configPaths: ClusterFactPath[] = ['kubeProxy.configSource', 'kubeProxy.configuredMode', 'kubeProxy.nodePortAddresses', 'kubeProxy.carryOver', 'kubeProxy.ipvsScheduler', 'kubeProxy.ipvsStrictARP', 'kubeProxy.featureGates', 'kubeProxy.skipKernelCheck']
  const failure = resources.failure('daemonSets') ?? resources.failure('kubeProxyPods')
  if (failure) {
    cluster.unknownAll([...proxyPaths, ...configPaths, 'kubeProxy.replacedBy', 'kubeProxy.ignoredWorkloads'], failure.reason, failure.detail)
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
    cluster.unknownAll([...proxyPaths.slice(1), ...configPaths], 'not-present', 'kube-proxy does not run in this cluster')
    return {runtime: 'none', config: {mode: 'none', ...UNKNOWN_CONFIG}}
  }

  cluster.set('kubeProxy.present', true)
  if (embedded && openshiftSdn) {
    // OpenShift SDN runs kube-proxy's iptables proxier inside its own pods; it has no other mode.
    cluster.set('kubeProxy.deployment', 'embedded').set('kubeProxy.workload', `DaemonSet ${namespaced(openshiftSdn.daemonSet)} (OpenShift SDN, kube-proxy built in)`)
    cluster.set('kubeProxy.configSource', 'OpenShift SDN (built in)').set('kubeProxy.configuredMode', 'iptables').set('kubeProxy.image', openshiftSdn.image)
    const builtIn: Set<ClusterFactPath> = new Set(['kubeProxy.configSource', 'kubeProxy.configuredMode'])
    cluster.unknownAll(['kubeProxy.version', ...configPaths.filter((path) => !builtIn.has(path))], 'not-present', 'OpenShift SDN embeds kube-proxy')
    return {runtime: 'container', config: {...UNKNOWN_CONFIG, mode: 'iptables', configuredMode: 'iptables', daemonSet: openshiftSdn.daemonSet}}
  }

  if (embedded) {
    const version = String(cluster.get('cluster.version') ?? '')
    cluster.set('kubeProxy.deployment', 'embedded').set('kubeProxy.workload', 'k3s (kube-proxy runs inside the k3s process)')
    cluster.unknownAll(['kubeProxy.image', ...configPaths], 'not-present', 'k3s embeds kube-proxy; its flags (--kube-proxy-arg) live in /etc/rancher/k3s/config.yaml on each node')
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
    cluster.unknownAll([...configPaths.filter((path) => path !== 'kubeProxy.skipKernelCheck')], why.reason, why.detail)
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
    config: {mode, configuredMode, version, daemonSet: owner, configMap: source, carryOver: settings.carryOver, metricsBindAddress: settings.metricsBindAddress},
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

/**
 * The longest comment nftables accepts on a rule or element, in bytes: kube-proxy's nftables mode before 1.37.0
 * writes `<namespace>/<name>:<port name>` there, and one longer makes the kernel reject the whole transaction
 * (kubernetes/kubernetes#139515). Valid names reach 143 bytes.
 */
const NFT_COMMENT_LIMIT = 128

/** The most items an object's list fact holds (a PrometheusRule's alerts): the finding names the object either way. */
const OBJECTS_LISTED = 100

/**
 * kube-proxy's comments over NFT_COMMENT_LIMIT, with their length: one for each port of a Service it
 * writes rules for (not headless, not ExternalName), `namespace/name:port` (ServicePortName.String(); an
 * unnamed port adds nothing after the Service's name). Only a comment that may be long is written out.
 */
function longCommentsOf(service: KeptService): string[] {
  const long: string[] = []
  if (service.spec?.clusterIP === 'None' || service.spec?.type === 'ExternalName') return long
  const {namespace, name} = service.metadata ?? {}
  const serviceText = `${namespace}/${name}`
  for (const port of listed(service.spec?.ports)) {
    const portText = port?.name ? `:${String(port.name)}` : ''
    // UTF-8 takes at most three bytes for each UTF-16 code unit: most comments are within the limit whatever they hold.
    if ((serviceText.length + portText.length) * 3 <= NFT_COMMENT_LIMIT) continue
    const comment = serviceText + portText
    const bytes = Buffer.byteLength(comment)
    if (bytes > NFT_COMMENT_LIMIT) long.push(`${comment} (${bytes} bytes)`)
  }

  return long
}

/** kube-proxy metrics that only iptables mode exports (domain sheet §2.11, KEP-3866's kep.yaml). */
const IPTABLES_ONLY_METRICS = [
  'kubeproxy_sync_proxy_rules_iptables_total',
  'kubeproxy_sync_proxy_rules_iptables_last',
  'kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total',
  'kubeproxy_sync_proxy_rules_iptables_restore_failures_total',
  'kubeproxy_iptables_ct_state_invalid_dropped_packets_total',
  'kubeproxy_iptables_localhost_nodeports_accepted_packets_total',
] as const

/** Each metric as a whole word of an expression: `…_iptables_total` is not `…_iptables_total_x`. */
const IPTABLES_ONLY_PATTERNS = IPTABLES_ONLY_METRICS.map((metric) => ({metric, pattern: new RegExp(String.raw`\b${metric}\b`)}))

/** Each PrometheusRule, with its alerts and recording rules that read a metric nftables mode does not export, and those metrics. */
function prometheusRuleSubjects(cluster: FactSet, resources: SnapshotReads, objects: Alike['objects']): NamespacedSubject[] {
  return resources.items('prometheusRules').map((object) => {
    const found: string[] = []
    const metrics = new Set<string>()
    for (const group of listed(object.spec?.groups)) {
      for (const rule of listed(group?.rules)) {
        const used = IPTABLES_ONLY_PATTERNS.filter(({pattern}) => pattern.test(String(rule?.expr ?? ''))).map(({metric}) => metric)
        if (used.length === 0) continue
        for (const metric of used) metrics.add(metric)
        found.push(`${rule?.alert ? `alert ${String(rule.alert)}` : `record ${String(rule?.record)}`}: ${used.join(', ')}`)
      }
    }

    const values: Array<[ClusterFactPath, FactValue]> = [
      ['prometheusRule.iptablesMetricRules', found.slice(0, OBJECTS_LISTED)],
      ['prometheusRule.iptablesMetrics', [...metrics]],
    ]
    return namespacedSubject(object, alikeFacts(cluster, objects, values))
  })
}

/** What the checks count of the Services: one pass over what can be tens of thousands. */
function deriveServices(cluster: FactSet, resources: SnapshotReads): void {
  const services = resources.items('services')
  const derived = ['services.total', 'services.loadBalancer', 'services.nodePort', 'services.healthCheckNodePorts', 'services.withExternalIPs'] as const
  resources.derive(cluster, ['services'], derived, () => {
    const count = {loadBalancer: 0, nodePort: 0, healthCheckNodePorts: 0, withExternalIPs: 0}
    for (const service of services) {
      const spec = service.spec
      if (spec?.type === 'LoadBalancer') count.loadBalancer++
      if (spec?.type === 'NodePort' || spec?.type === 'LoadBalancer') count.nodePort++
      if (spec?.healthCheckNodePort) count.healthCheckNodePorts++
      if (listed(spec?.externalIPs).length > 0) count.withExternalIPs++
    }

    cluster
      .set('services.total', services.length)
      .set('services.loadBalancer', count.loadBalancer)
      .set('services.nodePort', count.nodePort)
      .set('services.healthCheckNodePorts', count.healthCheckNodePorts)
      .set('services.withExternalIPs', count.withExternalIPs)
  })
  resources.derive(cluster, ['endpointSlices'], ['endpoints.total'], () =>
    cluster.set(
      'endpoints.total',
      resources.items('endpointSlices').reduce((total, slice) => total + Number(slice.endpointCount ?? 0), 0),
    ),
  )
}

/** The addresses a LoadBalancer Service or an Ingress was given. */
function addressesOf(object: KeptObject<'ingresses'> | KeptService): string[] {
  return listed(object.status?.loadBalancer?.ingress)
    .map((ingress) => String(ingress?.ip ?? ingress?.hostname ?? ''))
    .filter(Boolean)
}

/**
 * Every Service, with what its rules read: its type, external IPs and over-long nftables comments, and
 * for a LoadBalancer its addresses and the other Services and Ingresses that share them. Services that
 * hold the same (most of them) share one fact set.
 */
function serviceSubjects(cluster: FactSet, resources: SnapshotReads, objects: Alike['objects']): NamespacedSubject[] {
  const users = new Map<string, string[]>()
  const note = (address: string, user: string) => users.set(address, [...(users.get(address) ?? []), user])
  const services = resources.items('services')
  const loadBalancers = services.filter((service) => service.spec?.type === 'LoadBalancer')
  for (const service of loadBalancers) for (const address of addressesOf(service)) note(address, `Service ${service.metadata?.namespace}/${service.metadata?.name}`)
  for (const ingress of resources.items('ingresses')) for (const address of addressesOf(ingress)) note(address, `Ingress ${ingress.metadata?.namespace}/${ingress.metadata?.name}`)
  const ingressFailure = resources.failure('ingresses')

  // Most Services hold nothing but their type: their fact set is found by it, without a key written out for each.
  const plainOfType = new Map<string, FactSet>()
  return services.map((service) => {
    const type = String(service.spec?.type ?? 'ClusterIP')
    const longComments = longCommentsOf(service)
    const externalIPs = listed(service.spec?.externalIPs)
    const plain = type !== 'LoadBalancer' && externalIPs.length === 0 && longComments.length === 0
    const known = plain ? plainOfType.get(type) : undefined
    if (known) return namespacedSubject(service, known)
    const values: Array<[ClusterFactPath, FactValue]> = [
      ['service.type', type],
      ['service.externalIPs', externalIPs.map(String)],
      ['service.longComments', longComments],
    ]
    if (type !== 'LoadBalancer') {
      const facts = alikeFacts(cluster, objects, values)
      if (plain) plainOfType.set(type, facts)
      return namespacedSubject(service, facts)
    }

    const name = `${service.metadata?.namespace}/${service.metadata?.name}`
    const addresses = addressesOf(service)
    const sharedWith = [...new Set(addresses.flatMap((address) => users.get(address) ?? []))].filter((user) => user !== `Service ${name}`)
    const facts = new FactSet(cluster)
    for (const [path, value] of values) facts.set(path, value)
    facts.set('service.name', name).set('service.addresses', addresses).set('service.sharedWith', sharedWith).set('service.portCount', listed(service.spec?.ports).length)
    if (ingressFailure) facts.unknown('service.sharedWith', ingressFailure.reason, ingressFailure.detail)
    return namespacedSubject(service, facts)
  })
}

function componentFacts(cluster: FactSet, component: Component): FactSet {
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

/** What nodes alike (a pool: one kernel, one OS image) share: their facts, and the OS their image names. */
interface SharedNodeFacts {
  facts: FactSet
  os: NodeRow['os']
}

/** What the subjects seen so far share: nodes' facts by kernel and OS image, pools by label and name, other objects' facts by their values. */
interface Alike {
  byImage: Map<string, SharedNodeFacts>
  pools: Map<string, NodePool>
  objects: Map<string, FactSet>
}

/**
 * The facts of an object that holds only these values: one fact set for every object that holds the
 * same (tens of thousands of plain Services, the workloads that ping nothing), which the rules then
 * see as one input.
 */
function alikeFacts(cluster: FactSet, objects: Alike['objects'], values: ReadonlyArray<readonly [ClusterFactPath, FactValue]>): FactSet {
  const key = JSON.stringify(values)
  let facts = objects.get(key)
  if (!facts) {
    facts = new FactSet(cluster)
    for (const [path, value] of values) facts.set(path, value)
    objects.set(key, facts)
  }

  return facts
}

function objectRef(object: KubeObject): {name: string; namespace: string} {
  return {namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? ''}
}

/** An object as a rule subject: written out rather than spread from objectRef, which is slower over 30,000 Services. */
function namespacedSubject(object: KubeObject, facts: FactSet): NamespacedSubject {
  return {namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '', facts}
}

/** A node as the API shows it: kernel and OS are known, everything a shell would read is not. */
function nodeSubject(node: KeptNode, cluster: FactSet, kubeProxy: KubeProxyFound, shellOnly: FactSet, alike: Alike): ClusterModel['nodes'][number] {
  const name = node.metadata?.name ?? ''
  const info = node.status?.nodeInfo
  const labels = readNodeLabels(node.metadata?.labels)
  const pool = sharedPool(nodePoolOf(labels), alike.pools)
  const release = typeof info?.kernelVersion === 'string' ? info.kernelVersion : undefined
  const osImage = typeof info?.osImage === 'string' ? info.osImage : undefined
  // One fact set for nodes alike, under each node's own (its name): the rules see one input for all of them.
  const key = JSON.stringify([release, osImage])
  let shared = alike.byImage.get(key)
  if (!shared) alike.byImage.set(key, (shared = sharedNodeFacts(release, osImage, cluster, kubeProxy, shellOnly)))
  const facts = new FactSet(shared.facts).set('node.name', name)
  const configuredMode = kubeProxy.perNode?.get(name) ?? kubeProxy.config.mode
  if (kubeProxy.perNode) {
    if (configuredMode === 'unknown') facts.unknown('kubeProxy.mode', 'failed', `kube-proxy's static pods on ${name} set different modes`)
    else facts.set('kubeProxy.mode', configuredMode)
  }

  return {
    name,
    facts,
    configuredMode,
    windows: isWindowsNode(node),
    controlPlane: CONTROL_PLANE_ROLES.some((role) => `${ROLE_LABEL_PREFIX}${role}` in labels),
    ...(pool ? {pool} : {}),
    kernelRelease: release ?? null,
    os: shared.os,
  }
}

/** The pool object of an earlier node in the same pool, else this one, kept for the next. */
function sharedPool(pool: NodePool | undefined, pools: Map<string, NodePool>): NodePool | undefined {
  if (!pool) return undefined
  const key = `${pool.label}\u0000${pool.name}`
  const seen = pools.get(key)
  if (seen) return seen
  pools.set(key, pool)
  return pool
}

/** A node's facts from its kernel and OS image as the API shows them, and the cluster's kube-proxy. */
function sharedNodeFacts(release: string | undefined, osImage: string | undefined, cluster: FactSet, kubeProxy: KubeProxyFound, shellOnly: FactSet): SharedNodeFacts {
  const facts = new FactSet(shellOnly)
  const version = release && parseKernelVersion(release)
  if (release) facts.set('kernel.release', release)
  else facts.unknown('kernel.release', 'not-present', 'status.nodeInfo.kernelVersion is empty')
  if (version) facts.set('kernel.version', version)
  else facts.unknown('kernel.version', release ? 'unparseable' : 'not-present', release ? `kernel "${release}"` : 'no kernelVersion')

  const os = osImage ? parseOsImage(osImage) : undefined
  if (osImage) facts.set('os.prettyName', osImage)
  if (os) facts.set('os.id', os.id)
  else facts.unknown('os.id', osImage ? 'unparseable' : 'not-present', osImage ? `osImage "${osImage}" is not one kpx-check knows` : 'no osImage')
  if (os?.versionId) facts.set('os.versionId', os.versionId)
  else facts.unknown('os.versionId', 'not-present', 'osImage carries no version')

  if (kubeProxy.runtime === 'unknown') facts.unknown('kubeProxy.runtime', 'not-collected', NOT_IN_API)
  else facts.set('kubeProxy.runtime', kubeProxy.runtime)
  // The mode a node's kube-proxy runs in is the cluster's: unknown for the same reason, when there is one.
  const modeUnknown = cluster.whyUnknown('kubeProxy.configuredMode') ?? {reason: 'not-collected', detail: 'the cluster configuration does not show the mode'}
  if (kubeProxy.config.mode === 'unknown') facts.unknown('kubeProxy.mode', modeUnknown.reason, modeUnknown.detail)
  else facts.set('kubeProxy.mode', kubeProxy.config.mode)
  if (kubeProxy.skipKernelCheck === undefined) facts.unknown('kubeProxy.skipKernelCheck', 'not-collected', NOT_IN_API)
  else facts.set('kubeProxy.skipKernelCheck', kubeProxy.skipKernelCheck)
  const image = cluster.get('kubeProxy.image')
  const imageUnknown = cluster.whyUnknown('kubeProxy.image')
  if (typeof image === 'string') facts.set('kubeProxy.image', image)
  else if (imageUnknown) facts.unknown('kubeProxy.image', imageUnknown.reason, imageUnknown.detail)
  return {facts, os: {id: os?.id ?? null, versionId: os?.versionId ?? null, prettyName: osImage ?? null}}
}

/** The lowest kernel version (major.minor.patch, as kube-proxy parses it) among the Linux nodes, if any shows one; each release parsed once (thousands of nodes run a few). */
function oldestKernel(nodes: readonly KeptNode[]): string | undefined {
  const releases = new Set<string>()
  for (const node of nodes) {
    const release = node.status?.nodeInfo?.kernelVersion
    if (typeof release === 'string' && !isWindowsNode(node)) releases.add(release)
  }

  let oldest: string | undefined
  for (const release of releases) {
    const version = parseKernelVersion(release)
    if (version && (oldest === undefined || semver.lt(version, oldest))) oldest = version
  }

  return oldest
}

/**
 * Whether a Node runs Windows: as its kubelet reports it (status.nodeInfo.operatingSystem), which is what
 * runs there now; the kubernetes.io/os label, which anyone who may label Nodes can set, only when the
 * kubelet reports nothing. A label that disagrees is reported (osLabelDisagreement), never obeyed.
 */
export function isWindowsNode(node: KubeObject): boolean {
  const reported = kubeletOs(node)
  return reported === undefined ? node.metadata?.labels?.['kubernetes.io/os'] === 'windows' : reported === 'windows'
}

/** Takes any object its callers list as a Node (services/ read them so too), viewed as one: each field read is checked here. */
function kubeletOs(node: KubeObject): string | undefined {
  const reported = (node as KeptNode).status?.nodeInfo?.operatingSystem
  return typeof reported === 'string' && reported !== '' ? reported : undefined
}

/** `name (labelled kubernetes.io/os=windows, its kubelet reports linux)` when the label and the kubelet disagree. */
function osLabelDisagreement(node: KeptNode): string | undefined {
  const label: unknown = node.metadata?.labels?.['kubernetes.io/os']
  const reported = kubeletOs(node)
  if (typeof label !== 'string' || reported === undefined || label === reported) return undefined
  return `${node.metadata?.name ?? ''} (labelled kubernetes.io/os=${label}, its kubelet reports ${reported})`
}

function isWindowsOnly(daemonSet: KeptObject<'daemonSets'>): boolean {
  return daemonSet.spec?.template?.spec?.nodeSelector?.['kubernetes.io/os'] === 'windows'
}

function hasSeveralAddressesPerFamily(node: KeptNode): boolean {
  const addresses = listed(node.status?.addresses).filter((address) => address?.type === 'InternalIP' || address?.type === 'ExternalIP')
  const v4 = addresses.filter((address) => !String(address?.address).includes(':')).length
  const v6 = addresses.length - v4
  return v4 > 1 || v6 > 1
}

/**
 * The platform, from providerIDs, labels and versions (domain sheet §5.2); unknown with the reason
 * when an object that could tell it (OpenShift's network, kube-proxy's ConfigMap) could not be read.
 */
function detectPlatform(nodes: readonly KeptNode[], resources: SnapshotReads): string | UnknownFact {
  const gitVersion = gitVersionOf(resources)
  const node: KeptNode | undefined = nodes[0]
  const providerID = String(node?.spec?.providerID ?? '')
  const labels = Object.keys(readNodeLabels(node?.metadata?.labels)).join(' ')
  const kubelet = String(node?.status?.nodeInfo?.kubeletVersion ?? '')
  const osImage = String(node?.status?.nodeInfo?.osImage ?? '')
  const openshiftNetwork = resources.object('openshiftNetworks', 'cluster')
  if (openshiftNetwork.object || /node\.openshift\.io/.test(labels)) return 'openshift'
  if (openshiftNetwork.failure) return openshiftNetwork.failure
  if (providerID.startsWith('k3s://') || /\+k3s/.test(kubelet) || /\+k3s/.test(gitVersion)) return 'k3s'
  if (providerID.startsWith('rke2://') || /\+rke2/.test(kubelet)) return 'rke2'
  // k0s builds its kubelet and API server as v1.35.1+k0s, and runs kube-proxy on its own image.
  if (/\+k0s/.test(kubelet) || /\+k0s/.test(gitVersion) || resources.items('daemonSets').some((daemonSet) => containersOf(daemonSet).some((container) => container.image.includes('/k0sproject/kube-proxy')))) return 'k0s'
  // KKP's machine deployments label their nodes with the user cluster's and project's IDs (a heuristic: nothing in a user cluster names KKP).
  if (/(^| )system\/cluster( |$)/.test(labels) && /(^| )system\/project( |$)/.test(labels)) return 'kubermatic'
  if (/-eks-/.test(gitVersion) || /eks\.amazonaws\.com\//.test(labels)) return 'eks'
  if (/kubernetes\.azure\.com\//.test(labels) || providerID.startsWith('azure://')) return 'aks'
  if (/-gke\./.test(gitVersion) || /cloud\.google\.com\/gke/.test(labels)) return 'gke'
  if (/cce\.cloud\.com\//.test(labels) || /-CCE/.test(kubelet)) return 'cce'
  if (/alibabacloud\.com\/|ack\.aliyun\.com/.test(labels)) return 'ack'
  if (providerID.startsWith('qcloud://') || /tke\.cloud\.tencent\.com\//.test(labels)) return 'tke'
  if (osImage.startsWith('Talos')) return 'talos'
  if (/kops\.k8s\.io\//.test(labels)) return 'kops'
  if (providerID.startsWith('kind://')) return 'kind'
  const kubeadmConfig = resources.object('configMaps', 'kube-proxy', 'kube-system')
  if (kubeadmConfig.failure) return kubeadmConfig.failure
  return kubeadmConfig.object ? 'kubeadm' : 'unknown'
}
