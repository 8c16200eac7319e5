/**
 * `--inventory FILE`: the hosts to probe, from where ops teams keep them.
 *
 *   - a plain list: one `[USER@]HOST[:PORT]` a line, `#` comments;
 *   - an Ansible INI inventory: `[group]`, `[group:vars]`, `[group:children]`, host lines with
 *     `key=value` variables, host ranges (`node[01:20].example.com`);
 *   - an Ansible YAML inventory (`all: {hosts, vars, children}`), chosen by a .yml/.yaml name
 *     or a first line that opens a mapping.
 *
 * Of the variables only `ansible_host`, `ansible_user` and `ansible_port` (and their old
 * `ansible_ssh_*` names) matter; host variables beat group variables, and a child group's beat its
 * parent's, as in Ansible. A host listed in several groups is probed once. An inventory host with
 * an `ansible_host` is an alias, and that alias names the node.
 */
import {isIPv6} from 'node:net'
import {extname} from 'node:path'
import {isMap, isScalar, LineCounter, type Node, parseDocument, type YAMLMap} from 'yaml'

import {UsageError} from '../../util/errors.js'
import {MAX_FILE_BYTES, quotingNothingOf, readUserFileSync} from '../../util/user-file.js'
import {checkHost, checkPort, checkUser, splitTargetSpec, type SshTarget} from './target.js'

interface Located {
  value: string
  line: number
}

type Vars = Map<string, Located>

interface InventoryHost {
  name: string
  line: number
  vars: Vars
}

interface InventoryGroup {
  vars: Vars
  hosts: Set<string>
  children: Set<string>
}

/** Old names of the connection variables; a value under either name is the same variable. */
const ALIASES: Record<string, string> = {ansible_ssh_host: 'ansible_host', ansible_ssh_user: 'ansible_user', ansible_ssh_port: 'ansible_port'}

export function readInventory(file: string): SshTarget[] {
  const text = readUserFileSync('--inventory', file, {maxBytes: MAX_FILE_BYTES.inventory})!
  try {
    return parseInventory(text, file)
  } catch (error) {
    throw quotingNothingOf(text, error)
  }
}

export function parseInventory(text: string, file: string): SshTarget[] {
  const inventory = new Inventory(file)
  if (looksLikeYaml(text, file)) readYamlInventory(text, inventory)
  else readIniInventory(text, inventory)
  const targets = inventory.targets()
  if (targets.length === 0) throw new UsageError(`--inventory ${file}: the inventory lists no hosts`)
  return targets
}

function looksLikeYaml(text: string, file: string): boolean {
  if (['.yml', '.yaml'].includes(extname(file).toLowerCase())) return true
  const first = text.split('\n').find((line) => line.trim() !== '' && !line.trimStart().startsWith('#'))
  return first !== undefined && (first.trim() === '---' || /^[\w.-]+:\s*(#.*)?$/.test(first))
}

/** Groups and hosts as Ansible models them, filled by either reader. */
class Inventory {
  private readonly groups = new Map<string, InventoryGroup>()
  private readonly hosts = new Map<string, InventoryHost>()

  constructor(readonly file: string) {}

  where(line: number): string {
    return `${this.file}:${line}`
  }

  group(name: string, line: number): InventoryGroup {
    if (!/^[\w.-]+$/.test(name)) throw new UsageError(`${this.where(line)}: "${name}" is not a group name`)
    let group = this.groups.get(name)
    if (!group) {
      group = {vars: new Map(), hosts: new Set(), children: new Set()}
      this.groups.set(name, group)
    }

    return group
  }

  /** Adds a host to a group; a host in several groups (or lines) is one host with all their variables. */
  addHost(groupName: string, name: string, line: number, vars: Vars): void {
    let host = this.hosts.get(name)
    if (!host) {
      host = {name, line, vars: new Map()}
      this.hosts.set(name, host)
    }

    for (const [key, value] of vars) host.vars.set(key, value)
    this.group(groupName, line).hosts.add(name)
  }

  targets(): SshTarget[] {
    const parents = this.parentsOfGroups()
    const depth = groupDepths(parents, this.file)
    return [...this.hosts.values()].map((host) => {
      // Ansible's order: shallow groups first, so a deeper group's variables win; the host's own last.
      const groups = [...this.groupsOf(host.name, parents)].toSorted((a, b) => depth(a) - depth(b) || a.localeCompare(b))
      const vars: Vars = new Map()
      for (const [key, value] of [...groups.flatMap((group) => [...(this.groups.get(group)?.vars ?? [])]), ...host.vars]) vars.set(ALIASES[key] ?? key, value)
      return this.target(host, vars)
    })
  }

  /** The groups a host is in, directly or as a member of their children, and `all`. */
  private groupsOf(host: string, parents: Map<string, Set<string>>): Set<string> {
    const groups = new Set<string>(['all'])
    const pending = [...this.groups].filter(([, group]) => group.hosts.has(host)).map(([name]) => name)
    while (pending.length > 0) {
      const group = pending.pop()!
      if (groups.has(group)) continue
      groups.add(group)
      pending.push(...(parents.get(group) ?? []))
    }

    return groups
  }

  private parentsOfGroups(): Map<string, Set<string>> {
    const parents = new Map<string, Set<string>>()
    for (const [name, group] of this.groups) {
      for (const child of group.children) parents.set(child, new Set([...(parents.get(child) ?? []), name]))
    }

    return parents
  }

  private target(host: InventoryHost, vars: Vars): SshTarget {
    const address = vars.get('ansible_host')
    const user = vars.get('ansible_user')
    const port = vars.get('ansible_port')
    return {
      host: address ? checkHost(address.value, this.where(address.line)) : checkHost(host.name, this.where(host.line)),
      ...(user ? {user: checkUser(user.value, this.where(user.line))} : {}),
      ...(port ? {port: checkPort(port.value, this.where(port.line))} : {}),
      ...(address ? {name: host.name} : {}),
    }
  }
}

/** How far each group is from `all` (the longest way down), as Ansible ranks group variables. */
function groupDepths(parents: Map<string, Set<string>>, file: string): (group: string) => number {
  const depths = new Map<string, number>([['all', 0]])
  const depth = (group: string, below: string[] = []): number => {
    if (below.includes(group)) throw new UsageError(`--inventory ${file}: groups contain each other: ${[...below, group].join(' > ')}`)
    if (!depths.has(group)) {
      const above = [...(parents.get(group) ?? [])].map((parent) => depth(parent, [...below, group]))
      depths.set(group, 1 + Math.max(0, ...above))
    }

    return depths.get(group)!
  }

  return depth
}

// ---------------------------------------------------------------------------------------------
// INI (and plain lists, which are INI without sections)

const SECTION = /^\[([^\]]+)\]\s*$/

function readIniInventory(text: string, inventory: Inventory): void {
  let section: {group: string; kind: 'children' | 'hosts' | 'vars'} = {group: 'ungrouped', kind: 'hosts'}
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = index + 1
    const content = raw.trim()
    if (content === '' || content.startsWith('#') || content.startsWith(';')) continue
    const header = SECTION.exec(content)
    if (header && !isIPv6(header[1])) {
      const [group, suffix, ...rest] = header[1].split(':')
      if ((suffix !== undefined && suffix !== 'children' && suffix !== 'vars') || rest.length > 0) {
        throw new UsageError(`${inventory.where(line)}: unknown section "[${header[1]}]"; expected [group], [group:vars] or [group:children]`)
      }

      section = {group, kind: suffix ?? 'hosts'}
      inventory.group(group, line)
    } else if (section.kind === 'vars') {
      const [key, value] = splitAssignment(content, inventory.where(line))
      inventory.group(section.group, line).vars.set(key, {value, line})
    } else if (section.kind === 'children') {
      inventory.group(content, line)
      inventory.group(section.group, line).children.add(content)
    } else {
      readIniHostLine(content, line, section.group, inventory)
    }
  }
}

/** `[USER@]HOST[:PORT] [key=value …] [# comment]`: the user and port act as host variables. */
function readIniHostLine(content: string, line: number, group: string, inventory: Inventory): void {
  const [pattern, ...assignments] = shellWords(content)
  const lineVars: Vars = new Map()
  for (const assignment of assignments) {
    const [key, value] = splitAssignment(assignment, inventory.where(line))
    lineVars.set(key, {value, line})
  }

  for (const spec of expandHostRange(pattern, inventory.where(line))) {
    const {host, user, port} = splitTargetSpec(spec, inventory.where(line))
    const vars: Vars = new Map()
    if (user !== undefined) vars.set('ansible_user', {value: user, line})
    if (port !== undefined) vars.set('ansible_port', {value: String(port), line})
    inventory.addHost(group, host, line, new Map([...vars, ...lineVars]))
  }
}

function splitAssignment(text: string, where: string): [string, string] {
  const equals = text.indexOf('=')
  const key = text.slice(0, equals).trim()
  if (equals === -1 || !/^\w+$/.test(key)) throw new UsageError(`${where}: expected key=value, found "${text}"`)
  return [key, unquote(text.slice(equals + 1).trim())]
}

/** Splits a host line into words, keeping quoted values whole and dropping a trailing comment. */
function shellWords(text: string): string[] {
  const words: string[] = []
  for (const match of text.matchAll(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g)) {
    if (match[0].startsWith('#')) break
    words.push(match[0])
  }

  return words
}

function unquote(text: string): string {
  return text.replaceAll(/"([^"]*)"|'([^']*)'/g, (_, double: string | undefined, single: string | undefined) => double ?? single ?? '')
}

/** The most hosts one inventory pattern may stand for: Ansible's ranges can name millions by mistake. */
const MAX_HOSTS_PER_PATTERN = 10_000

/**
 * `node[01:03]` → node01 node02 node03; `[a:c]` and a stride (`[0:10:5]`) work too, and several
 * ranges in one pattern multiply. A pattern of more than MAX_HOSTS_PER_PATTERN hosts is refused
 * before any is made.
 */
function expandHostRange(pattern: string, where: string): string[] {
  const ranges = [...pattern.matchAll(/\[([0-9]+|[a-z]):([0-9]+|[a-z])(?::([0-9]+))?\]/g)].map((range) => rangeItems(range, where))
  const count = ranges.reduce((total, items) => total * items.count, 1)
  if (count > MAX_HOSTS_PER_PATTERN) {
    throw new UsageError(`${where}: "${pattern}" stands for ${count.toLocaleString('en')} hosts; at most ${MAX_HOSTS_PER_PATTERN.toLocaleString('en')} per line`)
  }

  let names = ['']
  let rest = pattern
  for (const range of ranges) {
    const at = rest.indexOf(range.text)
    const literal = rest.slice(0, at)
    rest = rest.slice(at + range.text.length)
    names = names.flatMap((name) => range.items().map((item) => `${name}${literal}${item}`))
  }

  return names.map((name) => `${name}${rest}`)
}

/** One `[first:last(:stride)]` range: how many items, and the items. */
function rangeItems(range: RegExpMatchArray, where: string): {count: number; items: () => string[]; text: string} {
  const [text, first, last, stride = '1'] = range
  const numeric = /^\d+$/.test(first)
  const start = numeric ? Number(first) : first.codePointAt(0)!
  const end = numeric ? Number(last) : last.codePointAt(0)!
  const step = Number(stride)
  if (numeric !== /^\d+$/.test(last) || end < start || step < 1) throw new UsageError(`${where}: "${text}" is not a valid host range`)
  const count = Math.floor((end - start) / step) + 1
  const items = () => Array.from({length: count}, (_, index) => {
    const value = start + index * step
    return numeric ? String(value).padStart(first.length, '0') : String.fromCodePoint(value)
  })
  return {count, items, text}
}

// ---------------------------------------------------------------------------------------------
// YAML

function readYamlInventory(text: string, inventory: Inventory): void {
  const lines = new LineCounter()
  const document = parseDocument(text, {lineCounter: lines})
  const lineOf = (node: Node | null | undefined) => (node?.range ? lines.linePos(node.range[0]).line : 1)
  if (document.errors.length > 0) {
    const [error] = document.errors
    throw new UsageError(`${inventory.where(error.linePos?.[0].line ?? 1)}: not a YAML inventory: ${error.message.split('\n', 1)[0]}`)
  }

  const mapping = (node: unknown, what: string, line: number): YAMLMap | undefined => {
    if (node === null || node === undefined || (isScalar(node) && node.value === null)) return undefined
    if (!isMap(node)) throw new UsageError(`${inventory.where(line)}: ${what} must be a mapping`)
    return node
  }

  const scalar = (node: unknown, line: number): string => {
    if (!isScalar(node) || node.value === null || typeof node.value === 'object') throw new UsageError(`${inventory.where(line)}: expected a plain value`)
    return String(node.value)
  }

  const entries = (map: YAMLMap | undefined) =>
    (map?.items ?? []).map((pair) => ({key: scalar(pair.key, lineOf(pair.key as Node)), line: lineOf(pair.key as Node), value: pair.value}))

  // An empty value (`ansible_host:`) is no value; a list or mapping is kept as YAML text for the error message.
  const variables = (map: YAMLMap | undefined): Vars =>
    new Map(
      entries(map)
        .filter(({value}) => !(isScalar(value) && value.value === null))
        .map(({key, line, value}) => [key, {value: isScalar(value) ? String(value.value) : String(value).trim(), line}]),
    )

  const readGroup = (name: string, node: unknown, line: number): void => {
    const group = inventory.group(name, line)
    for (const {key, line: keyLine, value} of entries(mapping(node, `group "${name}"`, line))) {
      if (key === 'hosts') {
        for (const host of entries(mapping(value, `"hosts" of group "${name}"`, keyLine))) {
          const vars = variables(mapping(host.value, `host "${host.key}"`, host.line))
          for (const hostName of expandHostRange(host.key, inventory.where(host.line))) inventory.addHost(name, hostName, host.line, vars)
        }
      } else if (key === 'vars') {
        for (const [variable, located] of variables(mapping(value, `"vars" of group "${name}"`, keyLine))) group.vars.set(variable, located)
      } else if (key === 'children') {
        for (const child of entries(mapping(value, `"children" of group "${name}"`, keyLine))) {
          group.children.add(child.key)
          readGroup(child.key, child.value, child.line)
        }
      } else {
        throw new UsageError(`${inventory.where(keyLine)}: unexpected "${key}" in group "${name}"; expected hosts, vars or children`)
      }
    }
  }

  const root = mapping(document.contents, 'the inventory', 1)
  if (!root) throw new UsageError(`--inventory ${inventory.file}: the inventory lists no hosts`)
  for (const {key, line, value} of entries(root)) readGroup(key, value, line)
}
