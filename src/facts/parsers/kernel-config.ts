/**
 * Kernel build configuration lines (`/proc/config.gz`, `/boot/config-$(uname -r)`), as the
 * collector prints them: an optional `# source: <path>` line, then `CONFIG_X=y|m|…` and
 * `# CONFIG_X is not set` lines.
 */

export interface KernelConfig {
  /** Where the collector read it from, when it said. */
  source?: string
  /** Option name without `CONFIG_` → value (`y`, `m`, a number or string); `n` for "is not set". */
  options: Map<string, string>
}

/** Parses config lines; undefined when the text holds no CONFIG_ line at all. */
export function parseKernelConfig(text: string): KernelConfig | undefined {
  const options = new Map<string, string>()
  let source: string | undefined
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim()
    const set = /^CONFIG_([A-Za-z0-9_]+)=(.*)$/.exec(line)
    if (set) {
      options.set(set[1], set[2].replace(/^"(.*)"$/, '$1'))
      continue
    }

    const unset = /^# CONFIG_([A-Za-z0-9_]+) is not set$/.exec(line)
    if (unset) {
      options.set(unset[1], 'n')
      continue
    }

    const from = /^# source:\s*(.+)$/.exec(line)
    if (from) source = from[1].trim()
  }

  if (options.size === 0) return undefined
  return {...(source === undefined ? {} : {source}), options}
}

/** The option is built in (`y`) or built as a module (`m`). */
export function configEnabled(config: KernelConfig, name: string): boolean {
  const value = config.options.get(name)
  return value === 'y' || value === 'm'
}
