/**
 * `cluster --node-probe ssh`: the cluster's Linux Nodes as SSH targets, each at the host the
 * --ssh-host-template makes of its name and addresses.
 */
import {type KeptNode, listed} from '../sources/cluster/kept-objects.js'
import type {KubeObject} from '../sources/cluster/snapshot.js'
import {expandHostTemplate, HOST_PLACEHOLDERS, type HostPlaceholder} from '../sources/ssh/host-template.js'
import {isValidHost, type SshTarget} from '../sources/ssh/target.js'
import {UsageError} from '../util/errors.js'
import {isWindowsNode} from './nodes.js'

function address(node: KubeObject, type: 'ExternalIP' | 'InternalIP'): string | undefined {
  for (const entry of listed((node as KeptNode).status?.addresses)) {
    if (entry?.type === type && typeof entry.address === 'string' && entry.address !== '') return entry.address
  }

  return undefined
}

/** One target per Linux Node the template gives an address for, named after the Node; the others with why not. */
export function nodeTargets(nodes: readonly KubeObject[], options: {hostTemplate: string; user?: string}): {targets: SshTarget[]; unaddressed: Map<string, string>} {
  const targets: SshTarget[] = []
  const unaddressed = new Map<string, string>()
  for (const node of nodes.filter((candidate) => !isWindowsNode(candidate))) {
    const name = node.metadata?.name ?? ''
    const values = {name, internalIP: address(node, 'InternalIP'), externalIP: address(node, 'ExternalIP')}
    const missing = (Object.keys(HOST_PLACEHOLDERS) as HostPlaceholder[]).find((placeholder) => options.hostTemplate.includes(`{${placeholder}}`) && !values[placeholder])
    if (missing) {
      unaddressed.set(name, `no ${HOST_PLACEHOLDERS[missing]} to reach it over SSH`)
      continue
    }

    const host = expandHostTemplate(options.hostTemplate, values)
    if (!isValidHost(host)) throw new UsageError(`--ssh-host-template ${options.hostTemplate}: gives "${host}" for node ${name}, not a host name or IP address`)
    targets.push({host, name, ...(options.user ? {user: options.user} : {})})
  }

  return {targets, unaddressed}
}

/** Inventory hosts that are no Node: neither by name nor by the Node's InternalIP. */
export function unmatchedInventory(inventory: readonly SshTarget[], nodes: readonly KubeObject[]): string[] {
  const known = new Set(nodes.flatMap((node) => [node.metadata?.name, address(node, 'InternalIP')]).filter(Boolean))
  return inventory.filter((host) => !known.has(host.host) && !(host.name && known.has(host.name))).map((host) => host.name ?? host.host)
}
