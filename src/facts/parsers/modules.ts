/**
 * Kernel module lists: /proc/modules (loaded), modules.builtin (built in) and the module paths of
 * modules.dep (loadable). Names are normalised as the kernel does: `-` and `_` are the same.
 */

/** `kernel/net/netfilter/nft_ct.ko.xz` → `nft_ct`; `nf-tables` → `nf_tables`. */
export function moduleName(pathOrName: string): string {
  const base = pathOrName.trim().split('/').at(-1) ?? ''
  return base.replace(/\.ko(?:\.(?:xz|zst|gz|bz2|lz4))?$/, '').replaceAll('-', '_')
}

/**
 * Loaded modules from /proc/modules (`nf_tables 249856 196 nft_compat,nft_ct, Live 0x…`).
 * An empty text is an empty set; undefined when a non-empty line is not in that format.
 */
export function parseProcModules(text: string): Set<string> | undefined {
  const names = new Set<string>()
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim()
    if (line === '') continue
    const match = /^([A-Za-z0-9_-]+)\s+\d+\s+(?:\d+|-)\s/.exec(line)
    if (!match) return undefined
    names.add(moduleName(match[1]))
  }

  return names
}

/**
 * Module names from a list of module paths, one a line: modules.builtin
 * (`kernel/net/netfilter/nf_tables.ko`) or modules.dep (`kernel/net/netfilter/nft_ct.ko.xz:
 * kernel/…`, only the path before `:` counts). An empty text is an empty set; undefined when a
 * non-empty line names no `.ko` file.
 */
export function parseModulePaths(text: string): Set<string> | undefined {
  const names = new Set<string>()
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim()
    if (line === '' || line.startsWith('#')) continue
    const path = line.split(':', 1)[0].trim()
    if (!/\.ko(?:\.[a-z0-9]+)?$/.test(path)) return undefined
    names.add(moduleName(path))
  }

  return names
}
