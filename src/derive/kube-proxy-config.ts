import {parse as parseYaml} from 'yaml'

import {compareVersions} from '../facts/parsers/versions.js'
import {KUBE_PROXY_FLAG_FIELDS} from '../sources/cluster/read-fields.js'
import {isObject} from '../util/json-value.js'
import type {NamespacedName} from './components.js'

/** A setting of the iptables or ipvs section that nftables mode would not read: `{field: 'ipvs.syncPeriod', value: '60s'}`. */
interface CarriedSetting {
  field: string
  value: unknown
}

/** What the cluster shows of kube-proxy's configuration: the plan and the rule gating read this, not strings. */
export interface KubeProxyConfig {
  /** iptables, ipvs, nftables, none (no kube-proxy), unknown, or what its configuration names: the mode it runs in (effectiveMode). */
  mode: string
  /** The mode as its configuration and flags set it: '' when unset, so that its version's default applies; null when not read. */
  configuredMode: null | string
  /** Its version, from the image tag (the cluster's for k3s); null when not known. */
  version: null | string
  /** The DaemonSet whose pods run it (OpenShift SDN's, where it is built in); null for static pods, k3s or none. */
  daemonSet: NamespacedName | null
  /** The ConfigMap key its configuration file is read from; null when only flags configure it, or it is unreadable. */
  configMap: (NamespacedName & {key: string}) | null
  carryOver: readonly CarriedSetting[]
  /** Where it serves /metrics and /proxyMode (metricsBindAddress, defaulted); null when its configuration is not read. */
  metricsBindAddress: null | string
  /** Where its health server serves /healthz (healthzBindAddress, defaulted); null when its configuration is not read. */
  healthzBindAddress: null | string
}

/** The first kube-proxy release whose default mode on Linux is nftables (KEP-5343); before it the default is iptables. */
export const NFTABLES_DEFAULT_FROM = '1.40'

/**
 * The one place that decides the mode kube-proxy runs in: the configured one, else its version's default,
 * iptables up to 1.39 and nftables from 1.40. A kube-proxy whose version is not known (an image pinned by
 * digest) is taken for a released one, whose default is iptables.
 */
export function effectiveMode(configured: string, version: null | string): string {
  if (configured !== '') return configured
  return version !== null && compareVersions(version, NFTABLES_DEFAULT_FROM) >= 0 ? 'nftables' : 'iptables'
}

/** kube-proxy's metricsBindAddress when its configuration leaves it unset: reachable from its node only. */
const DEFAULT_METRICS_BIND_ADDRESS = '127.0.0.1:10249'
/** kube-proxy's healthzBindAddress when its configuration leaves it unset: every address of its node. */
const DEFAULT_HEALTHZ_BIND_ADDRESS = '0.0.0.0:10256'

/** kube-proxy's two HTTP servers: the metrics server (/proxyMode, /metrics) and the health server (/healthz). */
const SERVERS = {
  metrics: {field: 'metricsBindAddress', serves: 'its metrics', them: 'them'},
  healthz: {field: 'healthzBindAddress', serves: '/healthz', them: 'it'},
} as const

/**
 * The port the API server's pod proxy can reach one of kube-proxy's HTTP servers on (plain HTTP: kube-proxy
 * does not serve them over TLS), or why it cannot: bound to a loopback address (the metrics server's default),
 * or not known. Any other address is tried; if the pod's IP is not among it, the proxy's answer says so.
 */
export function podProxyPort(config: Pick<KubeProxyConfig, 'healthzBindAddress' | 'metricsBindAddress'>, server: keyof typeof SERVERS): {port: number} | {unreachable: string} {
  const {field, serves, them} = SERVERS[server]
  const address = config[field]
  if (address === null) return {unreachable: `kube-proxy's configuration could not be read, so where it serves ${serves} is not known`}
  const match = /^(?:\[([^\]]*)\]|([^:]*)):(\d{1,5})$/.exec(address)
  const port = Number(match?.[3])
  if (!match || port < 1 || port > 65_535) return {unreachable: `kube-proxy's ${field} ${JSON.stringify(address)} is not a host:port kpx-check can read`}
  const host = match[1] ?? match[2]
  if (host === 'localhost' || host === '::1' || /^127\./.test(host)) {
    return {unreachable: `kube-proxy serves ${serves} on ${address} (${field}), on its node only: the API server's pod proxy cannot reach ${them}`}
  }

  return {port}
}

/** A carried setting as the kubeProxy.carryOver fact lists it: `ipvs.syncPeriod: "60s"`. */
export function describeSetting(setting: CarriedSetting): string {
  return `${setting.field}: ${JSON.stringify(setting.value)}`
}

/**
 * kube-proxy's effective settings, from its KubeProxyConfiguration file (ConfigMap) overlaid with
 * its command-line flags (read-fields.ts readFlags), as kube-proxy itself applies them.
 */
interface KubeProxySettings {
  /** The mode it runs in: as configured, else its version's default (effectiveMode). */
  mode: string
  /** As configured: '' when unset. */
  configuredMode: string
  nodePortAddresses: string[]
  featureGates: string[]
  ipvsScheduler: string
  ipvsStrictARP: boolean
  /** Settings of the iptables/ipvs sections that nftables mode does not read. */
  carryOver: CarriedSetting[]
  /** metricsBindAddress, or its default when unset or empty. */
  metricsBindAddress: string
  /** healthzBindAddress, or its default when unset or empty. */
  healthzBindAddress: string
}

/** A KubeProxyConfiguration document as parsed from its ConfigMap's YAML: each value unchecked until read. */
type ConfigDocument = Record<string, unknown>

/** Defaults of the v1alpha1 config: a value equal to one of these needs no carrying over. */
const DEFAULTS: Record<string, unknown[]> = {
  'iptables.masqueradeAll': [false],
  'iptables.masqueradeBit': [14],
  'iptables.syncPeriod': ['30s', '0s', ''],
  'iptables.minSyncPeriod': ['1s', '0s', ''],
  'ipvs.syncPeriod': ['30s', '0s', ''],
  'ipvs.minSyncPeriod': ['0s', '1s', ''],
  'ipvs.scheduler': ['', 'rr'],
  'ipvs.strictARP': [false],
  'ipvs.excludeCIDRs': [null],
  'ipvs.tcpTimeout': ['0s', ''],
  'ipvs.tcpFinTimeout': ['0s', ''],
  'ipvs.udpTimeout': ['0s', ''],
}

/** Which old settings the current mode reads (and so the nftables section would have to repeat). */
const READ_BY_MODE: Record<string, string[]> = {
  iptables: ['iptables.masqueradeAll', 'iptables.masqueradeBit', 'iptables.syncPeriod', 'iptables.minSyncPeriod'],
  ipvs: [
    'iptables.masqueradeAll',
    'iptables.masqueradeBit',
    'ipvs.syncPeriod',
    'ipvs.minSyncPeriod',
    'ipvs.scheduler',
    'ipvs.excludeCIDRs',
    'ipvs.tcpTimeout',
    'ipvs.tcpFinTimeout',
    'ipvs.udpTimeout',
  ],
}

/**
 * The largest configuration parsed. Real ones are a few KB; the YAML parser's time grows faster than
 * its input on some text (runs of quotes), so a ConfigMap value can bound the work it costs.
 */
export const MAX_CONFIG_LENGTH = 32 * 1024

/**
 * Parses a KubeProxyConfiguration document; undefined when it is not one, longer than MAX_CONFIG_LENGTH,
 * or shaped as kube-proxy would refuse where kpx-check reads it (a section that is not a mapping, a
 * nodePortAddresses that is not a list).
 */
export function parseKubeProxyConfiguration(text: string): ConfigDocument | undefined {
  if (text.length > MAX_CONFIG_LENGTH) return undefined
  try {
    const config: unknown = parseYaml(text)
    return isObject(config) && (config.kind === 'KubeProxyConfiguration' || 'mode' in config) && readableShape(config) ? config : undefined
  } catch {
    return undefined
  }
}

const isAbsent = (value: unknown) => value === undefined || value === null

/** Flags write into the iptables and ipvs sections, and the addresses are read as a list. */
function readableShape(config: ConfigDocument): boolean {
  return ['iptables', 'ipvs'].every((section) => isAbsent(config[section]) || isObject(config[section])) && (isAbsent(config.nodePortAddresses) || Array.isArray(config.nodePortAddresses))
}

/** A table's entry for a name from the cluster: a mode or a flag named like an Object property (`constructor`) has none. */
function entryOf<T>(table: Record<string, T>, name: string): T | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined
}

function getPath(config: ConfigDocument, path: string): unknown {
  let node: unknown = config
  for (const key of path.split('.')) node = node && typeof node === 'object' ? (node as ConfigDocument)[key] : undefined
  return node
}

function setPath(config: ConfigDocument, path: string, value: unknown): void {
  const keys = path.split('.')
  let node = config
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as ConfigDocument
  node[keys.at(-1)!] = value
}

function flagValue(field: string, raw: string): unknown {
  if (field === 'iptables.masqueradeAll' || field === 'ipvs.strictARP') return raw !== 'false'
  if (field === 'iptables.masqueradeBit') return Number(raw)
  if (field === 'nodePortAddresses' || field === 'ipvs.excludeCIDRs') return raw.split(',').filter(Boolean)
  if (field === 'featureGates') return Object.fromEntries(raw.split(',').filter(Boolean).map((gate) => gate.split('=')))
  return raw
}

/** kube-proxy's settings; `version` (from its image, null when not known) decides the mode an unset one means. */
export function kubeProxySettings(config: ConfigDocument | undefined, flags: ReadonlyMap<string, string>, version: null | string): KubeProxySettings {
  const effective: ConfigDocument = structuredClone(config ?? {})
  for (const [flag, raw] of flags) {
    const field = entryOf(KUBE_PROXY_FLAG_FIELDS, flag)
    if (field) setPath(effective, field, flagValue(field, raw))
  }

  const configuredMode = String(effective.mode ?? '')
  const mode = effectiveMode(configuredMode, version)
  const featureGates = Object.entries((effective.featureGates ?? {}) as Record<string, unknown>).map(([name, value]) => `${name}=${value}`)
  const carryOver: CarriedSetting[] = []
  for (const field of entryOf(READ_BY_MODE, mode) ?? []) {
    const value = getPath(effective, field)
    if (value === undefined || (DEFAULTS[field] ?? []).some((normal) => JSON.stringify(normal) === JSON.stringify(value))) continue
    if (Array.isArray(value) && value.length === 0) continue
    const nftablesField = field.replace(/^(iptables|ipvs)\./, 'nftables.')
    if (JSON.stringify(getPath(effective, nftablesField)) === JSON.stringify(value)) continue
    carryOver.push({field, value})
  }

  return {
    mode,
    configuredMode,
    nodePortAddresses: ((effective.nodePortAddresses ?? []) as unknown[]).map(String),
    featureGates,
    ipvsScheduler: String(getPath(effective, 'ipvs.scheduler') ?? ''),
    ipvsStrictARP: getPath(effective, 'ipvs.strictARP') === true,
    carryOver,
    metricsBindAddress: String(effective.metricsBindAddress ?? '') || DEFAULT_METRICS_BIND_ADDRESS,
    healthzBindAddress: String(effective.healthzBindAddress ?? '') || DEFAULT_HEALTHZ_BIND_ADDRESS,
  }
}
