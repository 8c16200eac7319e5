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
}

export interface IptablesRuleCounts {
  legacy?: RuleCount
  nft?: RuleCount
}

/**
 * `legacy total=<n> kube=<m>` and `nft total=<n> kube=<m>` lines (counts of iptables-legacy-save
 * and iptables-nft-save output). A backend whose save command is missing has no line.
 * Undefined when a line is something else.
 */
export function parseIptablesRuleCounts(text: string): IptablesRuleCounts | undefined {
  const counts: IptablesRuleCounts = {}
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim()
    if (line === '') continue
    const match = /^(legacy|nft)\s+total=(\d+)\s+kube=(\d+)$/.exec(line)
    if (!match) return undefined
    counts[match[1] as 'legacy' | 'nft'] = {total: Number(match[2]), kube: Number(match[3])}
  }

  return counts
}
