/**
 * Dotted numeric versions, and the version banners of `nft` and `iptables`.
 */

/**
 * Leading `major.minor[.patch…]` digits of a version string, parsed the way Kubernetes'
 * `k8s.io/apimachinery/pkg/util/version.ParseGeneric` does (kube-proxy reads the kernel release
 * with it): optional spaces and `v`, two or more dot-separated numbers (the first without a
 * leading zero), then anything, which is ignored. `5.15.0-1034-azure` → [5, 15, 0].
 */
export function parseGenericVersion(text: string): number[] | undefined {
  const components = leadingComponents(text)
  if (!components || components.length < 2) return undefined
  if (components[0].length > 1 && components[0].startsWith('0')) return undefined
  return components.map(Number)
}

/** Like {@link parseGenericVersion}, but a single number (`6`, `v2`) is accepted too. */
export function parseDottedVersion(text: string): number[] | undefined {
  const components = leadingComponents(text)
  return components?.map(Number)
}

/**
 * Compares two dotted numeric versions; missing components count as 0, anything after the
 * numbers is ignored. Returns -1, 0 or 1 (`compareVersions('5.14.0', '5.13')` → 1).
 * Throws an Error when either side does not start with a number; it quotes the side's first 60 characters.
 */
export function compareVersions(a: string, b: string): -1 | 0 | 1 {
  const left = parseDottedVersion(a)
  const right = parseDottedVersion(b)
  if (!left) throw new Error(`not a dotted version: "${a.slice(0, 60)}"`)
  if (!right) throw new Error(`not a dotted version: "${b.slice(0, 60)}"`)
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0)
    if (difference !== 0) return difference < 0 ? -1 : 1
  }

  return 0
}

function leadingComponents(text: string): string[] | undefined {
  const match = /^\s*v?(\d+(?:\.\d+)*)/.exec(text)
  if (!match) return undefined
  const components = match[1].split('.')
  // Number() loses precision past 2^53; no real version component is that long.
  if (components.some((component) => component.length > 15)) return undefined
  return components
}

/** `nftables v1.0.6 (Lester Gooch #5)` → `1.0.6`; undefined when the text is not an nft banner. */
export function parseNftVersion(text: string): string | undefined {
  return /^[ \t]*nftables v(\d+(?:\.\d+)+)\b/m.exec(text)?.[1]
}

export type IptablesBackend = 'legacy' | 'nf_tables'

export interface IptablesVersion {
  version: string
  backend: IptablesBackend
}

/**
 * `iptables v1.8.7 (nf_tables)` → {version: '1.8.7', backend: 'nf_tables'}. Banners without a
 * backend (`iptables v1.4.21`, before 1.8 only the legacy backend existed) are legacy. Also reads
 * the banners of the companion tools (`iptables-restore v1.8.7 (legacy)`, `iptables-legacy …`).
 */
export function parseIptablesVersion(text: string): IptablesVersion | undefined {
  const match = /^[ \t]*ip6?tables(?:-[a-z-]+)? v(\d+(?:\.\d+)+)(?: \((legacy|nf_tables)\))?/m.exec(text)
  if (!match) return undefined
  return {version: match[1], backend: (match[2] as IptablesBackend | undefined) ?? 'legacy'}
}
