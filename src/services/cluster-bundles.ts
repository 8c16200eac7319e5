/**
 * `kpx-check cluster --facts`: bundles collected on the nodes (air-gapped, or no SSH), each taken for
 * the Linux Node its hostname names, as if that node had been probed; bundles that name no Node are reported.
 */
import {type DerivedNode, deriveProbedNodes} from '../derive/node/probed-node.js'
import {isWindowsNode} from '../derive/nodes.js'
import {distinctNodes, nodeName} from '../derive/subjects.js'
import type {ClusterSnapshot} from '../sources/cluster/snapshot.js'
import type {ProbedNode} from '../sources/node/node-probes.js'
import type {NodeProbeResult} from './cluster-node-probe.js'

/** The bundles by the Node each is for: its hostname, else its short name when one Node has it. */
export function bundledNodeProbes(snapshot: ClusterSnapshot, bundles: readonly ProbedNode[]): NodeProbeResult {
  const outcome = snapshot.resources.nodes
  const names = (outcome?.status === 'ok' ? outcome.items : []).filter((node) => !isWindowsNode(node)).map((node) => node.metadata?.name ?? '')
  const byShortName = new Map<string, string[]>()
  for (const name of names) byShortName.set(name.split('.', 1)[0], [...(byShortName.get(name.split('.', 1)[0]) ?? []), name])

  const probed = new Map<string, DerivedNode>()
  const unmatched: string[] = []
  for (const bundle of distinctNodes(deriveProbedNodes(bundles))) {
    const hostname = nodeName(bundle)
    const shortMatches = byShortName.get(hostname.split('.', 1)[0]) ?? []
    const node = names.includes(hostname) ? hostname : (shortMatches.length === 1 ? shortMatches[0] : undefined)
    if (node === undefined || probed.has(node)) unmatched.push(`${hostname} (${bundle.origin})`)
    else probed.set(node, bundle)
  }

  return {probed, unaddressed: new Map(), ...(unmatched.length > 0 ? {unmatchedBundles: unmatched} : {})}
}
