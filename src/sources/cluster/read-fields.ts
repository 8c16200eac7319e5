/**
 * What the cluster checks read of containers, Node labels and ConfigMaps, declared once. The trim
 * (trim.ts) keeps exactly this, and the derivers read flags, environment variables, labels and
 * ConfigMap keys only through the functions here: a check cannot come to depend on something a
 * snapshot does not hold, and nothing else (a `--password X`, a secret in an environment variable,
 * the other keys of cilium-config) is ever kept, not even redacted.
 */

import {isObject} from '../../util/json-value.js'

/** kube-proxy flags that set a field of its configuration, and win over the file. */
export const KUBE_PROXY_FLAG_FIELDS: Readonly<Record<string, string>> = {
  'proxy-mode': 'mode',
  'masquerade-all': 'iptables.masqueradeAll',
  'iptables-masquerade-bit': 'iptables.masqueradeBit',
  'iptables-sync-period': 'iptables.syncPeriod',
  'iptables-min-sync-period': 'iptables.minSyncPeriod',
  'ipvs-sync-period': 'ipvs.syncPeriod',
  'ipvs-min-sync-period': 'ipvs.minSyncPeriod',
  'ipvs-scheduler': 'ipvs.scheduler',
  'ipvs-strict-arp': 'ipvs.strictARP',
  'ipvs-exclude-cidrs': 'ipvs.excludeCIDRs',
  'nodeport-addresses': 'nodePortAddresses',
  'feature-gates': 'featureGates',
  'metrics-bind-address': 'metricsBindAddress',
  'healthz-bind-address': 'healthzBindAddress',
}

/** kube-proxy's boolean flags: as in Go, the argument after one is never its value. */
const SWITCHES = new Set(['masquerade-all', 'ipvs-strict-arp'])

/**
 * Every flag a check reads, of any container: kube-proxy's settings, whether it reads a --config file, kube-router's
 * service proxy, whether the VPC CNI's network policy agent (aws-eks-nodeagent) enforces policies.
 */
const READ_FLAGS = new Set([...Object.keys(KUBE_PROXY_FLAG_FIELDS), 'config', 'run-service-proxy', 'enable-network-policy'])

/**
 * The flags a check reads, from a container's command and args (`--name=value`, or `--name value` for
 * kube-proxy's settings), the last one winning. Every other flag is left out with its value, however
 * it is written: the argument after an unknown flag is never taken for anything.
 */
export function readFlags(argv: readonly unknown[]): Map<string, string> {
  const flags = new Map<string, string>()
  for (let index = 0; index < argv.length; index++) {
    const match = /^--([a-z0-9-]+)(?:=(.*))?$/.exec(String(argv[index]))
    if (!match) continue
    const [, name, value] = match
    if (!READ_FLAGS.has(name)) continue
    const next = argv[index + 1]
    if (value !== undefined) {
      flags.set(name, value)
    } else if (typeof next === 'string' && !next.startsWith('-') && KUBE_PROXY_FLAG_FIELDS[name] && !SWITCHES.has(name)) {
      flags.set(name, next)
      index++
    } else {
      flags.set(name, 'true')
    }
  }

  return flags
}

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])

/** The flags a check reads of a container: its command and args, as one command line. */
export function containerFlags(container: {args?: unknown; command?: unknown}): Map<string, string> {
  return readFlags([...listOf(container.command), ...listOf(container.args)])
}

/** Flags as a snapshot keeps them: `--name=value`, or `--name` for one that is only set; readFlags reads them back the same. */
export function flagArgs(flags: ReadonlyMap<string, string>): string[] {
  return [...flags].map(([name, value]) => (value === 'true' ? `--${name}` : `--${name}=${value}`))
}

/**
 * Environment variables a check reads: kube-proxy's kernel-check bypass, Calico's dataplane, kube-vip's IPVS load
 * balancing (lb_enable). No other is kept, not even its name.
 */
const READ_ENV = new Set(['KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK', 'FELIX_BPFENABLED', 'FELIX_NFTABLESMODE', 'lb_enable'])

/** The variables a check reads that a container sets to a value (not from a Secret or a field). */
export function readEnv(env: unknown): Map<string, string> {
  const read = new Map<string, string>()
  if (!Array.isArray(env)) return read
  for (const variable of env as Array<{name?: unknown; value?: unknown}>) {
    if (typeof variable?.name === 'string' && READ_ENV.has(variable.name) && typeof variable.value === 'string') read.set(variable.name, variable.value)
  }

  return read
}

/**
 * Node labels a check or the plan reads: the OS, the roles, and the ones that name a platform or a node
 * pool (EKS, AKS, GKE, Karpenter, OpenShift, CCE, ACK, TKE, kOps, KKP's system/cluster and system/project). The others, often dozens a node, are never kept.
 */
const READ_NODE_LABELS =
  /^(kubernetes\.io\/os|node-role\.kubernetes\.io\/.+|eks\.amazonaws\.com\/.+|kubernetes\.azure\.com\/(cluster|agentpool|os-sku)|cloud\.google\.com\/gke-.+|karpenter\.sh\/nodepool|node\.openshift\.io\/.+|cce\.cloud\.com\/.+|alibabacloud\.com\/.+|ack\.aliyun\.com.*|tke\.cloud\.tencent\.com\/.+|kops\.k8s\.io\/.+|system\/(cluster|project))$/

/** The labels of a Node that a check reads. */
export function readNodeLabels(labels: unknown): Record<string, string> {
  const read: Record<string, string> = {}
  if (typeof labels !== 'object' || labels === null) return read
  // for…in: labels come from JSON (no inherited keys), and unlike Object.entries it builds no arrays, twice as fast on 5,000 Nodes.
  for (const key in labels) {
    const value = (labels as Record<string, unknown>)[key]
    if (typeof value === 'string' && READ_NODE_LABELS.test(key)) read[key] = value
  }

  return read
}

type ConfigData = Readonly<Record<string, string>>

/** A ConfigMap read by name, and the keys the checks read of it. */
interface NamedConfigMap {
  namespace: string
  name: string
  path: string
  /** The keys of this ConfigMap's data that the checks read; the others are never kept. */
  keysRead: (data: ConfigData) => string[]
}

/**
 * The key kube-proxy's KubeProxyConfiguration is under: `config.conf` (kubeadm, Kubespray, kind),
 * `config` (EKS), else the first key whose value is one. Its other keys (`kubeconfig.conf`) are not read.
 */
export function kubeProxyConfigKey(data: ConfigData): string | undefined {
  if ('config.conf' in data) return 'config.conf'
  if ('config' in data) return 'config'
  return Object.keys(data).find((key) => data[key].includes('KubeProxyConfiguration'))
}

const kubeProxyConfiguration = (data: ConfigData) => {
  const key = kubeProxyConfigKey(data)
  return key === undefined ? [] : [key]
}

const keys =
  (...names: string[]) =>
  (data: ConfigData) =>
    names.filter((name) => name in data)

function configMap(namespace: string, name: string, keysRead: NamedConfigMap['keysRead']): NamedConfigMap {
  return {namespace, name, path: `/api/v1/namespaces/${namespace}/configmaps/${name}`, keysRead}
}

/** ConfigMaps that hold kube-proxy's or a CNI's configuration; no other ConfigMap is read. */
export const CONFIG_MAPS: readonly NamedConfigMap[] = [
  configMap('kube-system', 'kube-proxy', kubeProxyConfiguration), // kubeadm, kOps, Kubespray, kind
  configMap('kube-system', 'kube-proxy-config', kubeProxyConfiguration), // EKS add-on
  configMap('kube-system', 'cilium-config', keys('kube-proxy-replacement')),
  configMap('kube-system', 'kube-flannel-cfg', keys('net-conf.json')),
  configMap('kube-flannel', 'kube-flannel-cfg', keys('net-conf.json')),
  configMap('kube-system', 'antrea-config', keys('antrea-agent.conf')),
]

/** A ConfigMap as the API or a snapshot gives it. */
interface ConfigMapObject {
  metadata?: {name?: string; namespace?: string}
  data?: unknown
}

/** The values of the keys the checks read of this ConfigMap: none for a ConfigMap not in CONFIG_MAPS. */
export function configMapData(object: ConfigMapObject): Record<string, string> {
  const declared = CONFIG_MAPS.find((candidate) => candidate.namespace === object.metadata?.namespace && candidate.name === object.metadata?.name)
  const data: Record<string, string> = {}
  if (!declared || typeof object.data !== 'object' || object.data === null) return data
  for (const [key, value] of Object.entries(object.data)) if (typeof value === 'string') data[key] = value
  return Object.fromEntries(declared.keysRead(data).map((key) => [key, data[key]]))
}

/** Where in a container a command runs: its own command line, or one of its exec probes. */
const COMMAND_PLACES = ['command', 'livenessProbe', 'readinessProbe', 'startupProbe'] as const
type CommandPlace = (typeof COMMAND_PLACES)[number]

/** One ping a container's command or exec probe runs, with the hosts it names as written. */
export interface PingCommand {
  container: string
  place: CommandPlace
  tool: string
  targets: string[]
}

/**
 * The tools that send ICMP echo requests. arping asks ARP, which a ClusterIP never answers on a pod's
 * link, and hping3 or nping send TCP unless told otherwise: none of them is read.
 */
const PING_TOOLS = new Set(['ping', 'ping6', 'fping', 'fping6'])

/** Options of iputils, BusyBox and fping ping that take the next word as their value (`-c 3`, `-I eth0`). */
const OPTIONS_WITH_VALUE = new Set(['-b', '-B', '-c', '-C', '-e', '-F', '-H', '-i', '-I', '-l', '-m', '-M', '-O', '-p', '-Q', '-r', '-s', '-S', '-t', '-T', '-w', '-W', '-x', '-X'])

/**
 * Words a ping can name a host by: an IPv4 or IPv6 literal, a DNS name, or an environment variable
 * (`$X`, `${X}`, Kubernetes' `$(X)`). Nothing else is kept: a word that is none of these may be anything.
 */
const HOST_WORD = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[\da-f]*:[\da-f:]*:[\da-f]*|[a-z\d](?:[-a-z\d]{0,61}[a-z\d])?(?:\.[a-z\d](?:[-a-z\d]{0,61}[a-z\d])?)*\.?|\$(?:\([a-z_]\w*\)|\{[a-z_]\w*\}|[a-z_]\w*))$/i

/** A command line as shell words: variable references stay whole, quotes and operators split words. Linear: no backtracking. */
const WORD = /\$\([a-z_]\w*\)|\$\{[a-z_]\w*\}|[^\s"'`;&|()<>]+|[;&|()<>`\n]/gi

/** The most pings kept of one command line or probe: a script that pings more is listed by its first ones. */
const PINGS_KEPT = 8

/** The pings in one command line (command and args joined, or a probe's exec command). */
function pingsIn(argv: readonly unknown[]): Array<{tool: string; targets: string[]}> {
  const line = argv.map(String).join(' ')
  // Most command lines name no ping: they are not split into words at all.
  if (!line.includes('ping')) return []
  const words = line.match(WORD) ?? []
  const found: Array<{tool: string; targets: string[]}> = []
  for (let index = 0; index < words.length && found.length < PINGS_KEPT; index++) {
    const tool = words[index].slice(words[index].lastIndexOf('/') + 1)
    if (!PING_TOOLS.has(tool)) continue
    const targets: string[] = []
    for (index++; index < words.length && !/^[;&|()<>`\n]$/.test(words[index]); index++) {
      const word = words[index]
      if (OPTIONS_WITH_VALUE.has(word)) index++
      else if (!word.startsWith('-') && word.length <= 253 && HOST_WORD.test(word) && !/^\d+$/.test(word)) targets.push(word)
    }

    if (targets.length > 0) found.push({tool, targets})
  }

  return found
}

/** The pings a container runs: in its command and args, and in its exec probes. */
export function containerPings(container: Record<string, unknown>): PingCommand[] {
  const name = String(container.name ?? '')
  const commandLines: Array<[CommandPlace, unknown[]]> = [['command', [...listOf(container.command), ...listOf(container.args)]]]
  for (const place of COMMAND_PLACES.slice(1)) {
    const probe = container[place] as undefined | {exec?: {command?: unknown}}
    commandLines.push([place, listOf(probe?.exec?.command)])
  }

  return commandLines.flatMap(([place, argv]) => pingsIn(argv).map(({tool, targets}) => ({container: name, place, tool, targets})))
}

/**
 * A container's pings as a snapshot keeps them, in the fields the API has, so containerPings reads
 * them back the same: each place's pings as one `sh -c` line of `tool host…`, nothing else of it.
 */
export function pingFields(pings: readonly PingCommand[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {}
  for (const place of COMMAND_PLACES) {
    const here = pings.filter((ping) => ping.place === place)
    if (here.length === 0) continue
    const command = ['sh', '-c', here.map((ping) => [ping.tool, ...ping.targets].join(' ')).join('; ')]
    fields[place] = place === 'command' ? command : {exec: {command}}
  }

  return fields
}

/** The pod spec of a workload's template: a CronJob's is inside its job template. */
export function podTemplateSpec(workload: {spec?: unknown}): Record<string, unknown> | undefined {
  const spec = workload.spec as undefined | {jobTemplate?: {spec?: {template?: {spec?: Record<string, unknown>}}}; template?: {spec?: Record<string, unknown>}}
  return spec?.template?.spec ?? spec?.jobTemplate?.spec?.template?.spec
}

/**
 * The pings of a workload's containers and init containers. A Job a CronJob created runs its CronJob's
 * template, which is read and named instead: its own pings are not read.
 */
export function workloadPings(workload: {metadata?: object; spec?: unknown}): PingCommand[] {
  const owners = isObject(workload.metadata) ? workload.metadata.ownerReferences : undefined
  if (listOf(owners).some((owner) => (owner as {kind?: unknown})?.kind === 'CronJob')) return []
  const spec = podTemplateSpec(workload)
  return [...listOf(spec?.containers), ...listOf(spec?.initContainers)].flatMap((container) => (typeof container === 'object' && container !== null ? containerPings(container as Record<string, unknown>) : []))
}
