/**
 * The mode kube-proxy on a node runs in, as the node itself shows it: never the mode its configuration
 * asks for, which during a rollout is not the same (the ConfigMap says nftables long before every
 * kube-proxy has restarted). Worked out here alone, from whatever evidence a source gave.
 */
import type {FactSet, UnknownFact} from '../../facts/fact-set.js'
import type {ProxyMode} from '../../facts/parsers/kube-proxy.js'

/** What a node showed of its kube-proxy; each item is a value, or why the source could not tell it. */
export interface ModeEvidence {
  /** kube-proxy's own answer on `/proxyMode`. */
  proxyMode: ProxyMode | UnknownFact
  /** The kube-proxy metric families its `/metrics` exported, of those a source keeps. */
  metricFamilies: ReadonlySet<string> | UnknownFact
  /** kube-proxy processes on the node: none, or running (with the mode their flags set, when flags set it). */
  process: UnknownFact | {flagMode?: ProxyMode; running: boolean}
  /** The nft tables `ip kube-proxy` or `ip6 kube-proxy` exist. */
  kubeProxyTables: boolean | UnknownFact
  /** The kube-ipvs0 interface, which IPVS mode makes, exists. */
  kubeIpvs0: boolean | UnknownFact
  /** Lines of iptables rules (legacy and nft backends) that name a KUBE- chain. */
  iptablesKubeRules: number | UnknownFact
}

/** Families only iptables mode registers (domain-2026-12b §A.2); `…iptables_total` is set on every sync. */
const IPTABLES_ONLY_FAMILIES = [
  'kubeproxy_sync_proxy_rules_iptables_total',
  'kubeproxy_iptables_ct_state_invalid_dropped_packets_total',
  'kubeproxy_iptables_localhost_nodeports_accepted_packets_total',
] as const
/** Families only nftables mode registers; from 1.33 they appear at their first failure only. */
const NFTABLES_ONLY_FAMILIES = ['kubeproxy_sync_proxy_rules_nftables_sync_failures_total', 'kubeproxy_sync_proxy_rules_nftables_cleanup_failures_total'] as const
/** A family every mode registers and sets on its first sync: proof that the scrape is a synced kube-proxy's. */
const EVERY_MODE_FAMILY = 'kubeproxy_sync_proxy_rules_last_timestamp_seconds'
/** The metric families the running mode is read from. */
export const MODE_METRIC_FAMILIES: readonly string[] = [...IPTABLES_ONLY_FAMILIES, ...NFTABLES_ONLY_FAMILIES, EVERY_MODE_FAMILY]

/**
 * iptables rules naming a KUBE- chain that kube-proxy in nftables mode leaves: the kubelet's own
 * (KUBE-FIREWALL and its jumps, 3 in the real 1.36.2 capture). iptables mode writes dozens even with no
 * Service (KUBE-SERVICES, KUBE-NODEPORTS, KUBE-POSTROUTING, KUBE-MARK-MASQ, KUBE-FORWARD and their jumps).
 */
const KUBELET_ONLY_KUBE_RULES = 8

type Running = {evidence: string; mode: 'none' | ProxyMode}

function known<T>(value: T | UnknownFact): value is T {
  return typeof value !== 'object' || value === null || !('reason' in value)
}

/**
 * The running mode and what showed it, strongest evidence first: kube-proxy's own `/proxyMode`; the
 * metric families only one mode registers; a node with no kube-proxy process that does not answer
 * (`none`); the mode its flags set; the nft tables it owns with it running. Unknown when none of these
 * tells it, with the reason `/proxyMode` could not be read.
 */
function runningMode(evidence: ModeEvidence): Running | UnknownFact {
  const {proxyMode, metricFamilies: families, process} = evidence
  if (known(proxyMode)) return {mode: proxyMode, evidence: `/proxyMode answered ${proxyMode}`}

  if (known(families)) {
    const iptablesOnly = IPTABLES_ONLY_FAMILIES.find((family) => families.has(family))
    if (iptablesOnly) return {mode: 'iptables', evidence: `/metrics exports ${iptablesOnly}, which only iptables mode registers`}
    const nftablesOnly = NFTABLES_ONLY_FAMILIES.find((family) => families.has(family))
    if (nftablesOnly) return {mode: 'nftables', evidence: `/metrics exports ${nftablesOnly}, which only nftables mode registers`}
    if (families.has(EVERY_MODE_FAMILY)) {
      const synced = `/metrics shows synced rules but no iptables-only family`
      if (evidence.kubeIpvs0 === true) return {mode: 'ipvs', evidence: `${synced}, and kube-ipvs0 exists`}
      if (evidence.kubeProxyTables === true && evidence.kubeIpvs0 === false) return {mode: 'nftables', evidence: `${synced}, and the nft tables of kube-proxy exist`}
    }
  }

  if (known(process)) {
    if (!process.running) return {mode: 'none', evidence: 'no kube-proxy process runs on the node and /proxyMode does not answer'}
    if (process.flagMode) return {mode: process.flagMode, evidence: `kube-proxy runs with --proxy-mode=${process.flagMode} and no --config`}
    const kubeRules = evidence.iptablesKubeRules
    if (evidence.kubeProxyTables === true && evidence.kubeIpvs0 === false && known(kubeRules) && kubeRules <= KUBELET_ONLY_KUBE_RULES) {
      return {mode: 'nftables', evidence: `kube-proxy runs, its nft tables exist, and iptables holds only the kubelet's ${kubeRules} KUBE- rules`}
    }
  }

  return {reason: proxyMode.reason, detail: `nothing on the node shows the mode kube-proxy runs in (/proxyMode: ${proxyMode.reason}${proxyMode.detail ? `, ${proxyMode.detail}` : ''})`}
}

/** Sets `kubeProxy.runningMode` and `kubeProxy.runningModeEvidence` from the evidence. */
export function setRunningMode(facts: FactSet, evidence: ModeEvidence): void {
  const running = runningMode(evidence)
  if ('reason' in running) {
    facts.unknownAll(['kubeProxy.runningMode', 'kubeProxy.runningModeEvidence'], running.reason, running.detail)
    return
  }

  facts.set('kubeProxy.runningMode', running.mode).set('kubeProxy.runningModeEvidence', running.evidence)
}
