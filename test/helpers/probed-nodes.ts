import {type DerivedNode, deriveProbedNodes} from '../../src/derive/node/probed-node.js'
import {probeNodesOverSsh} from '../../src/sources/node/node-probes.js'

/** Probes nodes over SSH and derives their facts, as a node run does. */
export async function probeNodesOverSshForFacts(...args: Parameters<typeof probeNodesOverSsh>): Promise<DerivedNode[]> {
  return deriveProbedNodes(await probeNodesOverSsh(...args))
}
