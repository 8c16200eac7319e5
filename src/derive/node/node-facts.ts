/**
 * Node facts from a facts bundle: every node path of the catalogue ends up either with a value or
 * unknown with a reason, so a rule never mistakes "could not tell" for "fine".
 *
 * Unknown reasons: a section the bundle lacks is `not-collected`; one the collector listed in
 * `unavailable` keeps the collector's reason and detail; text that does not look like the
 * command's output is `unparseable`; a value the node does not have (a sysctl of an unloaded
 * module, a metric this kube-proxy mode does not export) is `not-present`; every fact of a bundle
 * cut short is `truncated`.
 */
import type {UnknownReason} from '../../contract/finding.js'
import {type Bundle, describeCut} from '../../facts/bundle.js'
import {factsOfSection, NODE_FACT_PATHS, type NodeFactPath} from '../../facts/catalog.js'
import {FactSet, type UnknownFact} from '../../facts/fact-set.js'
import {nodeGlobalAddresses, parseIpAddresses} from '../../facts/parsers/addresses.js'
import {parseCollectorInfo, parseHostname} from '../../facts/parsers/collector.js'
import {type IptablesRuleCounts, parseIptablesPolicies, parseIptablesRuleCounts} from '../../facts/parsers/iptables.js'
import {parseKubeIpsets, parseKubeIpvs0, parseProcIpVs} from '../../facts/parsers/ipvs.js'
import {parseKernelConfig} from '../../facts/parsers/kernel-config.js'
import {assessKernelSupport, type KernelEvidence} from '../../facts/parsers/kernel-features.js'
import {parseKernelRelease, parseKernelVersion} from '../../facts/parsers/kernel.js'
import {parseKubeProxyHealth} from '../../facts/parsers/kube-proxy-healthz.js'
import {type KubeProxyRuntime, kubeProxyRuntime, type MetricSample, metricTotals, parseKubeProxyProcess, parseMetricSamples, parseProxyMode, type ProxyMode} from '../../facts/parsers/kube-proxy.js'
import {parseModulePaths, parseProcModules} from '../../facts/parsers/modules.js'
import {parseDropPolicyHooks, parseNftChains, parseNftCheck, parseNftTables} from '../../facts/parsers/nft-ruleset.js'
import {parseOsRelease} from '../../facts/parsers/os-release.js'
import {activeServices, parseServices} from '../../facts/parsers/services.js'
import {kernelCan, parseIncompatibleTables, parseIpvsBalancers, parseNftJson, parseRollbackKernel, parseRulesetFlush} from '../../facts/parsers/switch-hazards.js'
import {parseSysctl, sysctlInt} from '../../facts/parsers/sysctl.js'
import {parseIptablesVersion, parseNftVersion} from '../../facts/parsers/versions.js'
import {MODE_METRIC_FAMILIES, type ModeEvidence, setRunningMode} from './running-mode.js'

type Read = {ok: true; text: string} | {ok: false; why: UnknownFact}

/** Reads bundle sections, turning an absent or unavailable one into the unknown it causes. */
class Sections {
  constructor(private readonly bundle: Pick<Bundle, 'cut' | 'sections' | 'unavailable'>) {}

  read(name: string): Read {
    const unavailable = this.bundle.unavailable.get(name)
    if (unavailable) {
      return {ok: false, why: {reason: unavailable.reason, detail: unavailable.detail || `the collector could not read ${name}`}}
    }

    const text = this.bundle.sections.get(name)
    if (text === undefined) return {ok: false, why: {reason: 'not-collected', detail: `the bundle has no "${name}" section`}}
    return {ok: true, text}
  }

  /** The hostname section, which names the node: no rule reads it, so a cut bundle keeps it when it came whole. */
  hostname(): string | undefined {
    if (this.bundle.cut?.section === 'hostname') return undefined
    const read = this.read('hostname')
    return read.ok ? parseHostname(read.text) : undefined
  }
}

/** What names a node, and what else its probe knew besides its bundle. */
interface NodeNaming {
  /** The name the node was probed by (its Node's, an SSH target's given name): it beats the bundle's hostname. */
  name?: string
  /** Names the node when `name` does not and the bundle has no usable hostname section (the bundle file name, or this machine's host name). */
  fallbackName: string
  /** Why `sudo -n` was refused, when the collector ran as the login user instead: what it could not read without root says so. */
  sudoRefused?: string
}

/** Derives a node's facts from its bundle. */
export function deriveNodeFacts(bundle: Bundle, {name, fallbackName, sudoRefused}: NodeNaming): FactSet {
  const sections = new Sections(bundle)
  // The `unavailable` list, which says which sections failed and hold partial or no text, comes last:
  // a bundle cut short vouches for none of its sections, however whole they look.
  if (bundle.cut) return unknownNodeFacts(name ?? sections.hostname() ?? fallbackName, 'truncated', `${describeCut(bundle.cut)}; collect it again`)
  const facts = new FactSet()
  deriveIdentity(facts, sections, name ?? sections.hostname() ?? fallbackName)
  for (const derive of [deriveKernel, deriveOs, deriveNft, deriveIptables, deriveKernelSupport, deriveNftState, deriveIpvs, deriveSysctls, deriveServices, deriveAddresses]) derive(facts, sections)
  // These read what others found: where kube-proxy runs, the host's nft, the tables, kube-ipvs0, the iptables counts.
  const runtime = deriveKubeProxy(facts, sections)
  deriveKubeProxyNft(facts, sections, runtime)
  deriveRunningMode(facts, sections)
  deriveNftJson(facts, sections, runtime)
  for (const derive of [deriveRulesetFlush, deriveIpvsBalancers, deriveRollbackKernel, deriveIncompatibleTables]) derive(facts, sections)

  // Every catalogue path must be answered; a path no derivation reached is a bug, not a pass.
  const answered = new Set([...facts.knownPaths(), ...facts.unknownEntries().map(([path]) => path)])
  for (const path of NODE_FACT_PATHS) {
    if (!answered.has(path)) facts.unknown(path, 'not-collected', `no bundle section reports ${path}`)
  }

  if (sudoRefused) blameSudo(facts, sudoRefused)
  return facts
}

/** With --sudo refused, the collector ran as the login user: what it could not read without root says why. */
function blameSudo(facts: FactSet, refusal: string): void {
  for (const [path, why] of facts.unknownEntries()) {
    if (why.reason === 'permission-denied') facts.unknown(path, 'permission-denied', why.detail ? `${refusal}; ${why.detail}` : refusal)
  }
}

/** A node none of whose facts is known, for one reason (it could not be probed, its bundle was cut short). */
export function unknownNodeFacts(name: string, reason: UnknownReason, detail: string): FactSet {
  const facts = new FactSet().set('node.name', name)
  facts.unknownAll(
    NODE_FACT_PATHS.filter((path) => path !== 'node.name'),
    reason,
    detail,
  )
  return facts
}

// ---------------------------------------------------------------------------------------------

/**
 * Runs `derive` on a section's text, or marks the facts the catalogue reads from it unknown when
 * the section cannot be read.
 * `derive` returns a short description of what was wrong when the text is unparseable.
 */
function fromSection(facts: FactSet, sections: Sections, name: string, derive: (text: string) => string | void): void {
  const paths = factsOfSection(name)
  const read = sections.read(name)
  if (!read.ok) {
    facts.unknownAll(paths, read.why.reason, read.why.detail)
    return
  }

  const problem = derive(read.text)
  if (typeof problem === 'string') facts.unknownAll(paths, 'unparseable', `${name}: ${problem}`)
}

/** A short, single-line quote of what the section held. */
function quote(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? ''
  return JSON.stringify(line.length > 60 ? `${line.slice(0, 57)}...` : line)
}

function deriveIdentity(facts: FactSet, sections: Sections, name: string): void {
  facts.set('node.name', name)
  const hostname = sections.hostname()
  if (hostname === undefined) facts.unknown('node.hostname', 'not-collected', 'the bundle names no host')
  else facts.set('node.hostname', hostname)
  fromSection(facts, sections, 'machine-id', (text) => {
    const ids = new Map(text.split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]))
    for (const [path, key] of [['node.machineID', 'machine-id'], ['node.systemUUID', 'system-uuid']] as const) {
      const id = ids.get(key)
      if (id) facts.set(path, id)
      else facts.unknown(path, 'not-present', `machine-id: no ${key}= line`)
    }
  })

  fromSection(facts, sections, 'collector', (text) => {
    const info = parseCollectorInfo(text)
    if (!info) return `expected key=value lines, found ${quote(text)}`
    if (info.uid === undefined) facts.unknown('collector.root', 'unparseable', 'collector: no uid= line')
    else facts.set('collector.root', info.uid === 0)
    if (info.version === undefined) facts.unknown('collector.version', 'unparseable', 'collector: no version= line')
    else facts.set('collector.version', info.version)
    // Collectors before where= ran on hosts and in kube-proxy pods alike: which one, the bundle does not say.
    if (info.where === undefined) facts.unknown('collector.where', 'not-collected', 'collector: no where= line (an older collector)')
    else facts.set('collector.where', info.where)
  })
}

function deriveKernel(facts: FactSet, sections: Sections): void {
  fromSection(facts, sections, 'kernel-release', (text) => {
    const release = parseKernelRelease(text)
    if (!release) return `expected a uname -r line, found ${quote(text)}`
    facts.set('kernel.release', release)
    const version = parseKernelVersion(release)
    if (version) facts.set('kernel.version', version)
    else facts.unknown('kernel.version', 'unparseable', `kernel-release: ${quote(release)} does not start with major.minor, as kube-proxy requires`)
  })
}

function deriveOs(facts: FactSet, sections: Sections): void {
  fromSection(facts, sections, 'os-release', (text) => {
    const release = parseOsRelease(text)
    if (!release) return `no KEY=value lines in ${quote(text)}`
    facts.set('os.id', release.id).set('os.idLike', release.idLike).set('os.prettyName', release.prettyName)
    if (release.versionId === undefined) facts.unknown('os.versionId', 'not-present', 'os-release has no VERSION_ID')
    else facts.set('os.versionId', release.versionId)
  })
}

const NOT_FOUND = /not found|no such file/i

function deriveNft(facts: FactSet, sections: Sections): void {
  const read = sections.read('nft-version')
  if (!read.ok) {
    if (read.why.reason === 'not-installed') {
      facts.set('nft.installed', false).unknown('nft.version', 'not-installed', read.why.detail)
    } else {
      facts.unknownAll(factsOfSection('nft-version'), read.why.reason, read.why.detail)
    }

    return
  }

  if (read.text.trim() === '' || NOT_FOUND.test(read.text)) {
    facts.set('nft.installed', false).unknown('nft.version', 'not-installed', 'the node has no nft binary')
    return
  }

  facts.set('nft.installed', true)
  const version = parseNftVersion(read.text)
  if (version) facts.set('nft.version', version)
  else facts.unknown('nft.version', 'unparseable', `nft-version: expected "nftables vX.Y.Z (…)", found ${quote(read.text)}`)
}

/** The nft kube-proxy runs: the image's, read in its pod; else, for kube-proxy on the host (`runtime`), the host's (deriveNft's). */
function deriveKubeProxyNft(facts: FactSet, sections: Sections, runtime: KubeProxyRuntime | undefined): void {
  const read = sections.read('kube-proxy-nft-version')
  if (!read.ok && runtime === 'host') {
    const hostNft = facts.get('nft.version')
    const why = facts.whyUnknown('nft.version')
    if (hostNft !== undefined) facts.set('kubeProxy.nftVersion', hostNft)
    else if (why) facts.unknown('kubeProxy.nftVersion', why.reason, `kube-proxy runs on the host, whose nft is not known: ${why.detail}`)
    return
  }

  fromSection(facts, sections, 'kube-proxy-nft-version', (text) => {
    if (text.trim() === '' || NOT_FOUND.test(text)) {
      facts.unknown('kubeProxy.nftVersion', 'not-installed', "kube-proxy's image has no nft binary")
      return
    }

    const version = parseNftVersion(text)
    if (!version) return `expected "nftables vX.Y.Z (…)", found ${quote(text)}`
    facts.set('kubeProxy.nftVersion', version)
  })
}

function deriveIptables(facts: FactSet, sections: Sections): void {
  const versionPaths = factsOfSection('iptables-version')
  const read = sections.read('iptables-version')
  if (!read.ok) {
    facts.unknownAll(versionPaths, read.why.reason, read.why.detail)
  } else if (read.text.trim() === '' || NOT_FOUND.test(read.text)) {
    facts.unknownAll(versionPaths, 'not-installed', 'the node has no iptables binary')
  } else {
    const banner = parseIptablesVersion(read.text)
    if (banner) facts.set('iptables.version', banner.version).set('iptables.backend', banner.backend)
    else facts.unknownAll(versionPaths, 'unparseable', `iptables-version: expected "iptables vX.Y.Z (…)", found ${quote(read.text)}`)
  }

  fromSection(facts, sections, 'iptables-rules', (text) => {
    const counts = parseIptablesRuleCounts(text)
    if (!counts) return `expected "legacy|nft total=N kube=M" lines, found ${quote(text)}`
    for (const [backend, command] of [
      ['legacy', 'iptables-legacy-save'],
      ['nft', 'iptables-nft-save'],
    ] as const) {
      const count = counts[backend]
      const total = `iptables.${backend}Rules` as const
      const kube = `iptables.${backend}KubeRules` as const
      if (count) facts.set(total, count.total).set(kube, count.kube)
      else facts.unknownAll([total, kube], 'not-installed', `the node has no ${command}`)
    }

    deriveServiceChains(facts, counts)
  })

  fromSection(facts, sections, 'iptables-policies', (text) => {
    const policies = parseIptablesPolicies(text)
    if (!policies) return `expected "-P CHAIN POLICY" lines, found ${quote(text)}`
    for (const [chain, path] of [
      ['INPUT', 'iptables.inputPolicy'],
      ['FORWARD', 'iptables.forwardPolicy'],
    ] as const) {
      const policy = policies.get(chain)
      if (policy) facts.set(path, policy)
      else facts.unknown(path, 'not-present', `iptables-policies: no policy line for the filter ${chain} chain`)
    }
  })
}

/** kube-proxy's Service chains over the backends the node has; unknown when a backend's save gave no count of them. */
function deriveServiceChains(facts: FactSet, counts: IptablesRuleCounts): void {
  const backends = (['legacy', 'nft'] as const).filter((backend) => counts[backend])
  const uncounted = backends.filter((backend) => counts[backend]?.service === undefined)
  if (backends.length === 0) {
    facts.unknownAll(['iptables.serviceChainRules', 'iptables.serviceChainBackends'], 'not-installed', 'the node has no iptables-legacy-save or iptables-nft-save')
  } else if (uncounted.length > 0) {
    const detail = `iptables-rules: no count of kube-proxy's Service chains for ${uncounted.join(' and ')} (its ip6tables save failed, or the collector predates the count)`
    facts.unknownAll(['iptables.serviceChainRules', 'iptables.serviceChainBackends'], 'not-collected', detail)
  } else {
    facts.set('iptables.serviceChainRules', backends.reduce((sum, backend) => sum + (counts[backend]?.service ?? 0), 0))
    facts.set('iptables.serviceChainBackends', backends.filter((backend) => (counts[backend]?.service ?? 0) > 0))
  }
}

const KERNEL_SOURCES = ['kernel-config', 'modules', 'modules-builtin', 'modules-available'] as const

function deriveKernelSupport(facts: FactSet, sections: Sections): void {
  const paths = factsOfSection('kernel-config')
  const evidence: KernelEvidence = {}
  const why = new Map<string, UnknownFact>()
  const parsers = {
    'kernel-config': (text: string) => {
      const config = parseKernelConfig(text)
      if (config) evidence.config = config
      return config !== undefined
    },
    modules: (text: string) => {
      const loaded = parseProcModules(text)
      if (loaded) evidence.loaded = loaded
      return loaded !== undefined
    },
    'modules-builtin': (text: string) => {
      const builtin = parseModulePaths(text)
      if (builtin) evidence.builtin = builtin
      return builtin !== undefined
    },
    'modules-available': (text: string) => {
      const available = parseModulePaths(text)
      if (available) evidence.available = available
      return available !== undefined
    },
  }
  for (const source of KERNEL_SOURCES) {
    const read = sections.read(source)
    if (!read.ok) why.set(source, read.why)
    else if (!parsers[source](read.text)) why.set(source, {reason: 'unparseable', detail: `${source}: unexpected line in ${quote(read.text)}`})
  }

  const explain = () => [...why].map(([source, fact]) => `${source}: ${fact.reason}${fact.detail ? ` (${fact.detail})` : ''}`).join('; ')
  // The config is the main witness; its reason is the headline when evidence falls short.
  const headline: UnknownReason = (why.get('kernel-config') ?? why.get('modules-builtin') ?? why.get('modules-available'))?.reason ?? 'not-present'

  if (why.size === KERNEL_SOURCES.length) {
    facts.unknownAll(paths, headline, `no kernel evidence: ${explain()}`)
    return
  }

  const support = assessKernelSupport(evidence)
  if (support.nfTables) facts.set('netfilter.nfTables', support.nfTables)
  else facts.unknown('netfilter.nfTables', headline, `neither the kernel config nor the module lists show nf_tables; ${explain()}`)

  if (support.missing.length > 0 || support.undetermined.length === 0) {
    facts.set('netfilter.missingFeatures', support.missing)
  } else {
    const empty = why.size === 0 ? 'modules.builtin and modules.dep are both empty' : explain()
    facts.unknown('netfilter.missingFeatures', headline, `cannot rule out a missing ${support.undetermined.join(', ')}: ${empty}`)
  }
}

function deriveNftState(facts: FactSet, sections: Sections): void {
  fromSection(facts, sections, 'nft-check', (text) => {
    const check = parseNftCheck(text)
    if (!check) return `expected "exit=<code>" first, found ${quote(text)}`
    if (check.exitCode === 127) {
      facts.unknownAll(factsOfSection('nft-check'), 'not-installed', 'nft-check: nft was not found (exit 127)')
      return
    }

    facts.set('netfilter.checkPassed', check.exitCode === 0).set('netfilter.checkOutput', check.output)
  })

  fromSection(facts, sections, 'nft-tables', (text) => {
    const tables = parseNftTables(text)
    if (!tables) return `expected "table <family> <name>" lines, found ${quote(text)}`
    facts.set('netfilter.tables', tables)
  })

  fromSection(facts, sections, 'nft-chains', (text) => {
    const chains = parseNftChains(text)
    if (!chains) return `expected nft list ruleset table/chain lines, found ${quote(text)}`
    facts.set('netfilter.dropPolicyChains', chains.dropPolicyChains).set('netfilter.dropPolicyHooks', parseDropPolicyHooks(text))
    // kube-proxy makes its sets and maps with its table, in one transaction: a kube-proxy table without
    // a set or map line anywhere is a bundle whose collector kept no such lines.
    const stable = chains.kubeProxyObjects.filter((object) => !object.includes('/'))
    if (!chains.sawSetOrMap && /^\s*table\s+ip6?\s+kube-proxy\b/m.test(text)) {
      facts.unknown('netfilter.kubeProxyObjects', 'not-collected', "nft-chains: no set or map lines (the collector predates them): collect the node's facts again")
    } else facts.set('netfilter.kubeProxyObjects', stable)
  })
}

function deriveIpvs(facts: FactSet, sections: Sections): void {
  // The virtual servers' addresses and kube-ipvs0's, kept to tell kube-proxy's Services among the virtual servers.
  let servers: string[] | undefined
  let bound: string[] | undefined
  const table = sections.read('ipvs')
  if (!table.ok && table.why.reason === 'not-present') {
    // No /proc/net/ip_vs: the ip_vs module is not loaded, so there are no virtual servers.
    facts.set('ipvs.virtualServers', 0).set('ipvs.schedulers', [])
    servers = []
  } else {
    fromSection(facts, sections, 'ipvs', (text) => {
      const parsed = parseProcIpVs(text)
      if (!parsed) return `expected /proc/net/ip_vs lines, found ${quote(text)}`
      facts.set('ipvs.virtualServers', parsed.virtualServers).set('ipvs.schedulers', parsed.schedulers)
      servers = parsed.virtualServers === 0 ? [] : parsed.addresses
    })
  }

  const dummy = sections.read('kube-ipvs0')
  if (!dummy.ok && dummy.why.reason === 'not-present') {
    facts.set('ipvs.kubeIpvs0', false).set('ipvs.kubeIpvs0Addresses', 0)
    bound = []
  } else {
    fromSection(facts, sections, 'kube-ipvs0', (text) => {
      const parsed = parseKubeIpvs0(text)
      if (!parsed) return `expected "ip -o addr show dev kube-ipvs0" lines, found ${quote(text)}`
      facts.set('ipvs.kubeIpvs0', parsed.exists).set('ipvs.kubeIpvs0Addresses', parsed.addresses.length)
      bound = parsed.addresses
    })
  }

  // kube-proxy binds each Service IP it balances to kube-ipvs0, so the virtual servers on those addresses are its
  // Services'; others (kube-vip, keepalived) are on the node's own. No virtual server at all needs no kube-ipvs0 to tell.
  // Unread virtual servers say why first; unread kube-ipvs0 addresses are already the fact's unknown.
  if (servers === undefined) {
    const why = whyUnknown(facts, 'ipvs.virtualServers')
    facts.unknown('ipvs.serviceVirtualServers', why.reason, why.detail)
  } else if (servers.length === 0) facts.set('ipvs.serviceVirtualServers', 0)
  else if (bound) {
    const services = new Set(bound)
    facts.set('ipvs.serviceVirtualServers', servers.filter((address) => services.has(address)).length)
  }

  fromSection(facts, sections, 'ipsets', (text) => {
    const names = parseKubeIpsets(text)
    if (!names) return `expected KUBE-* ipset names, found ${quote(text)}`
    facts.set('ipvs.kubeIpsets', names)
  })
}

const SYSCTLS = [
  ['net.ipv4.conf.all.route_localnet', 'sysctl.routeLocalnet', ''],
  ['net.netfilter.nf_conntrack_tcp_be_liberal', 'sysctl.tcpBeLiberal', ' (nf_conntrack is not loaded)'],
  ['net.ipv4.vs.conn_reuse_mode', 'sysctl.connReuseMode', ' (ip_vs is not loaded)'],
] as const

function deriveSysctls(facts: FactSet, sections: Sections): void {
  fromSection(facts, sections, 'sysctl', (text) => {
    const values = parseSysctl(text)
    for (const [name, path, absent] of SYSCTLS) {
      const raw = values.get(name)
      const value = raw === undefined ? undefined : sysctlInt(raw)
      if (raw === undefined) facts.unknown(path, 'not-present', `the node has no ${name}${absent}`)
      else if (value === undefined) facts.unknown(path, 'unparseable', `sysctl: ${name} = ${quote(raw)} is not a number`)
      else facts.set(path, value)
    }
  })
}

function deriveServices(facts: FactSet, sections: Sections): void {
  fromSection(facts, sections, 'services', (text) => {
    const services = parseServices(text)
    if (!services) return `expected "<service> <state>" lines, found ${quote(text)}`
    facts.set('services.active', activeServices(services))
  })
}

function deriveAddresses(facts: FactSet, sections: Sections): void {
  fromSection(facts, sections, 'addresses', (text) => {
    const addresses = parseIpAddresses(text)
    if (!addresses) return `expected "ip -o addr" lines, found ${quote(text)}`
    const global = nodeGlobalAddresses(addresses)
    facts.set('addresses.ipv4Global', global.ipv4).set('addresses.ipv6Global', global.ipv6)
  })
}

const METRICS = [
  ['kubeproxy_iptables_localhost_nodeports_accepted_packets_total', 'kubeProxy.localhostNodePortsAccepted', 'iptables mode only, kube-proxy ≥ 1.31'],
  ['kubeproxy_iptables_ct_state_invalid_dropped_packets_total', 'kubeProxy.ctInvalidDropped', 'iptables mode only'],
  ['kubeproxy_sync_proxy_rules_nftables_sync_failures_total', 'kubeProxy.nftablesSyncFailures', 'nftables mode only'],
] as const

export const SYNC_FAILURES = 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total'
const CLEANUP_FAILURES = 'kubeproxy_sync_proxy_rules_nftables_cleanup_failures_total'
export const LAST_SYNC = 'kubeproxy_sync_proxy_rules_last_timestamp_seconds'
const LAST_QUEUED = 'kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds'

/** The metric families the node facts read, as kube-proxy names them. */
export const KUBE_PROXY_METRIC_FAMILIES: ReadonlySet<string> = new Set([
  ...METRICS.map(([name]) => name),
  SYNC_FAILURES,
  CLEANUP_FAILURES,
  LAST_SYNC,
  LAST_QUEUED,
  ...MODE_METRIC_FAMILIES,
])

/** The bundle sections that are kube-proxy's own HTTP answers (`/proxyMode`, `/metrics`, `/healthz`), read on the node or through the API server. */
export const KUBE_PROXY_ENDPOINT_SECTIONS = ['kube-proxy-mode', 'kube-proxy-metrics', 'kube-proxy-healthz'] as const

/**
 * The facts of kube-proxy's own answers alone, from those sections (text, or unavailable with
 * why), derived as a collector's bundle would have them: for answers read another way (the pod proxy).
 */
export function deriveKubeProxyEndpointFacts(sections: Pick<Bundle, 'sections' | 'unavailable'>, readAt: Date): FactSet {
  const facts = new FactSet()
  const read = new Sections(sections)
  deriveKubeProxyEndpoint(facts, read, readAt)
  deriveRunningMode(facts, read)
  return facts
}

/** kube-proxy's answers and process; where it runs, when the bundle tells. */
function deriveKubeProxy(facts: FactSet, sections: Sections): KubeProxyRuntime | undefined {
  deriveKubeProxyEndpoint(facts, sections, collectedAt(sections))

  let runtime: KubeProxyRuntime | undefined
  fromSection(facts, sections, 'kube-proxy-process', (text) => {
    const info = parseKubeProxyProcess(text)
    if (!info) return `expected "pid=… exe=… container=…" lines, found ${quote(text)}`
    runtime = kubeProxyRuntime(info.processes)
    facts.set('kubeProxy.runtime', runtime)
    if (runtime === 'none') facts.unknown('kubeProxy.skipKernelCheck', 'not-present', 'no kube-proxy process runs on the node')
    else if (info.skipKernelCheck === 'set') facts.set('kubeProxy.skipKernelCheck', true)
    else if (info.skipKernelCheck === 'unset') facts.set('kubeProxy.skipKernelCheck', false)
    else if (info.skipKernelCheck === 'unreadable') {
      facts.unknown('kubeProxy.skipKernelCheck', 'permission-denied', "kube-proxy's environment is readable only by root")
    } else facts.unknown('kubeProxy.skipKernelCheck', 'not-collected', 'kube-proxy-process: no skip-kernel-check= line')
  })
  return runtime
}

/** When the collector that wrote this bundle ran, by its own clock; undefined when the bundle does not say. */
export function bundleCollectedAt(bundle: Pick<Bundle, 'sections' | 'unavailable'>): Date | undefined {
  return collectedAt(new Sections(bundle))
}

/** When the collector ran, by its own clock (the node's, which kube-proxy's timestamps are on too). */
function collectedAt(sections: Sections): Date | undefined {
  const read = sections.read('collector')
  const time = read.ok ? parseCollectorInfo(read.text)?.time : undefined
  const date = time === undefined ? undefined : new Date(time)
  return date && Number.isFinite(date.getTime()) ? date : undefined
}

/** `readAt`: when the metrics were read (the collector's start, for a bundle); undefined when not known. */
function deriveKubeProxyEndpoint(facts: FactSet, sections: Sections, readAt: Date | undefined): void {
  fromSection(facts, sections, 'kube-proxy-mode', (text) => {
    const mode = parseProxyMode(text)
    if (!mode) return `expected iptables, ipvs or nftables, found ${quote(text)}`
    facts.set('kubeProxy.mode', mode)
  })

  fromSection(facts, sections, 'kube-proxy-metrics', (text) => {
    const samples = parseMetricSamples(text)
    if (!samples) return `expected Prometheus text lines, found ${quote(text)}`
    const metrics = metricTotals(samples)
    for (const [name, path, exported] of METRICS) {
      const value = metrics.get(name)
      if (value === undefined) facts.unknown(path, 'not-present', `kube-proxy does not export ${name} (${exported})`)
      else if (Number.isFinite(value)) facts.set(path, Math.round(value))
      else facts.unknown(path, 'unparseable', `kube-proxy-metrics: ${name} is ${value}`)
    }

    // Labelled counters appear at their first increment: no series is no failure yet.
    for (const [name, path] of [
      [SYNC_FAILURES, 'kubeProxy.syncFailures'],
      [CLEANUP_FAILURES, 'kubeProxy.cleanupFailures'],
    ] as const) {
      const value = metrics.get(name) ?? 0
      if (Number.isFinite(value)) facts.set(path, Math.round(value))
      else facts.unknown(path, 'unparseable', `kube-proxy-metrics: ${name} is ${value}`)
    }

    deriveSyncProgress(facts, samples, readAt)
  })

  fromSection(facts, sections, 'kube-proxy-healthz', (text) => {
    const health = parseKubeProxyHealth(text)
    if (!health) return `expected kube-proxy's JSON answer, found ${quote(text)}`
    const families = [...health.families.keys()].toSorted()
    facts.set('kubeProxy.healthzFamilies', families).set('kubeProxy.unhealthyFamilies', families.filter((family) => !health.families.get(family)))
    if (health.healthy === undefined) facts.unknown('kubeProxy.healthzHealthy', 'not-present', "kube-proxy's /healthz answer has no `healthy` (kube-proxy before 1.33): only its status code said it")
    else facts.set('kubeProxy.healthzHealthy', health.healthy)
    if (health.nodeEligible === undefined) facts.unknown('kubeProxy.nodeEligible', 'not-present', "kube-proxy's /healthz answer has no nodeEligible")
    else facts.set('kubeProxy.nodeEligible', health.nodeEligible)
  })
}

/**
 * kube-proxy's running mode from what the other derivations found (its answers, the tables, kube-ipvs0)
 * and the metric families and process flags of the bundle. Runs last.
 */
function deriveRunningMode(facts: FactSet, sections: Sections): void {
  const tables = facts.get('netfilter.tables')
  const kubeIpvs0 = facts.get('ipvs.kubeIpvs0')
  // Set only from /proxyMode's answer, which parseProxyMode checked.
  const mode = facts.get('kubeProxy.mode') as ProxyMode | undefined
  setRunningMode(facts, {
    proxyMode: mode ?? whyUnknown(facts, 'kubeProxy.mode'),
    metricFamilies: metricFamilies(sections),
    process: kubeProxyProcesses(sections),
    kubeProxyTables: Array.isArray(tables) ? tables.some((table) => table === 'ip kube-proxy' || table === 'ip6 kube-proxy') : whyUnknown(facts, 'netfilter.tables'),
    kubeIpvs0: typeof kubeIpvs0 === 'boolean' ? kubeIpvs0 : whyUnknown(facts, 'ipvs.kubeIpvs0'),
    iptablesKubeRules: iptablesKubeRules(facts),
  })
}

function whyUnknown(facts: FactSet, path: NodeFactPath): UnknownFact {
  return facts.whyUnknown(path) ?? {reason: 'not-collected', detail: `no source reported ${path}`}
}

/** KUBE- rules of both iptables backends; a backend the node does not have holds none. */
function iptablesKubeRules(facts: FactSet): number | UnknownFact {
  let total = 0
  for (const path of ['iptables.legacyKubeRules', 'iptables.nftKubeRules'] as const) {
    const count = facts.get(path)
    const why = whyUnknown(facts, path)
    if (typeof count === 'number') total += count
    else if (why.reason !== 'not-installed') return why
  }

  return total
}

function metricFamilies(sections: Sections): ModeEvidence['metricFamilies'] {
  const read = sections.read('kube-proxy-metrics')
  if (!read.ok) return read.why
  const samples = parseMetricSamples(read.text)
  return samples ? new Set(metricTotals(samples).keys()) : {reason: 'unparseable', detail: 'kube-proxy-metrics is not Prometheus text'}
}

function kubeProxyProcesses(sections: Sections): ModeEvidence['process'] {
  const read = sections.read('kube-proxy-process')
  if (!read.ok) return read.why
  const info = parseKubeProxyProcess(read.text)
  if (!info) return {reason: 'unparseable', detail: 'kube-proxy-process holds other lines'}
  if (info.processes.length === 0) return {running: false}
  // --proxy-mode counts only without --config, which overrides it; k3s passes it as --kube-proxy-arg.
  const modes = new Set(info.processes.map((process) => (/(?:^|\s)--config[= ]/.test(process.args) ? undefined : parseProxyMode(/(?:^|\s)--(?:kube-proxy-arg=-?-?)?proxy-mode=(\S+)/.exec(process.args)?.[1] ?? ''))))
  const [flagMode] = modes
  return modes.size === 1 && flagMode ? {running: true, flagMode} : {running: true}
}

/**
 * Which IP families kube-proxy has synced, and how long a requested sync has waited unfinished: per
 * family, a last_queued later than the last success is a sync not done yet (the test /healthz makes).
 */
function deriveSyncProgress(facts: FactSet, samples: readonly MetricSample[], readAt: Date | undefined): void {
  const synced = new Map<string, number>()
  const queued = new Map<string, number>()
  for (const sample of samples) {
    if (sample.name === LAST_SYNC) synced.set(sample.ipFamily ?? '', sample.value)
    else if (sample.name === LAST_QUEUED) queued.set(sample.ipFamily ?? '', sample.value)
  }

  if (synced.size === 0 && queued.size === 0) {
    const detail = `kube-proxy's metrics as read have no ${LAST_SYNC} or ${LAST_QUEUED}: it has not synced yet, or the collector that wrote the bundle did not keep them (collect again)`
    facts.unknownAll(['kubeProxy.syncedFamilies', 'kubeProxy.pendingSyncSeconds'], 'not-present', detail)
    return
  }

  facts.set('kubeProxy.syncedFamilies', [...synced.keys()].filter((family) => family !== '').toSorted())
  if (!readAt) {
    facts.unknown('kubeProxy.pendingSyncSeconds', 'not-collected', 'the bundle does not say when it was collected (no time= in its collector section)')
    return
  }

  let pending = 0
  for (const [family, requested] of queued) {
    const done = synced.get(family)
    if (done === undefined || requested > done) pending = Math.max(pending, readAt.getTime() / 1000 - requested)
  }

  facts.set('kubeProxy.pendingSyncSeconds', Math.max(0, Math.round(pending)))
}

// ---------------------------------------------------------------------------------------------
// What breaks after the switch, and what a rollback needs (the sections after kube-proxy-process).

/**
 * The nft kube-proxy runs has JSON support: in a pod, the nft there is the image's; on the host, it is
 * kube-proxy's when kube-proxy runs on the host, and k3s's own nft when it runs in k3s (`runtime`, from
 * deriveKubeProxy). A containerised kube-proxy's nft is only seen in its pod.
 */
function deriveNftJson(facts: FactSet, sections: Sections, runtime: KubeProxyRuntime | undefined): void {
  fromSection(facts, sections, 'nft-json', (text) => {
    const probes = parseNftJson(text)
    if (!probes) return `expected "path|k3s json=yes|no|unknown" lines, found ${quote(text)}`
    const where = facts.get('collector.where')
    let which: string | undefined
    if (where === 'kube-proxy-pod' || where === 'probe-pod' || runtime === 'host') which = 'path'
    else if (runtime === 'k3s') which = 'k3s'
    if (which === undefined) {
      const runtimeUnknown = facts.whyUnknown('kubeProxy.runtime')
      if (runtimeUnknown) facts.unknown('kubeProxy.nftJson', runtimeUnknown.reason, `where kube-proxy runs is not known: ${runtimeUnknown.detail}`)
      else facts.unknown('kubeProxy.nftJson', 'not-present', `kube-proxy runs ${runtime === 'none' ? 'nowhere on the node' : `as ${runtime}`}: the nft in its image is tried in its pod (kpx-check cluster --node-probe exec or pod)`)
      return
    }

    const probe = probes.get(which)
    if (probe === undefined) facts.unknown('kubeProxy.nftJson', 'not-installed', which === 'k3s' ? "k3s's own nft was not found in its data folder" : 'no nft on the path')
    else if ('json' in probe) facts.set('kubeProxy.nftJson', probe.json)
    else facts.unknown('kubeProxy.nftJson', probe.reason, `nft -j list tables: ${probe.detail}`)
  })
}

function deriveRulesetFlush(facts: FactSet, sections: Sections): void {
  fromSection(facts, sections, 'ruleset-flush', (text) => {
    const found = parseRulesetFlush(text)
    if (!found) return `expected "flush-ruleset FILE", "firewalld-flush-all-on-reload V" or "nftables-service STATE" lines, found ${quote(text)}`
    facts.set('netfilter.flushRulesetFiles', found.flushFiles)
    if (found.nftablesService === undefined) facts.unknown('netfilter.nftablesServiceEnabled', 'not-collected', 'systemd was not asked (no systemctl, or not on the host)')
    else facts.set('netfilter.nftablesServiceEnabled', found.nftablesService === 'enabled')
    if (found.firewalldFlushAllOnReload === undefined) facts.unknown('netfilter.firewalldFlushAllOnReload', 'not-present', 'the node has no firewalld.conf')
    else facts.set('netfilter.firewalldFlushAllOnReload', found.firewalldFlushAllOnReload)
  })
}

function deriveIpvsBalancers(facts: FactSet, sections: Sections): void {
  fromSection(facts, sections, 'ipvs-balancers', (text) => {
    const found = parseIpvsBalancers(text)
    if (!found) return `expected "static-pod|process kube-vip|lvscare … lb_enable=…" lines, found ${quote(text)}`
    const unread = found.filter((balancer) => balancer.name === 'kube-vip' && balancer.lbEnable === undefined)
    const balancing = found.filter((balancer) => balancer.name === 'lvscare' || balancer.lbEnable === true)
    if (balancing.length === 0 && unread.length > 0) {
      const where = unread.map((balancer) => balancer.where).join(', ')
      facts.unknown('ipvs.balancers', 'permission-denied', `kube-vip runs (${where}), and whether it sets lb_enable is in its environment, readable only by root`)
      return
    }

    facts.set('ipvs.balancers', balancing.map((balancer) => `${balancer.name}${balancer.lbEnable ? ' (lb_enable=true)' : ''}, ${balancer.where}`))
  })
}

/** iptables mode needs ip_tables with iptable_nat (iptables-legacy), or nft_compat (iptables-nft); IPVS mode ip_vs. */
const ROLLBACK_MODULES = [
  ['netfilter.iptablesKernel', [['ip_tables', 'iptable_nat'], ['nft_compat']]],
  ['netfilter.ipvsKernel', [['ip_vs']]],
] as const

function deriveRollbackKernel(facts: FactSet, sections: Sections): void {
  fromSection(facts, sections, 'rollback-kernel', (text) => {
    const modules = parseRollbackKernel(text)
    if (!modules) return `expected "<module> <state>" lines, found ${quote(text)}`
    for (const [path, groups] of ROLLBACK_MODULES) {
      const can = kernelCan(modules, groups)
      const states = groups
        .flat()
        .map((name) => `${name} ${modules.get(name) ?? 'not listed'}`)
        .join(', ')
      if (can === undefined) facts.unknown(path, 'not-present', `not loaded, and no module index (modules.builtin, modules.dep) to look in: ${states}`)
      else facts.set(path, can)
    }
  })
}

function deriveIncompatibleTables(facts: FactSet, sections: Sections): void {
  fromSection(facts, sections, 'iptables-nft-incompatible', (text) => {
    const tables = parseIncompatibleTables(text)
    if (!tables) return `expected "table \`name' is incompatible" lines, found ${quote(text)}`
    facts.set('iptables.nftIncompatibleTables', tables)
  })
}
