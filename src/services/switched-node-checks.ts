/**
 * What `node` and `cluster` make of the verify rules: a node seen running nftables has switched, and is
 * judged on whether it works there (kube-proxy running, its tables, no sync failures, no leftovers), by the
 * same rules `kpx-check verify` applies. Nodes not seen running it skip them, with why.
 */
import type {LoadedRule} from '../engine/rule-lint.js'

/**
 * The verify rules of the switch, for the nodes of a pre-switch run that already run nftables. In a node
 * run, also for a node running no kube-proxy at all, which has no Service rules: never go. (In a cluster, a
 * node without kube-proxy may be served by a replacement, which the cluster's checks judge.)
 */
export function switchedNodeChecks(rules: readonly LoadedRule[], run: 'cluster' | 'node'): LoadedRule[] {
  const modes = run === 'node' ? '["nftables", "none"]' : '["nftables"]'
  const notSwitched = {
    when: `!has(kubeProxy.runningMode) || !(kubeProxy.runningMode in ${modes})`,
    message: `kube-proxy on this node is not seen running in nftables mode{{ has(kubeProxy.runningMode) ? " (" + kubeProxy.runningMode + ")" : "" }}: the checks after the switch apply once it does.`,
  }
  return rules
    .filter((rule) => rule.scope === 'verify' && rule.verifies?.includes('switch'))
    .map((rule) => ({...rule, evaluate: 'always', skip: [notSwitched, ...(rule.skip ?? [])], uses: [...new Set([...(rule.uses ?? []), 'kubeProxy.runningMode'])]}))
}
