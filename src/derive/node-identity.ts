/**
 * Is what a probe or bundle found of a node that Node, now? The live Node's status.nodeInfo is what its
 * kubelet reports of the machine it runs on; a bundle can be stale (collected before an upgrade) or of
 * another cluster's node of the same name, and SSH can reach another machine (a recycled address, a DNS
 * search domain, a wrong --ssh-host-template). Where both sides show the same thing and they differ, the
 * node's probe is not used: the API is authoritative by design for what the kubelet reports, and of what
 * only the node shows, nothing from another machine or another time can stand in.
 */
import type {NodeSource} from '../contract/report.js'
import type {FactSet} from '../facts/fact-set.js'
import type {KeptNode} from '../sources/cluster/kept-objects.js'
import type {KubeObject} from '../sources/cluster/snapshot.js'
import {type DerivedNode, unusable} from './node/probed-node.js'

/** A machine-id as systemd writes /etc/machine-id: 32 lowercase hexadecimal characters. A Node's anonymised or made-up one is not compared. */
const MACHINE_ID = /^[0-9a-f]{32}$/
/** An SMBIOS UUID; all zeros or all ones (firmware that sets none) identify no machine. */
const SYSTEM_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const UNSET_UUID = /^[0-]+$|^[f-]+$/i

/** What each side calls the same thing: the probe's fact, the Node's nodeInfo field, and whether a value can be compared. */
const COMPARED: ReadonlyArray<{fact: string; field: 'kernelVersion' | 'machineID' | 'osImage' | 'systemUUID'; what: string; comparable: (value: string) => boolean; same: (a: string, b: string) => boolean}> = [
  {fact: 'node.machineID', field: 'machineID', what: 'machine-id', comparable: (value) => MACHINE_ID.test(value), same: (a, b) => a === b},
  {fact: 'node.systemUUID', field: 'systemUUID', what: 'system UUID', comparable: (value) => SYSTEM_UUID.test(value) && !UNSET_UUID.test(value), same: (a, b) => a.toLowerCase() === b.toLowerCase()},
  {fact: 'kernel.release', field: 'kernelVersion', what: 'kernel', comparable: (value) => value !== '', same: (a, b) => a === b},
  // The kubelet reports os-release's PRETTY_NAME as osImage.
  {fact: 'os.prettyName', field: 'osImage', what: 'OS', comparable: (value) => value !== '', same: (a, b) => a === b},
]

/**
 * The sources that can stand for another machine or another time, as a contradiction names them. A probe by
 * exec or in a probe pod runs where the API server placed its pod, on that Node, now: it is not checked.
 */
const UNBOUND_SOURCES: Partial<Record<NodeSource, string>> = {facts: 'the bundle', ssh: 'the machine SSH reached'}

/**
 * What a bundle's or SSH probe's facts and the Node disagree on, each naming both values: `kernel 6.18.44 (the bundle
 * bundles/w2.facts) is not 4.18.0-553.el8_10.x86_64 (the Node's status.nodeInfo.kernelVersion)`. Empty
 * when nothing both show differs.
 */
function contradictions(node: KeptNode, probed: Pick<DerivedNode, 'facts' | 'origin' | 'source'>): string[] {
  const sourceName = UNBOUND_SOURCES[probed.source]
  if (sourceName === undefined) return []
  const info = node.status?.nodeInfo
  const source = `${sourceName} ${probed.origin}`
  const found: string[] = []
  for (const {fact, field, what, comparable, same} of COMPARED) {
    const mine = probed.facts.get(fact)
    const theirs = info?.[field]
    if (typeof mine !== 'string' || typeof theirs !== 'string' || !comparable(mine) || !comparable(theirs) || same(mine, theirs)) continue
    found.push(`${what} ${JSON.stringify(mine)} (${source}${hostnameOf(probed.facts, node)}) is not ${JSON.stringify(theirs)} (the Node's status.nodeInfo.${field})`)
  }

  return found
}

/** The host name the collector read, when it is not the Node's name: which machine answered. */
function hostnameOf(facts: FactSet, node: KubeObject): string {
  const hostname = facts.get('node.hostname')
  return typeof hostname === 'string' && hostname !== node.metadata?.name ? `, host ${hostname}` : ''
}

/**
 * The probed nodes with each one that contradicts its live Node made unusable: unreachable, with a reason
 * that names both values, so its checks are unknown for it and the Node keeps what the API shows of it
 * (its kernel, its OS). Nodes that agree, or show nothing both sides show, are kept as they are.
 */
export function withoutContradicted(nodes: readonly KubeObject[], probed: ReadonlyMap<string, DerivedNode>): Map<string, DerivedNode> {
  const checked = new Map(probed)
  for (const node of nodes) {
    const name = node.metadata?.name ?? ''
    const found = checked.get(name)
    if (!found?.reachable) continue
    const disagreements = contradictions(node as KeptNode, found)
    if (disagreements.length === 0) continue
    const reason = `contradicts the live Node, so none of its facts are used: ${disagreements.join('; ')}`
    checked.set(name, unusable(found, name, reason))
  }

  return checked
}
