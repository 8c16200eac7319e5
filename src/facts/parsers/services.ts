/**
 * Host service states: an optional `# method: systemctl|proc` line, then `name state` lines.
 * With systemctl the state is what `systemctl is-active` prints (active, inactive, failed,
 * activating, unknown); with proc it is running or absent.
 */

export interface ServiceStates {
  method?: string
  /** Service name → state, in the order listed. */
  states: Map<string, string>
}

/** Undefined when a non-comment line is not `name state`. */
export function parseServices(text: string): ServiceStates | undefined {
  const states = new Map<string, string>()
  let method: string | undefined
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim()
    if (line === '') continue
    const header = /^#\s*method:\s*(\S+)/.exec(line)
    if (header) {
      method = header[1]
      continue
    }

    if (line.startsWith('#')) continue
    const match = /^([A-Za-z0-9@._-]+)\s+([A-Za-z-]+)$/.exec(line)
    if (!match) return undefined
    states.set(match[1], match[2])
  }

  return {...(method === undefined ? {} : {method}), states}
}

/** Services that are running: `active` (systemctl), `running` (proc). */
export function activeServices(services: ServiceStates): string[] {
  return [...services.states].filter(([, state]) => state === 'active' || state === 'running').map(([name]) => name)
}
