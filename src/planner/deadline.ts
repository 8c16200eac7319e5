import semver from 'semver'

import type {ClusterSummary} from '../contract/report.js'
import {effectiveMode, type KubeProxyConfig, NFTABLES_DEFAULT_FROM} from '../derive/kube-proxy-config.js'

/**
 * What the target release means for the current mode: KEP-5495 for IPVS (deprecated 1.35, off by default 1.40
 * behind the KubeProxyIPVS gate, removed 1.43), KEP-5343 for an unset mode (nftables by default from 1.40, as planned),
 * nftables GA in 1.33.
 */
export function deadline(target: string, summary: ClusterSummary, kubeProxy: KubeProxyConfig): string {
  const version = semver.coerce(target)!
  const atLeast = (minor: string) => semver.gte(version, `${minor}.0`)
  if (summary.proxyMode === 'ipvs') {
    if (atLeast('1.43')) return `Kubernetes ${target} has no IPVS mode (removed in 1.43, where the KubeProxyIPVS gate is locked off). Migrate to nftables before upgrading to 1.43.`
    if (atLeast('1.40')) return `Kubernetes ${target} turns IPVS mode off by default: kube-proxy in ipvs mode exits unless the KubeProxyIPVS gate re-enables it, until its removal in 1.43. Migrate to nftables before upgrading to 1.40.`
    if (atLeast('1.35')) return `IPVS mode is deprecated in Kubernetes ${target} (an error in kube-proxy's log, Node event IPVSDeprecation), off by default from 1.40 and removed in 1.43: migrate before upgrading to 1.40.`
    return `IPVS mode still works in Kubernetes ${target}; it is deprecated from 1.35, off by default from 1.40 and removed in 1.43: migrate before upgrading to 1.40.`
  }

  // An unset mode follows kube-proxy's version: upgraded to the target, it may be nftables without any switch being planned.
  if (kubeProxy.configuredMode === '' && effectiveMode('', target) !== effectiveMode('', kubeProxy.version)) {
    return `kube-proxy's mode is unset, and KEP-5343 plans an unset mode to be nftables from ${NFTABLES_DEFAULT_FROM}: upgrading to Kubernetes ${target} switches every node at the upgrade, unchecked. Set the mode before upgrading (the prerequisites step).`
  }

  const ga = atLeast('1.33') ? '' : ` nftables mode is GA from 1.33 (beta in 1.31–1.32 with a kernel-check bug); prefer switching on 1.33 or later.`
  return `iptables mode stays supported in Kubernetes ${target}.${ga}`
}
