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
}

const VIRTUAL_SERVER = /^(?:(?:TCP|UDP|SCTP)\s+(?:[0-9A-Fa-f]{8}|\[[0-9A-Fa-f:]+\]):[0-9A-Fa-f]{4}|FWM\s+[0-9A-Fa-f]{8})\s+([a-z]+)\b/
const REAL_SERVER = /^\s+->\s+(?:[0-9A-Fa-f]{8}|\[[0-9A-Fa-f:]+\]):[0-9A-Fa-f]{4}\s+\S+\s+\d+/

/** Parses /proc/net/ip_vs; empty text is an empty table; undefined when it is something else. */
export function parseProcIpVs(text: string): IpvsTable | undefined {
  const table: IpvsTable = {virtualServers: 0, realServers: 0, schedulers: []}
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
      if (!table.schedulers.includes(server[1])) table.schedulers.push(server[1])
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

/**
 * `ip -o addr show dev kube-ipvs0` output: empty means there is no such interface; otherwise the
 * number of addresses bound to it (one line per address). Undefined for other text.
 */
export function parseKubeIpvs0(text: string): {exists: boolean; addresses: number} | undefined {
  const lines = text.split('\n').filter((line) => line.trim() !== '')
  if (lines.length === 0) return {exists: false, addresses: 0}
  if (lines.some((line) => /does not exist|Cannot find device/i.test(line))) return {exists: false, addresses: 0}
  let addresses = 0
  for (const line of lines) {
    const match = /^\d+:\s+kube-ipvs0\s+(\S+)\s/.exec(line)
    if (!match) return undefined
    if (match[1] === 'inet' || match[1] === 'inet6') addresses++
  }

  return {exists: true, addresses}
}
