/** Nodes as the API shows them: what the cluster checks count of them, and each Linux node as a rule subject. */
import semver from 'semver'

import type {NodePool, NodeRow} from '../contract/report.js'
import {SHELL_ONLY_FACTS} from '../facts/catalog.js'
import {FactSet} from '../facts/fact-set.js'
import {parseKernelVersion} from '../facts/parsers/kernel.js'
import {type KeptNode, listed} from '../sources/cluster/kept-objects.js'
import {readNodeLabels} from '../sources/cluster/read-fields.js'
import type {KubeObject} from '../sources/cluster/snapshot.js'
import type {KubeProxyFound} from './kube-proxy.js'
import {OBJECTS_LISTED} from './namespaced.js'
import {CONTROL_PLANE_ROLES, nodePoolOf, ROLE_LABEL_PREFIX} from './node-pools.js'
import {parseOsImage} from './os-image.js'
import type {SnapshotReads} from './snapshot-reads.js'

/** A node as a rule subject. Nodes alike share their `os` and `pool` objects, as they do their facts' parent: the report writes each once. */
export interface NodeSubject {
  name: string
  facts: FactSet
  windows: boolean
  controlPlane: boolean
  pool?: NodePool
  kernelRelease: null | string
  os: NodeRow['os']
  configuredMode: string
}

/** Said in each node check it leaves unknown, thousands of times in a large cluster's report: the plan's first step gives the commands. */
const NOT_IN_API = 'the Kubernetes API does not show it; read it with --node-probe or --facts'

/** What the cluster checks count and list of the nodes. */
export function deriveNodeFacts(cluster: FactSet, resources: SnapshotReads): void {
  const nodes = resources.items('nodes')
  resources.derive(cluster, ['nodes'], ['cluster.bottlerocketNodes', 'cluster.nodes', 'cluster.windowsNodes', 'cluster.osLabelMismatches', 'cluster.multiAddressNodes'], () => {
    // One pass over what can be thousands of Nodes, each list in the Nodes' order.
    const [bottlerocket, windows, mismatches, multiAddress]: string[][] = [[], [], [], []]
    for (const node of nodes) {
      const name = node.metadata?.name ?? ''
      if (String(node.status?.nodeInfo?.osImage ?? '').startsWith('Bottlerocket')) bottlerocket.push(name)
      if (isWindowsNode(node)) windows.push(name)
      const mismatch = osLabelDisagreement(node)
      if (mismatch) mismatches.push(mismatch)
      if (hasSeveralAddressesPerFamily(node)) multiAddress.push(name)
    }

    cluster.set('cluster.bottlerocketNodes', bottlerocket)
    cluster.set('cluster.nodes', nodes.length)
    cluster.set('cluster.windowsNodes', windows)
    // Set only when some disagree (the rule's message reads it with has()): agreeing labels are no evidence worth listing.
    if (mismatches.length > 0) cluster.set('cluster.osLabelMismatches', mismatches.slice(0, OBJECTS_LISTED))
    else cluster.unknown('cluster.osLabelMismatches', 'not-present', "every Node's kubernetes.io/os label agrees with its kubelet")
    cluster.set('cluster.multiAddressNodes', multiAddress)
  })
  resources.derive(cluster, ['nodes'], ['cluster.oldestKernel'], () => {
    const oldest = oldestKernel(nodes)
    if (oldest) cluster.set('cluster.oldestKernel', oldest)
    else cluster.unknown('cluster.oldestKernel', 'not-present', 'no Linux node shows a kernel version kube-proxy can parse')
  })
}

/** What the nodes seen so far share: their facts by kernel and OS image, pools by label and name. */
interface NodesAlike {
  byImage: Map<string, SharedNodeFacts>
  pools: Map<string, NodePool>
}

/** Every node as a rule subject, with what the cluster's kube-proxy makes of it. */
export function nodeSubjects(nodes: readonly KeptNode[], cluster: FactSet, kubeProxy: KubeProxyFound): NodeSubject[] {
  // Unknown on every node alike: held once, under each node's facts, rather than copied into thousands.
  const shellOnly = new FactSet().unknownAll(SHELL_ONLY_FACTS, 'not-collected', NOT_IN_API)
  const alike: NodesAlike = {byImage: new Map(), pools: new Map()}
  return nodes.map((node) => nodeSubject(node, cluster, kubeProxy, shellOnly, alike))
}

/** What nodes alike (a pool: one kernel, one OS image) share: their facts, and the OS their image names. */
interface SharedNodeFacts {
  facts: FactSet
  os: NodeRow['os']
}

/** A node as the API shows it: kernel and OS are known, everything a shell would read is not. */
function nodeSubject(node: KeptNode, cluster: FactSet, kubeProxy: KubeProxyFound, shellOnly: FactSet, alike: NodesAlike): NodeSubject {
  const name = node.metadata?.name ?? ''
  const info = node.status?.nodeInfo
  const labels = readNodeLabels(node.metadata?.labels)
  const pool = sharedPool(nodePoolOf(labels), alike.pools)
  const release = typeof info?.kernelVersion === 'string' ? info.kernelVersion : undefined
  const osImage = typeof info?.osImage === 'string' ? info.osImage : undefined
  // One fact set for nodes alike, under each node's own (its name): the rules see one input for all of them.
  const key = JSON.stringify([release, osImage])
  let shared = alike.byImage.get(key)
  if (!shared) alike.byImage.set(key, (shared = sharedNodeFacts(release, osImage, cluster, kubeProxy, shellOnly)))
  const facts = new FactSet(shared.facts).set('node.name', name)
  const configuredMode = kubeProxy.perNode?.get(name) ?? kubeProxy.config.mode
  if (kubeProxy.perNode) {
    if (configuredMode === 'unknown') facts.unknown('kubeProxy.mode', 'failed', `kube-proxy's static pods on ${name} set different modes`)
    else facts.set('kubeProxy.mode', configuredMode)
  }

  return {
    name,
    facts,
    configuredMode,
    windows: isWindowsNode(node),
    controlPlane: CONTROL_PLANE_ROLES.some((role) => `${ROLE_LABEL_PREFIX}${role}` in labels),
    ...(pool ? {pool} : {}),
    kernelRelease: release ?? null,
    os: shared.os,
  }
}

/** The pool object of an earlier node in the same pool, else this one, kept for the next. */
function sharedPool(pool: NodePool | undefined, pools: Map<string, NodePool>): NodePool | undefined {
  if (!pool) return undefined
  const key = `${pool.label}\u0000${pool.name}`
  const seen = pools.get(key)
  if (seen) return seen
  pools.set(key, pool)
  return pool
}

/** A node's facts from its kernel and OS image as the API shows them, and the cluster's kube-proxy. */
function sharedNodeFacts(release: string | undefined, osImage: string | undefined, cluster: FactSet, kubeProxy: KubeProxyFound, shellOnly: FactSet): SharedNodeFacts {
  const facts = new FactSet(shellOnly)
  const version = release && parseKernelVersion(release)
  if (release) facts.set('kernel.release', release)
  else facts.unknown('kernel.release', 'not-present', 'status.nodeInfo.kernelVersion is empty')
  if (version) facts.set('kernel.version', version)
  else facts.unknown('kernel.version', release ? 'unparseable' : 'not-present', release ? `kernel "${release}"` : 'no kernelVersion')

  const os = osImage ? parseOsImage(osImage) : undefined
  if (osImage) facts.set('os.prettyName', osImage)
  if (os) facts.set('os.id', os.id)
  else facts.unknown('os.id', osImage ? 'unparseable' : 'not-present', osImage ? `osImage "${osImage}" is not one kpx-check knows` : 'no osImage')
  if (os?.versionId) facts.set('os.versionId', os.versionId)
  else facts.unknown('os.versionId', 'not-present', 'osImage carries no version')

  if (kubeProxy.runtime === 'unknown') facts.unknown('kubeProxy.runtime', 'not-collected', NOT_IN_API)
  else facts.set('kubeProxy.runtime', kubeProxy.runtime)
  // The mode a node's kube-proxy runs in is the cluster's: unknown for the same reason, when there is one.
  const modeUnknown = cluster.whyUnknown('kubeProxy.configuredMode') ?? {reason: 'not-collected', detail: 'the cluster configuration does not show the mode'}
  if (kubeProxy.config.mode === 'unknown') facts.unknown('kubeProxy.mode', modeUnknown.reason, modeUnknown.detail)
  else facts.set('kubeProxy.mode', kubeProxy.config.mode)
  if (kubeProxy.skipKernelCheck === undefined) facts.unknown('kubeProxy.skipKernelCheck', 'not-collected', NOT_IN_API)
  else facts.set('kubeProxy.skipKernelCheck', kubeProxy.skipKernelCheck)
  const image = cluster.get('kubeProxy.image')
  const imageUnknown = cluster.whyUnknown('kubeProxy.image')
  if (typeof image === 'string') facts.set('kubeProxy.image', image)
  else if (imageUnknown) facts.unknown('kubeProxy.image', imageUnknown.reason, imageUnknown.detail)
  return {facts, os: {id: os?.id ?? null, versionId: os?.versionId ?? null, prettyName: osImage ?? null}}
}

/** The lowest kernel version (major.minor.patch, as kube-proxy parses it) among the Linux nodes, if any shows one; each release parsed once (thousands of nodes run a few). */
function oldestKernel(nodes: readonly KeptNode[]): string | undefined {
  const releases = new Set<string>()
  for (const node of nodes) {
    const release = node.status?.nodeInfo?.kernelVersion
    if (typeof release === 'string' && !isWindowsNode(node)) releases.add(release)
  }

  let oldest: string | undefined
  for (const release of releases) {
    const version = parseKernelVersion(release)
    if (version && (oldest === undefined || semver.lt(version, oldest))) oldest = version
  }

  return oldest
}

/**
 * Whether a Node runs Windows: as its kubelet reports it (status.nodeInfo.operatingSystem), which is what
 * runs there now; the kubernetes.io/os label, which anyone who may label Nodes can set, only when the
 * kubelet reports nothing. A label that disagrees is reported (osLabelDisagreement), never obeyed.
 */
export function isWindowsNode(node: KubeObject): boolean {
  const reported = kubeletOs(node)
  return reported === undefined ? node.metadata?.labels?.['kubernetes.io/os'] === 'windows' : reported === 'windows'
}

/** Takes any object its callers list as a Node (services/ read them so too), viewed as one: each field read is checked here. */
function kubeletOs(node: KubeObject): string | undefined {
  const reported = (node as KeptNode).status?.nodeInfo?.operatingSystem
  return typeof reported === 'string' && reported !== '' ? reported : undefined
}

/** `name (labelled kubernetes.io/os=windows, its kubelet reports linux)` when the label and the kubelet disagree. */
function osLabelDisagreement(node: KeptNode): string | undefined {
  const label: unknown = node.metadata?.labels?.['kubernetes.io/os']
  const reported = kubeletOs(node)
  if (typeof label !== 'string' || reported === undefined || label === reported) return undefined
  return `${node.metadata?.name ?? ''} (labelled kubernetes.io/os=${label}, its kubelet reports ${reported})`
}

/** Counted without the arrays filters would make: every Node is looked at. */
function hasSeveralAddressesPerFamily(node: KeptNode): boolean {
  let [v4, v6] = [0, 0]
  for (const address of listed(node.status?.addresses)) {
    if (address?.type !== 'InternalIP' && address?.type !== 'ExternalIP') continue
    if (String(address.address).includes(':')) v6++
    else v4++
  }

  return v4 > 1 || v6 > 1
}
