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

/**
 * Base chains on the input or forward hook whose policy is drop, as `family table chain`, from
 * the `table …`, `chain …` and `type … hook … policy …;` lines of `nft list ruleset` (other lines
 * are ignored). Undefined when the text has lines but no table line.
 */
export function parseDropPolicyChains(text: string): string[] | undefined {
  const chains: string[] = []
  let table: string | undefined
  let chain: string | undefined
  let sawTable = false
  for (const line of text.split('\n')) {
    const tableMatch = TABLE.exec(line)
    if (tableMatch) {
      sawTable = true
      table = `${tableMatch[1]} ${unquote(tableMatch[2])}`
      chain = undefined
      continue
    }

    const chainMatch = /^\s*chain\s+("[^"]+"|\S+?)(?:\s*\{.*)?\s*$/.exec(line)
    if (chainMatch) {
      chain = unquote(chainMatch[1])
      continue
    }

    const base = /\btype\s+\S+\s+hook\s+(\S+?)\b.*\bpolicy\s+(\w+)\s*;/.exec(line)
    if (base && table && chain && (base[1] === 'input' || base[1] === 'forward') && base[2] === 'drop') {
      chains.push(`${table} ${chain}`)
    }
  }

  if (!sawTable && text.trim() !== '') return undefined
  return chains
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

/**
 * The sets and maps of kube-proxy's own tables (`table ip kube-proxy`, `table ip6 kube-proxy`), as
 * `family name` (`ip service-ips`), from the `table …`, `set …` and `map …` lines of `nft list ruleset`
 * (other lines are ignored). Undefined when the text has lines but no table line.
 */
export function parseKubeProxyNftObjects(text: string): string[] | undefined {
  const objects: string[] = []
  let family: string | undefined
  let sawTable = false
  for (const line of text.split('\n')) {
    const tableMatch = TABLE.exec(line)
    if (tableMatch) {
      sawTable = true
      family = unquote(tableMatch[2]) === 'kube-proxy' ? tableMatch[1] : undefined
      continue
    }

    const object = /^\s*(?:set|map)\s+("[^"]+"|\S+?)(?:\s*\{.*)?\s*$/.exec(line)
    if (object && family) objects.push(`${family} ${unquote(object[1])}`)
  }

  if (!sawTable && text.trim() !== '') return undefined
  return objects
}
