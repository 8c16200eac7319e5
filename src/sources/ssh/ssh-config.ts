/**
 * The part of OpenSSH's client configuration (`~/.ssh/config`, ssh_config(5)) that decides where
 * a connection goes: `Host` blocks with HostName, User, Port, IdentityFile and ProxyJump.
 *
 * As in OpenSSH, the first value found for a keyword wins (IdentityFile adds up), keywords are
 * case-insensitive, and `Host` patterns take `*`, `?` and `!negation`. `Match` blocks and
 * `Include` are not supported: a `Match` block is skipped as a whole, an `Include` line ignored.
 */
import {homedir, userInfo} from 'node:os'

import {MAX_FILE_BYTES, readUserFileSync} from '../../util/user-file.js'
import {hostPatternMatcher} from './host-patterns.js'
import {checkHost, checkPort, checkUser, parseTargetSpec, type SshTarget} from './target.js'

interface Option {
  keyword: string
  value: string
  line: number
}

interface Block {
  /** Whether the block's Host patterns name a host; undefined before the first Host line (every host). */
  matches?: (host: string) => boolean
  options: Option[]
}

/** What the configuration says about one host; `where` points at the lines, for messages. */
interface HostSettings {
  hostName?: string
  user?: string
  port?: number
  identityFiles: string[]
  /** Jump hosts in order (ProxyJump a,b); empty when none. */
  proxyJump: SshTarget[]
}

const KEYWORDS = new Set(['hostname', 'user', 'port', 'identityfile', 'proxyjump'])

export class SshConfig {
  static readonly EMPTY = new SshConfig('', [])

  private constructor(
    readonly file: string,
    private readonly blocks: Block[],
  ) {}

  /** Reads a config file; a missing file is an empty configuration unless `required`. */
  static load(file: string, required: boolean): SshConfig {
    const text = readUserFileSync('--ssh-config', file, {maxBytes: MAX_FILE_BYTES.sshConfig, optional: !required})
    if (text === undefined) return SshConfig.EMPTY

    return new SshConfig(file, parseBlocks(text))
  }

  /** The settings for `alias` (the host as written on the command line or in the inventory). */
  settingsFor(alias: string): HostSettings {
    const found = new Map<string, Option>()
    const identityFiles: Option[] = []
    for (const block of this.blocks) {
      if (block.matches && !block.matches(alias)) continue
      for (const option of block.options) {
        if (option.keyword === 'identityfile') identityFiles.push(option)
        else if (!found.has(option.keyword)) found.set(option.keyword, option)
      }
    }

    const where = (option: Option) => `${this.file}:${option.line}`
    const hostName = found.get('hostname')
    const user = found.get('user')
    const port = found.get('port')
    const proxyJump = found.get('proxyjump')
    const settings: HostSettings = {
      ...(hostName ? {hostName: checkHost(expandTokens(hostName.value, {h: alias}), where(hostName))} : {}),
      ...(user ? {user: checkUser(user.value, where(user))} : {}),
      ...(port ? {port: checkPort(port.value, where(port))} : {}),
      identityFiles: [],
      proxyJump: !proxyJump || proxyJump.value.toLowerCase() === 'none' ? [] : parseJumpList(proxyJump.value, where(proxyJump)),
    }
    const remoteUser = settings.user ?? userInfo().username
    settings.identityFiles = identityFiles.map((option) => expandPath(option.value, {h: settings.hostName ?? alias, r: remoteUser}))
    return settings
  }
}

/** `[USER@]HOST[:PORT]` hops separated by commas, as `ssh -J` and ProxyJump take them. */
export function parseJumpList(value: string, where: string): SshTarget[] {
  return value.split(',').map((hop) => parseTargetSpec(hop.trim(), where))
}

function parseBlocks(text: string): Block[] {
  const blocks: Block[] = [{options: []}]
  let skipping = false
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const match = /^\s*([A-Za-z]+)(?:\s*=\s*|\s+)(.*)$/.exec(raw)
    if (!match || raw.trimStart().startsWith('#')) continue
    const keyword = match[1].toLowerCase()
    const value = unquote(match[2].trimEnd())
    if (keyword === 'host') {
      blocks.push({matches: hostPatternMatcher(value.split(/\s+/).filter(Boolean)), options: []})
      skipping = false
    } else if (keyword === 'match') {
      skipping = true
    } else if (!skipping && KEYWORDS.has(keyword)) {
      blocks.at(-1)!.options.push({keyword, value, line: index + 1})
    }
  }

  return blocks
}

function unquote(value: string): string {
  return value.replace(/^"(.*)"$/, '$1')
}

/** ssh_config(5) TOKENS: %h (remote host), %r (remote user), %d (home), %u (local user), %%. */
function expandTokens(value: string, tokens: Record<string, string>): string {
  const all: Record<string, string> = {d: homedir(), u: userInfo().username, '%': '%', ...tokens}
  return value.replaceAll(/%(.)/g, (text, token: string) => all[token] ?? text)
}

function expandPath(value: string, tokens: Record<string, string>): string {
  return expandTokens(value.replace(/^~(?=\/|$)/, homedir()), tokens)
}
