/**
 * Which nftables kernel features kube-proxy's nftables rules need, and whether a kernel has them,
 * judged from its build config and its module lists.
 *
 * The feature list is derived (domain.md §1.6, [D]) from the expressions the proxier emits:
 * `ct state`/`ct original` (nft_ct), `dnat` in nat chains (nft_nat, nft_chain_nat, nf_nat),
 * `masquerade fully-random` (nft_masq), `reject` (nft_reject), `fib daddr type local` in the
 * `ip` and `ip6` tables (nft_fib_ipv4, nft_fib_ipv6), `numgen random mod N` (nft_numgen), and
 * conntrack (nf_conntrack).
 *
 * Names changed across kernels, so each feature lists every config option and module name that
 * provides it: before 5.1 the NAT chain type was `nft_chain_nat_ipv4` (CONFIG_NFT_CHAIN_NAT_IPV4),
 * from 5.1 `nft_chain_nat` is built from CONFIG_NFT_NAT; before 5.2 masquerade also needed
 * CONFIG_NFT_MASQ_IPV4; CONFIG_NFT_FIB_INET depends on both CONFIG_NFT_FIB_IPV4 and _IPV6;
 * CONFIG_NFT_REJECT_IPV4/_IPV6 have no prompt and follow CONFIG_NFT_REJECT. All the options
 * below still exist in 6.18 (checked against a 6.18.44 /proc/config.gz and 68 distro configs in
 * test/fixtures/kernel-config).
 */
import {configEnabled, type KernelConfig} from './kernel-config.js'

interface NftKernelFeature {
  /** Reported name: the module that provides it on current kernels. */
  name: string
  /** Config options (without `CONFIG_`), any of which set to y or m provides the feature. */
  configs: readonly string[]
  /** Module names, any of which loaded, built in or loadable provides the feature. */
  modules: readonly string[]
  /** An older kernel's per-family option: when the config mentions it, it must be enabled too. */
  legacyConfig?: string
  /**
   * The option the feature's options depend on. kconfig writes every option whose dependencies
   * are met, set or "is not set"; so when the parent is enabled, an option the config does not
   * mention does not exist in this kernel (an old kernel, or the config shows it off). When the
   * parent itself is not mentioned the excerpt says nothing (a stub /proc/config.gz, a filter).
   */
  parent: string
  /** Enabled options that can only be enabled when the feature is (kconfig dependencies). */
  impliedBy?: RegExp
  /** What kube-proxy uses it for. */
  usedFor: string
}

export const NFT_KERNEL_FEATURES: readonly NftKernelFeature[] = [
  {name: 'nf_tables', configs: ['NF_TABLES'], modules: ['nf_tables'], parent: 'NETFILTER', impliedBy: /^(?:NFT_|NF_TABLES_)/, usedFor: 'every nftables table, chain and rule'},
  {name: 'nft_ct', configs: ['NFT_CT'], modules: ['nft_ct'], parent: 'NF_TABLES', usedFor: 'ct state / ct original matches and session affinity'},
  {name: 'nft_nat', configs: ['NFT_NAT'], modules: ['nft_nat'], parent: 'NF_TABLES', usedFor: 'dnat to Service endpoints'},
  {
    name: 'nft_chain_nat',
    configs: ['NFT_NAT', 'NFT_CHAIN_NAT_IPV4'],
    modules: ['nft_chain_nat', 'nft_chain_nat_ipv4'],
    legacyConfig: 'NFT_CHAIN_NAT_IPV4',
    parent: 'NF_TABLES',
    usedFor: 'nat base chains (prerouting, output, postrouting)',
  },
  {name: 'nft_masq', configs: ['NFT_MASQ'], modules: ['nft_masq'], legacyConfig: 'NFT_MASQ_IPV4', parent: 'NF_TABLES', usedFor: 'masquerade fully-random'},
  {
    name: 'nft_reject',
    configs: ['NFT_REJECT', 'NFT_REJECT_IPV4', 'NFT_REJECT_IPV6', 'NFT_REJECT_INET'],
    modules: ['nft_reject', 'nft_reject_ipv4', 'nft_reject_ipv6', 'nft_reject_inet'],
    parent: 'NF_TABLES',
    usedFor: 'reject for Services without endpoints and invalid ports',
  },
  {name: 'nft_fib_ipv4', configs: ['NFT_FIB_IPV4', 'NFT_FIB_INET'], modules: ['nft_fib_ipv4', 'nft_fib_inet'], parent: 'NF_TABLES', usedFor: 'fib daddr type local in the ip table'},
  {name: 'nft_fib_ipv6', configs: ['NFT_FIB_IPV6', 'NFT_FIB_INET'], modules: ['nft_fib_ipv6', 'nft_fib_inet'], parent: 'NF_TABLES', usedFor: 'fib daddr type local in the ip6 table'},
  {name: 'nft_numgen', configs: ['NFT_NUMGEN'], modules: ['nft_numgen'], parent: 'NF_TABLES', usedFor: 'numgen random endpoint selection'},
  {name: 'nf_conntrack', configs: ['NF_CONNTRACK'], modules: ['nf_conntrack'], legacyConfig: 'NF_CONNTRACK_IPV4', parent: 'NETFILTER', impliedBy: /^(?:NF_CONNTRACK_\w+|NF_NAT|NFT_CT|IP_VS_NFCT)$/, usedFor: 'connection tracking and the conntrack sysctls kube-proxy sets'},
  {name: 'nf_nat', configs: ['NF_NAT'], modules: ['nf_nat'], legacyConfig: 'NF_NAT_IPV4', parent: 'NF_CONNTRACK', impliedBy: /^(?:NF_NAT_\w+|NFT_NAT|NFT_MASQ)$/, usedFor: 'the NAT core under dnat and masquerade'},
]

/** What was read; a source that could not be read is undefined. */
export interface KernelEvidence {
  config?: KernelConfig
  /** /proc/modules. */
  loaded?: ReadonlySet<string>
  /** modules.builtin. */
  builtin?: ReadonlySet<string>
  /** Module paths in modules.dep. */
  available?: ReadonlySet<string>
}

type FeatureStatus = 'present' | 'missing' | 'undetermined'
type NfTablesState = 'builtin' | 'loaded' | 'module' | 'missing'

interface KernelSupport {
  /** Undefined when the evidence cannot tell. */
  nfTables?: NfTablesState
  status: Map<string, FeatureStatus>
  /** Features the kernel lacks, in NFT_KERNEL_FEATURES order. */
  missing: string[]
  /** Features the evidence could neither find nor rule out. */
  undetermined: string[]
}

/**
 * Judges each feature, conservatively:
 * - present when any source shows it (a config option set to y/m, or a module loaded, built in
 *   or loadable);
 * - missing when the kernel config rules it out (its option is "not set", or absent although the
 *   option it depends on is settled, e.g. CONFIG_NF_TABLES=m or "# CONFIG_NF_TABLES is not
 *   set"), or, when the config says nothing, when modules.builtin and modules.dep were both read
 *   and neither lists it;
 * - undetermined otherwise (only /proc/modules was readable, which lists just what is loaded).
 */
export function assessKernelSupport(evidence: KernelEvidence): KernelSupport {
  const moduleIndex = moduleIndexIsComplete(evidence)
  const status = new Map<string, FeatureStatus>()
  for (const feature of NFT_KERNEL_FEATURES) {
    if (feature.modules.some((name) => hasModule(evidence, name))) {
      status.set(feature.name, 'present')
      continue
    }

    const fromConfig = evidence.config ? configVerdict(feature, evidence.config) : 'silent'
    if (fromConfig === 'silent') status.set(feature.name, moduleIndex ? 'missing' : 'undetermined')
    else status.set(feature.name, fromConfig)
  }

  const named = (wanted: FeatureStatus) => NFT_KERNEL_FEATURES.map((feature) => feature.name).filter((name) => status.get(name) === wanted)
  const nfTables = nfTablesState(evidence, status.get('nf_tables'))
  return {...(nfTables === undefined ? {} : {nfTables}), status, missing: named('missing'), undetermined: named('undetermined')}
}

function nfTablesState(evidence: KernelEvidence, status: FeatureStatus | undefined): NfTablesState | undefined {
  const config = evidence.config?.options.get('NF_TABLES')
  if (config === 'y' || evidence.builtin?.has('nf_tables')) return 'builtin'
  if (evidence.loaded?.has('nf_tables')) return 'loaded'
  if (config === 'm' || evidence.available?.has('nf_tables')) return 'module'
  if (status === 'missing') return 'missing'
  // A stub config may omit CONFIG_NF_TABLES yet list nft expressions, which depend on it: one
  // built in (=y) means nf_tables is built in; all modules means it is a module.
  const nftValues = new Set([...(evidence.config?.options ?? [])].filter(([name]) => name.startsWith('NFT_')).map(([, value]) => value))
  if (nftValues.has('y')) return 'builtin'
  if (nftValues.has('m')) return 'module'
  return undefined
}

/** modules.builtin and modules.dep together list every in-tree module the kernel has. */
function moduleIndexIsComplete(evidence: KernelEvidence): boolean {
  if (!evidence.builtin || !evidence.available) return false
  return evidence.builtin.size + evidence.available.size > 0
}

function hasModule(evidence: KernelEvidence, name: string): boolean {
  return Boolean(evidence.loaded?.has(name) || evidence.builtin?.has(name) || evidence.available?.has(name))
}

function configVerdict(feature: NftKernelFeature, config: KernelConfig): FeatureStatus | 'silent' {
  if (config.options.get('NETFILTER') === 'n') return 'missing'
  if (feature.configs.some((name) => configEnabled(config, name))) {
    const legacy = feature.legacyConfig
    if (legacy && config.options.has(legacy) && !configEnabled(config, legacy)) return 'missing'
    return 'present'
  }

  const implied = feature.impliedBy
  if (implied && [...config.options.keys()].some((name) => implied.test(name) && configEnabled(config, name))) return 'present'
  if (feature.configs.some((name) => config.options.has(name))) return 'missing'
  // Not mentioned: missing when its parent is settled (enabled, or off), unknown otherwise.
  return config.options.has(feature.parent) ? 'missing' : 'silent'
}
