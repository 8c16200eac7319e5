/**
 * `ip -o addr show scope global` output, one address a line:
 *
 *   2: eth0    inet 10.0.0.5/24 brd 10.0.0.255 scope global dynamic eth0\       valid_lft 86380sec preferred_lft 86380sec
 *   2: eth0    inet6 2001:db8::5/64 scope global dynamic mngtmpaddr \       valid_lft 86380sec preferred_lft 14380sec
 */

export interface InterfaceAddress {
  interface: string
  family: 'inet' | 'inet6'
  /** Address with prefix length, as printed (`10.0.0.5/24`). */
  cidr: string
}

/** Undefined when a non-empty line is not an `ip -o addr` line. */
export function parseIpAddresses(text: string): InterfaceAddress[] | undefined {
  const addresses: InterfaceAddress[] = []
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    const match = /^\d+:\s+([^\s:]+?)(?:@\S+)?\s+(inet6?)\s+(\S+)/.exec(line)
    if (!match) return undefined
    addresses.push({interface: match[1], family: match[2] as 'inet' | 'inet6', cidr: match[3]})
  }

  return addresses
}

/**
 * Interfaces whose global addresses are not node addresses clients can reach: kube-proxy's IPVS
 * dummy (it holds every Service IP), container bridges, CNI overlays and tunnels, and the
 * NodeLocal DNSCache dummy. NodePort exposure is about the other addresses.
 */
const NON_NODE_INTERFACES = [
  /^kube-ipvs0$/,
  /^docker\d+$/,
  /^br-[0-9a-f]{12}$/,
  /^cni\d+$/,
  /^flannel[.-]/,
  /^cilium_/,
  /^vxlan[.-]calico$/,
  /^tunl\d+$/,
  /^cali[0-9a-f]+$/,
  /^weave$/,
  /^kube-bridge$/,
  /^kube-dummy-if$/,
  /^nodelocaldns$/,
  /^antrea-gw\d+$/,
  /^ovn-k8s-/,
  /^lxc/,
  /^veth/,
]

/** Whether an interface carries the node's own addresses (eth0, ens5, bond0, a VLAN …). */
export function isNodeInterface(name: string): boolean {
  return !NON_NODE_INTERFACES.some((pattern) => pattern.test(name))
}

/** The node's global IPv4 and IPv6 addresses (CIDR), container and Service interfaces left out. */
export function nodeGlobalAddresses(addresses: readonly InterfaceAddress[]): {ipv4: string[]; ipv6: string[]} {
  const own = addresses.filter((address) => isNodeInterface(address.interface))
  return {
    ipv4: own.filter((address) => address.family === 'inet').map((address) => address.cidr),
    ipv6: own.filter((address) => address.family === 'inet6').map((address) => address.cidr),
  }
}
