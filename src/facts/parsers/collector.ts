/** The collector's own section (`version=0.1.0`, `uid=0`, `time=…`) and the hostname section. */

export interface CollectorInfo {
  version?: string
  uid?: number
  time?: string
  /** Where it ran: on the host, inside a kube-proxy container (exec into the pod), or in a probe pod. */
  where?: (typeof WHERE)[number]
}

const WHERE = ['host', 'kube-proxy-pod', 'probe-pod'] as const

/** Undefined when no `key=value` line is there. */
export function parseCollectorInfo(text: string): CollectorInfo | undefined {
  const values = new Map<string, string>()
  for (const line of text.split('\n')) {
    const match = /^\s*([a-z][a-z0-9_-]*)=(.*)$/.exec(line)
    if (match) values.set(match[1], match[2].trimEnd())
  }

  if (values.size === 0) return undefined
  const uid = values.get('uid')
  const info: CollectorInfo = {}
  if (values.get('version')) info.version = values.get('version')
  if (uid !== undefined && /^\d+$/.test(uid)) info.uid = Number(uid)
  if (values.get('time')) info.time = values.get('time')
  const where = values.get('where')
  if ((WHERE as readonly string[]).includes(where ?? '')) info.where = where as CollectorInfo['where']
  return info
}

/** First non-empty line, trimmed; undefined when there is none or it is not a host name. */
export function parseHostname(text: string): string | undefined {
  const name = text
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim()
  return name && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) ? name : undefined
}
