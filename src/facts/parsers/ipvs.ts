/**
 * IPVS state: /proc/net/ip_vs and the kube-ipvs0 dummy interface.
 *
 * /proc/net/ip_vs (net/netfilter/ipvs/ip_vs_ctl.c) prints addresses in hex:
 *
 *   IP Virtual Server version 1.2.1 (size=4096)
 *   Prot LocalAddress:Port Scheduler Flags
 *     -> RemoteAddress:Port Forward Weight ActiveConn InActConn
 *   TCP  0A600001:01BB rr
 *     -> 0AF40002:1F90      Masq    1      0          0
 *   TCP  0A60000A:0035 rr persistent 10800 FFFFFFFF
 *   FWM  00000001 wlc
 *   UDP  [fd00:0000:…:000a]:0035 rr
 */

export interface IpvsTable {
  virtualServers: number
  realServers: number
  /** Schedulers in use, each once, in first-seen order. */
  schedulers: string[]
  /** Each address virtual server's address, as `canonicalAddress` writes it (firewall-mark ones have none). */
  addresses: string[]
}

const VIRTUAL_SERVER = /^(?:(?:TCP|UDP|SCTP)\s+([0-9A-Fa-f]{8}|\[[0-9A-Fa-f:]+\]):[0-9A-Fa-f]{4}|FWM\s+[0-9A-Fa-f]{8})\s+([a-z]+)\b/
const REAL_SERVER = /^\s+->\s+(?:[0-9A-Fa-f]{8}|\[[0-9A-Fa-f:]+\]):[0-9A-Fa-f]{4}\s+\S+\s+\d+/

/** Parses /proc/net/ip_vs; empty text is an empty table; undefined when it is something else. */
export function parseProcIpVs(text: string): IpvsTable | undefined {
  const table: IpvsTable = {virtualServers: 0, realServers: 0, schedulers: [], addresses: []}
  let sawHeader = false
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    if (line.startsWith('IP Virtual Server version ') || line.startsWith('Prot LocalAddress:Port') || /^\s+-> RemoteAddress:Port/.test(line)) {
      sawHeader = true
      continue
    }

    const server = VIRTUAL_SERVER.exec(line)
    if (server) {
      table.virtualServers++
      if (!table.schedulers.includes(server[2])) table.schedulers.push(server[2])
      if (server[1] !== undefined) table.addresses.push(procAddress(server[1]))
      continue
    }

    if (REAL_SERVER.test(line)) {
      table.realServers++
      continue
    }

    return undefined
  }

  if (!sawHeader && table.virtualServers === 0 && table.realServers === 0 && text.trim() !== '') return undefined
  return table
}

/** An address of /proc/net/ip_vs (`0A600001`, `[fd00:0000:…:000a]`) as `canonicalAddress` writes it. */
function procAddress(hex: string): string {
  if (hex.startsWith('[')) return canonicalAddress(hex.slice(1, -1))
  return [0, 2, 4, 6].map((at) => Number.parseInt(hex.slice(at, at + 2), 16)).join('.')
}

/**
 * One spelling per address, so that /proc/net/ip_vs's and ip's can be compared: IPv4 as written, IPv6 as a
 * URL host spells it (lower case, zeros compressed: `fd00:0000:…:000a` and `fd00:0:…::a` are both `fd00:…::a`).
 */
function canonicalAddress(address: string): string {
  if (!address.includes(':')) return address
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1)
  } catch {
    return address
  }
}

/**
 * `ip -o addr show dev kube-ipvs0` output: empty means there is no such interface; otherwise the
 * addresses bound to it (one line per address), as `canonicalAddress` writes them. Undefined for other text.
 */
export function parseKubeIpvs0(text: string): {exists: boolean; addresses: string[]} | undefined {
  const lines = text.split('\n').filter((line) => line.trim() !== '')
  if (lines.length === 0) return {exists: false, addresses: []}
  if (lines.some((line) => /does not exist|Cannot find device/i.test(line))) return {exists: false, addresses: []}
  const addresses: string[] = []
  for (const line of lines) {
    const match = /^\d+:\s+kube-ipvs0\s+(\S+)\s+([^\s/]+)/.exec(line)
    if (!match) return undefined
    if (match[1] === 'inet' || match[1] === 'inet6') addresses.push(canonicalAddress(match[2]))
  }

  return {exists: true, addresses}
}

/** An ipset name (at most 31 characters) of kube-proxy's prefix, in the characters its names use. */
const KUBE_IPSET = /^KUBE-[A-Za-z0-9_.:-]{1,26}$/

/**
 * The collector's `ipsets` section: the KUBE-* names of `ipset list -n`, one a line, then `# N more` when it
 * stopped listing. Undefined for any other line (a name in other characters included: it is never printed back).
 */
export function parseKubeIpsets(text: string): string[] | undefined {
  const names: string[] = []
  for (const line of text.split('\n')) {
    if (line === '' || /^# \d+ more$/.test(line)) continue
    if (!KUBE_IPSET.test(line)) return undefined
    names.push(line)
  }

  return names
}
