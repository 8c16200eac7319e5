/** `sysctl name …` output: `net.ipv4.conf.all.route_localnet = 1` lines. */

/** name → value as printed; lines that are not `name = value` (errors, blanks) are skipped. */
export function parseSysctl(text: string): Map<string, string> {
  const values = new Map<string, string>()
  for (const line of text.split('\n')) {
    const match = /^\s*([A-Za-z0-9_][A-Za-z0-9_.\-/]*)\s*=(.*)$/.exec(line)
    if (match) values.set(match[1].replaceAll('/', '.'), match[2].trim())
  }

  return values
}

/** A whole-number sysctl value (`1`, `-1`); undefined for anything else. */
export function sysctlInt(value: string): number | undefined {
  return /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : undefined
}
