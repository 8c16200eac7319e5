/**
 * The collector sections about what breaks after the switch and what a rollback needs: `nft-json`,
 * `ruleset-flush`, `ipvs-balancers`, `rollback-kernel` and `iptables-nft-incompatible`. Each parser
 * gives undefined for a line it does not know, so a changed format is unparseable, never a pass.
 */
import type {UnknownReason} from '../../contract/finding.js'
import {UNKNOWN_REASONS} from '../../contract/finding.js'

/** One `nft -j list tables` run: JSON support, or why the run could not tell. */
type NftJsonProbe = {json: boolean} | {reason: UnknownReason; detail: string}

/** `<which> json=yes|no`, or `<which> json=unknown <reason> [detail]`; which is `path` (the nft on PATH) or `k3s` (k3s's own). */
export function parseNftJson(text: string): Map<string, NftJsonProbe> | undefined {
  const probes = new Map<string, NftJsonProbe>()
  for (const line of lines(text)) {
    const match = /^(path|k3s) json=(yes|no|unknown)(?: (\S+)(?: (.*))?)?$/.exec(line)
    if (!match) return undefined
    const [, which, json, reason, detail] = match
    if (json === 'unknown') probes.set(which, {reason: asReason(reason), detail: detail ?? ''})
    else probes.set(which, {json: json === 'yes'})
  }

  return probes
}

interface RulesetFlush {
  /** Files nftables loads that start over with `flush ruleset`. */
  flushFiles: string[]
  /** firewalld's FlushAllOnReload: yes, no, default (not set in firewalld.conf) or other; undefined without firewalld.conf. */
  firewalldFlushAllOnReload?: string
  /** `systemctl is-enabled nftables.service`; undefined where systemd was not asked. */
  nftablesService?: string
}

export function parseRulesetFlush(text: string): RulesetFlush | undefined {
  const found: RulesetFlush = {flushFiles: []}
  for (const line of lines(text)) {
    const [key, value, ...rest] = line.split(' ')
    if (value === undefined || rest.length > 0) return undefined
    if (key === 'flush-ruleset') found.flushFiles.push(value)
    else if (key === 'firewalld-flush-all-on-reload') found.firewalldFlushAllOnReload = value
    else if (key === 'nftables-service') found.nftablesService = value
    else return undefined
  }

  return found
}

/** kube-vip or lvscare, seen as a static pod's manifest or as a process. */
interface IpvsBalancer {
  name: 'kube-vip' | 'lvscare'
  where: string
  /** kube-vip's lb_enable: true, false, or undefined when its environment could not be read. */
  lbEnable?: boolean
}

export function parseIpvsBalancers(text: string): IpvsBalancer[] | undefined {
  const found: IpvsBalancer[] = []
  for (const line of lines(text)) {
    const match = /^(static-pod|process) (kube-vip|lvscare) (\S+) lb_enable=(true|false|unreadable)$/.exec(line)
    if (!match) return undefined
    const [, kind, name, place, lb] = match
    const where = kind === 'static-pod' ? `static pod ${place}` : `process ${place.replace(/^pid=/, '')}`
    found.push({name: name as IpvsBalancer['name'], where, ...(lb === 'unreadable' ? {} : {lbEnable: lb === 'true'})})
  }

  return found
}

type ModuleState = 'builtin' | 'loaded' | 'missing' | 'module' | 'unknown'

/** `<module> <state>` lines. */
export function parseRollbackKernel(text: string): Map<string, ModuleState> | undefined {
  const modules = new Map<string, ModuleState>()
  for (const line of lines(text)) {
    const match = /^([a-z_]+) (builtin|loaded|missing|module|unknown)$/.exec(line)
    if (!match) return undefined
    modules.set(match[1], match[2] as ModuleState)
  }

  return modules
}

/**
 * Whether the kernel can run what the modules are for: any group whose modules are all present
 * makes it true; false when every group has a missing module; undefined when that is not known.
 */
export function kernelCan(modules: ReadonlyMap<string, ModuleState>, groups: ReadonlyArray<readonly string[]>): boolean | undefined {
  const present = (name: string) => ['builtin', 'loaded', 'module'].includes(modules.get(name) ?? 'unknown')
  if (groups.some((group) => group.every((name) => present(name)))) return true
  if (groups.every((group) => group.some((name) => modules.get(name) === 'missing'))) return false
  return undefined
}

/** "Table `nat' is incompatible" lines (iptables-nft-save's words) → the table names, each once. */
export function parseIncompatibleTables(text: string): string[] | undefined {
  const tables: string[] = []
  for (const line of lines(text)) {
    const match = /^table .([a-z0-9_]+)' is incompatible$/i.exec(line)
    if (!match) return undefined
    if (!tables.includes(match[1])) tables.push(match[1])
  }

  return tables
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
}

function asReason(word: string | undefined): UnknownReason {
  return (UNKNOWN_REASONS as readonly string[]).includes(word ?? '') ? (word as UnknownReason) : 'failed'
}
