/** kube-proxy as seen from its node: /proxyMode, /metrics and its process. */

export const PROXY_MODES = ['iptables', 'ipvs', 'nftables', 'kernelspace'] as const
export type ProxyMode = (typeof PROXY_MODES)[number]

/** Body of 127.0.0.1:10249/proxyMode (`iptables`, `ipvs`, `nftables`); undefined for other text. */
export function parseProxyMode(text: string): ProxyMode | undefined {
  const mode = text.trim()
  return (PROXY_MODES as readonly string[]).includes(mode) ? (mode as ProxyMode) : undefined
}

/** One sample line: the metric's name, its `ip_family` label (kube-proxy ≥ 1.33 labels per-sync series with it), its value. */
export interface MetricSample {
  name: string
  ipFamily?: string
  value: number
}

/** Prometheus text exposition → its samples, in order; `# HELP`, `# TYPE` and comment lines skipped. Undefined when a sample line cannot be read. */
export function parseMetricSamples(text: string): MetricSample[] | undefined {
  const samples: MetricSample[] = []
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim()
    if (line === '' || line.startsWith('#')) continue
    const sample = parseSample(line)
    if (!sample) return undefined
    samples.push(sample)
  }

  return samples
}

/**
 * Metric name → value summed over all its label sets (counters such as
 * `kubeproxy_sync_proxy_rules_nftables_sync_failures_total` carry one per IP family).
 */
export function metricTotals(samples: readonly MetricSample[]): Map<string, number> {
  const totals = new Map<string, number>()
  for (const sample of samples) totals.set(sample.name, (totals.get(sample.name) ?? 0) + sample.value)
  return totals
}

/** A sample line starts with its metric name, then its labels or a blank. */
const SAMPLE_START = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:[{ \t]|$)/
/** `# HELP name …` and `# TYPE name …` name the family they describe. */
const DESCRIPTOR = /^#\s*(?:HELP|TYPE)\s+([A-Za-z_:][A-Za-z0-9_:]*)/

/**
 * The lines of a whole /metrics answer that belong to `families` (their samples, HELP and TYPE), as
 * the collector's grep keeps them; undefined when a line is neither a comment nor a sample, so that a
 * page that is no Prometheus exposition (an HTML error page) is not taken for one without the
 * families. One pass, each line tested by anchored patterns that do not backtrack.
 */
export function selectMetricFamilies(text: string, families: ReadonlySet<string>): string | undefined {
  const kept: string[] = []
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim()
    if (line === '') continue
    const name = line.startsWith('#') ? DESCRIPTOR.exec(line)?.[1] : SAMPLE_START.exec(line)?.[1]
    if (!line.startsWith('#') && name === undefined) return undefined
    if (name !== undefined && families.has(name)) kept.push(line)
  }

  return kept.join('\n')
}

/** kube-proxy writes `ip_family="IPv4"` or `"IPv6"`; a value with an escape is not one of those. */
const IP_FAMILY_LABEL = /(?:^|,)\s*ip_family\s*=\s*"([^"\\]*)"/

function parseSample(line: string): MetricSample | undefined {
  const name = /^[A-Za-z_:][A-Za-z0-9_:]*/.exec(line)?.[0]
  if (!name) return undefined
  let rest = line.slice(name.length)
  let ipFamily: string | undefined
  if (rest.startsWith('{')) {
    const end = labelsEnd(rest)
    if (end === undefined) return undefined
    ipFamily = IP_FAMILY_LABEL.exec(rest.slice(1, end))?.[1]
    rest = rest.slice(end + 1)
  }

  const fields = rest.trim().split(/\s+/)
  if (fields.length === 0 || fields.length > 2 || fields[0] === '') return undefined
  const value = sampleValue(fields[0])
  if (value === undefined) return undefined
  return ipFamily === undefined ? {name, value} : {name, ipFamily, value}
}

/** Index of the `}` closing a label set, skipping quoted values with escapes. */
function labelsEnd(text: string): number | undefined {
  let quoted = false
  for (let index = 1; index < text.length; index++) {
    const char = text[index]
    if (quoted) {
      if (char === '\\') index++
      else if (char === '"') quoted = false
    } else if (char === '"') {
      quoted = true
    } else if (char === '}') {
      return index
    }
  }

  return undefined
}

function sampleValue(text: string): number | undefined {
  if (text === '+Inf' || text === 'Inf') return Number.POSITIVE_INFINITY
  if (text === '-Inf') return Number.NEGATIVE_INFINITY
  if (text === 'NaN') return Number.NaN
  return /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(text) ? Number(text) : undefined
}

export interface KubeProxyProcess {
  pid: number
  /** Executable name: kube-proxy, k3s, k3s-server, k3s-agent, rke2. */
  exe: string
  /** The process runs in a container (its cgroup or root differs from the host's). */
  container: boolean
  args: string
}

export type SkipKernelCheck = 'set' | 'unset' | 'unreadable'

export interface KubeProxyProcessInfo {
  processes: KubeProxyProcess[]
  /** Whether KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK is in the process environment. */
  skipKernelCheck?: SkipKernelCheck
}

/**
 * `pid=<pid> exe=<name> container=<yes|no> args=<flags>` lines and one
 * `skip-kernel-check=<set|unset|unreadable>` line. Undefined when a line is something else.
 */
export function parseKubeProxyProcess(text: string): KubeProxyProcessInfo | undefined {
  const info: KubeProxyProcessInfo = {processes: []}
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim()
    if (line === '') continue
    const skip = /^skip-kernel-check=(set|unset|unreadable)$/.exec(line)
    if (skip) {
      info.skipKernelCheck = skip[1] as SkipKernelCheck
      continue
    }

    const process = /^pid=(\d+)\s+exe=(\S+)\s+container=(yes|no)(?:\s+args=(.*))?$/.exec(line)
    if (!process) return undefined
    info.processes.push({pid: Number(process[1]), exe: process[2], container: process[3] === 'yes', args: process[4] ?? ''})
  }

  return info
}

export type KubeProxyRuntime = 'container' | 'host' | 'k3s' | 'rke2' | 'none'

/**
 * How kube-proxy runs: embedded in k3s or RKE2, a container (DaemonSet or static pod), a host
 * binary (systemd unit, "the hard way"), or not at all. The first process found decides.
 */
export function kubeProxyRuntime(processes: readonly KubeProxyProcess[]): KubeProxyRuntime {
  const first = processes[0]
  if (!first) return 'none'
  if (/^k3s(?:-server|-agent)?$/.test(first.exe)) return 'k3s'
  if (/^rke2(?:-server|-agent)?$/.test(first.exe)) return 'rke2'
  return first.container ? 'container' : 'host'
}
