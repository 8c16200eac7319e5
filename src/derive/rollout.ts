/**
 * Is there anything to migrate, and from what? The one answer, from what every Linux node shows of the
 * kube-proxy it runs (kubeProxy.runningMode) beside what kube-proxy's configuration asks for: during a
 * rollout the ConfigMap says nftables while most nodes still run the old mode, and only the nodes
 * know which. Nothing to migrate only when every Linux node is seen running nftables, or no kube-proxy
 * runs (a known replacement, or every node seen without one).
 */
import type {ClusterSummary} from '../contract/report.js'
import type {FactSet} from '../facts/fact-set.js'

/** What the rollout is read from: the cluster's facts, its nodes' own, and the mode kube-proxy's configuration makes (ClusterModel). */
interface RolloutInput {
  cluster: FactSet
  nodes: ReadonlyArray<{facts: FactSet; name: string; windows: boolean}>
  kubeProxy: {mode: string}
}

/** What the nodes run, by running mode; `unknown`: nodes whose mode no source showed. */
type NodesByMode = ReadonlyMap<string, readonly string[]>

export interface Rollout {
  nothingToMigrate: boolean
  /** Linux nodes by the mode they were seen running. */
  byMode: NodesByMode
  /** What the report says of it: how many nodes switched, have not, cannot be told. */
  summary: ClusterSummary['rollout']
}

const OLD_MODES = new Set(['iptables', 'ipvs'])

/**
 * Sets `cluster.proxyMode` (the mode of the nodes still to switch, or nftables / none when there are
 * none), `kubeProxy.present` where the nodes tell it, and the node lists of the rollout; to run once
 * every node's own facts (bundles, probes, kube-proxy's answers) are in the model.
 */
export function deriveRollout(model: RolloutInput): Rollout {
  const {cluster} = model
  const linux = model.nodes.filter((node) => !node.windows)
  const byMode = new Map<string, string[]>()
  for (const node of linux) {
    const mode = String(node.facts.get('kubeProxy.runningMode') ?? 'unknown')
    const names = byMode.get(mode)
    if (names) names.push(node.name)
    else byMode.set(mode, [node.name])
  }

  const count = (mode: string) => byMode.get(mode)?.length ?? 0
  const switched = byMode.get('nftables') ?? []
  const unknown = byMode.get('unknown') ?? []
  const notSwitched = [...byMode].flatMap(([mode, names]) => (mode === 'nftables' || mode === 'unknown' ? [] : names))
  cluster.set('cluster.nodesRunningNftables', switched).set('cluster.nodesNotSwitched', notSwitched).set('cluster.nodesModeUnknown', unknown)
  const summary = {nftables: switched.length, notSwitched: notSwitched.length, unknown: unknown.length}

  const configured = model.kubeProxy.mode
  const oldModes = [...byMode.keys()].filter((mode) => OLD_MODES.has(mode))
  const everyNode = (mode: string) => linux.length > 0 && count(mode) === linux.length
  const replaced = cluster.has('kubeProxy.replacedBy')
  if (oldModes.length === 0 && everyNode('nftables')) {
    cluster.set('cluster.proxyMode', 'nftables')
    return {nothingToMigrate: true, byMode, summary}
  }

  if (oldModes.length === 0 && configured === 'none' && (replaced || everyNode('none'))) {
    cluster.set('cluster.proxyMode', 'none').set('kubeProxy.present', false)
    return {nothingToMigrate: true, byMode, summary}
  }

  // kube-proxy runs where a node shows it, whether or not the API does (a systemd unit, RKE1's container).
  if (oldModes.length > 0 || count('nftables') > 0) cluster.set('kubeProxy.present', true)
  if (oldModes.length === 1) cluster.set('cluster.proxyMode', oldModes[0])
  else if (oldModes.length > 1) cluster.unknown('cluster.proxyMode', 'failed', `the nodes run kube-proxy in different modes: ${oldModes.map((mode) => `${mode} on ${describeNodes(byMode.get(mode)!)}`).join('; ')}`)
  else if (OLD_MODES.has(configured)) cluster.set('cluster.proxyMode', configured)
  else if (configured === 'none') {
    const detail = `no kube-proxy DaemonSet or static pod is in the API, and nothing known replaces it; kube-proxy can run outside the API (a systemd unit, RKE1's container, MicroK8s' kubelite): read the nodes with --facts or --node-probe`
    cluster.unknown('cluster.proxyMode', 'not-collected', detail).unknown('kubeProxy.present', 'not-collected', detail)
  } else {
    // The configuration says nftables (or cannot be read, for the reason it gives): the old mode only the nodes can tell.
    const unread = configured === 'nftables' ? undefined : cluster.whyUnknown('kubeProxy.configuredMode')
    const toldBy = unread ? `kube-proxy's configuration cannot be read (${unread.detail}), and` : "kube-proxy's configuration says nftables, but"
    const others = [...notSwitched, ...unknown]
    const verb = others.length === 1 ? 'is' : 'are'
    cluster.unknown('cluster.proxyMode', unread?.reason ?? 'not-collected', `${toldBy} ${describeNodes(others)} ${verb} not seen running nftables, in a mode no source showed: read it with --kube-proxy-metrics, --node-probe or --facts`)
  }

  return {nothingToMigrate: false, byMode, summary}
}

/** A few node names, then how many more. */
function describeNodes(names: readonly string[]): string {
  if (names.length === 0) return 'no Linux node'
  const shown = names.slice(0, 3).join(', ')
  return names.length > 3 ? `nodes ${shown} and ${names.length - 3} more` : `node${names.length === 1 ? '' : 's'} ${shown}`
}
