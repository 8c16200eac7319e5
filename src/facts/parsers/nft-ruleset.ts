/** Host nftables state: `nft list tables`, base chains of `nft list ruleset`, and the `nft -c` probe. */

const TABLE = /^\s*table\s+(ip|ip6|inet|arp|bridge|netdev)\s+("[^"]+"|\S+?)(?:\s*\{.*)?\s*$/

/** `table ip filter` lines → `ip filter`. Empty text is no tables; undefined for other text. */
export function parseNftTables(text: string): string[] | undefined {
  const tables: string[] = []
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    const match = TABLE.exec(line)
    if (!match) return undefined
    tables.push(`${match[1]} ${unquote(match[2])}`)
  }

  return tables
}

/** What the collector keeps of `nft list ruleset` tells: drop-policy base chains, and kube-proxy's sets and maps. */
export interface NftChains {
  /** Base chains on the input or forward hook whose policy is drop, as `family table chain`. */
  dropPolicyChains: string[]
  /** The sets and maps of kube-proxy's own tables (`table ip kube-proxy`, `table ip6 kube-proxy`), as `family name`. */
  kubeProxyObjects: string[]
  /** Whether any set or map line was there at all: collectors before 2026-12 kept none. */
  sawSetOrMap: boolean
}

/**
 * The `table …`, `chain …`, `set …`, `map …` and `type … hook … policy …;` lines of `nft list ruleset`,
 * in one pass (other lines are ignored). Undefined when the text has lines but no table line.
 */
export function parseNftChains(text: string): NftChains | undefined {
  const parsed: NftChains = {dropPolicyChains: [], kubeProxyObjects: [], sawSetOrMap: false}
  let table: string | undefined
  let kubeProxyFamily: string | undefined
  let chain: string | undefined
  let sawTable = false
  for (const line of text.split('\n')) {
    const tableMatch = TABLE.exec(line)
    if (tableMatch) {
      sawTable = true
      table = `${tableMatch[1]} ${unquote(tableMatch[2])}`
      kubeProxyFamily = unquote(tableMatch[2]) === 'kube-proxy' ? tableMatch[1] : undefined
      chain = undefined
      continue
    }

    const chainMatch = /^\s*chain\s+("[^"]+"|\S+?)(?:\s*\{.*)?\s*$/.exec(line)
    if (chainMatch) {
      chain = unquote(chainMatch[1])
      continue
    }

    const object = /^\s*(?:set|map)\s+("[^"]+"|\S+?)(?:\s*\{.*)?\s*$/.exec(line)
    if (object) {
      parsed.sawSetOrMap = true
      if (kubeProxyFamily) parsed.kubeProxyObjects.push(`${kubeProxyFamily} ${unquote(object[1])}`)
      continue
    }

    const base = /\btype\s+\S+\s+hook\s+(\S+?)\b.*\bpolicy\s+(\w+)\s*;/.exec(line)
    if (base && table && chain && (base[1] === 'input' || base[1] === 'forward') && base[2] === 'drop') {
      parsed.dropPolicyChains.push(`${table} ${chain}`)
    }
  }

  if (!sawTable && text.trim() !== '') return undefined
  return parsed
}

/** The hooks, of input and forward, that a base chain with policy drop filters on, each once, from the same lines. */
export function parseDropPolicyHooks(text: string): string[] {
  const hooks = new Set<string>()
  for (const line of text.split('\n')) {
    const base = /\btype\s+\S+\s+hook\s+(input|forward)\b.*\bpolicy\s+drop\s*;/.exec(line)
    if (base) hooks.add(base[1])
  }

  return [...hooks]
}

export interface NftCheck {
  exitCode: number
  /** What nft printed, trimmed. */
  output: string
}

/** `exit=<code>` then nft -c output. Undefined when the first line is not `exit=<n>`. */
export function parseNftCheck(text: string): NftCheck | undefined {
  const lines = text.split('\n')
  const first = lines.findIndex((line) => line.trim() !== '')
  if (first === -1) return undefined
  const match = /^exit=(\d+)$/.exec(lines[first].trim())
  if (!match) return undefined
  return {exitCode: Number(match[1]), output: lines.slice(first + 1).join('\n').trim()}
}

function unquote(name: string): string {
  return name.replace(/^"(.*)"$/, '$1')
}
