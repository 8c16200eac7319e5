import semver from 'semver'

import type {ClusterSummary} from '../contract/report.js'

/** What the target release means for the current mode (KEP-5495 for IPVS; nftables GA in 1.33). */
export function deadline(target: string, summary: ClusterSummary): string {
  const version = semver.coerce(target)!
  const atLeast = (minor: string) => semver.gte(version, `${minor}.0`)
  if (summary.proxyMode === 'ipvs') {
    if (atLeast('1.40')) return `Kubernetes ${target} turns IPVS mode off by default: kube-proxy in ipvs mode exits. Migrate to nftables before upgrading to 1.40.`
    if (atLeast('1.35')) return `IPVS mode is deprecated in Kubernetes ${target} (an error in kube-proxy's log, Node event IPVSDeprecation) and off by default from 1.40: migrate before upgrading to 1.40.`
    return `IPVS mode still works in Kubernetes ${target}; it is deprecated from 1.35 and off by default from 1.40: migrate before upgrading to 1.40.`
  }

  const ga = atLeast('1.33') ? '' : ` nftables mode is GA from 1.33 (beta in 1.31–1.32 with a kernel-check bug); prefer switching on 1.33 or later.`
  return `iptables mode stays supported in Kubernetes ${target}.${ga}`
}
