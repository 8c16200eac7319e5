/**
 * What `node` and `cluster` make of the verify rules: a node seen running nftables has switched, and is
 * judged on whether it works there (kube-proxy running, its tables, no sync failures, no leftovers), by the
 * same rules `kpx-check verify` applies. Nodes not seen running it skip them, with why.
 */
import type {LoadedRule} from '../engine/rule-lint.js'
import {runnableWith} from '../facts/catalog.js'

const RUNNING_MODE = 'kubeProxy.runningMode'
/** A pre-switch run is given no flag of verify's own (--baseline, --watch). */
const WITHOUT_VERIFY_FLAGS = runnableWith({})

/**
 * The verify rules of the switch, for the nodes of a pre-switch run that already run nftables. In a node
 * run, also for a node running no kube-proxy at all, which has no Service rules: never go. (In a cluster, a
 * node without kube-proxy may be served by a replacement, which the cluster's checks judge.)
 *
 * The comparisons with a pre-switch report are not among them: a pre-switch run has none to compare with; nor
 * the watch of two reads (verify --watch).
 *
 * Only a node seen running another mode skips them. A node whose mode cannot be seen may have switched and
 * be broken (kube-proxy exited after deleting the old rules, its metrics unread): its mode is a fact each
 * check needs, so they are unknown with why, never skipped, and the node is never go.
 */
export function switchedNodeChecks(rules: readonly LoadedRule[], run: 'cluster' | 'node'): LoadedRule[] {
  const modes = run === 'node' ? '["nftables", "none"]' : '["nftables"]'
  const notSwitched = {
    when: `!(kubeProxy.runningMode in ${modes})`,
    message: 'kube-proxy on this node is not seen running in nftables mode ({{ kubeProxy.runningMode }}): the checks after the switch apply once it does.',
  }
  return rules
    .filter((rule) => rule.scope === 'verify' && rule.verifies?.includes('switch') && WITHOUT_VERIFY_FLAGS(rule))
    .map((rule) => ({...rule, evaluate: 'always', skip: [notSwitched, ...(rule.skip ?? [])], needs: [...new Set([RUNNING_MODE, ...rule.needs])], uses: (rule.uses ?? []).filter((fact) => fact !== RUNNING_MODE)}))
}
