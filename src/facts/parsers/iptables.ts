/** iptables filter-chain policies and the rule counts of the legacy and nf_tables backends. */

/** `-P INPUT ACCEPT` lines (iptables -S) → chain → policy. Undefined when a line is something else. */
export function parseIptablesPolicies(text: string): Map<string, string> | undefined {
  const policies = new Map<string, string>()
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim()
    if (line === '' || line.startsWith('#')) continue
    const match = /^-P\s+(\S+)\s+([A-Z]+)(?:\s+-c\s+\d+\s+\d+)?$/.exec(line)
    if (!match) return undefined
    policies.set(match[1], match[2])
  }

  return policies
}

export interface RuleCount {
  total: number
  /** Rules that mention a KUBE- chain. */
  kube: number
  /**
   * Rules and chain declarations of kube-proxy's Service chains (KUBE-SERVICES, KUBE-NODEPORTS, KUBE-SVC-*,
   * KUBE-SEP-*, …), IPv4 and IPv6 together; undefined from collectors before they were counted.
   */
  service?: number
}

export interface IptablesRuleCounts {
  legacy?: RuleCount
  nft?: RuleCount
}

/**
 * `legacy total=<n> kube=<m> [svc=<s>]` and `nft …` lines (counts of iptables-legacy-save and
 * iptables-nft-save output), and `legacy6 svc=<s>` / `nft6 svc=<s>` (ip6tables-*-save), whose Service
 * chains are added to their backend's. A backend whose save command is missing has no line.
 * Undefined when a line is something else.
 */
export function parseIptablesRuleCounts(text: string): IptablesRuleCounts | undefined {
  const counts: IptablesRuleCounts = {}
  const ipv6 = new Map<'legacy' | 'nft', number>()
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim()
    if (line === '') continue
    const family6 = /^(legacy|nft)6\s+svc=(\d+)$/.exec(line)
    if (family6) {
      ipv6.set(family6[1] as 'legacy' | 'nft', Number(family6[2]))
      continue
    }

    const match = /^(legacy|nft)\s+total=(\d+)\s+kube=(\d+)(?:\s+svc=(\d+))?$/.exec(line)
    if (!match) return undefined
    const count: RuleCount = {total: Number(match[2]), kube: Number(match[3])}
    if (match[4] !== undefined) count.service = Number(match[4])
    counts[match[1] as 'legacy' | 'nft'] = count
  }

  for (const [backend, service] of ipv6) {
    const count = counts[backend]
    if (count?.service !== undefined) count.service += service
  }

  return counts
}
