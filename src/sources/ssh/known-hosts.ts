/**
 * Host keys, checked the way OpenSSH checks them against known_hosts files (sshd(8)
 * "SSH_KNOWN_HOSTS FILE FORMAT"): plain names and comma lists with `*`/`?`/`!` patterns,
 * `[host]:port` for ports other than 22, hashed names (`|1|salt|hash`, HMAC-SHA1), and the
 * `@revoked` marker. `@cert-authority` lines are not supported: host certificates are not
 * accepted, and a host that only such a line vouches for is refused with that reason.
 */
import {createHash, createHmac} from 'node:crypto'
import {appendFileSync, mkdirSync} from 'node:fs'
import {dirname} from 'node:path'
import type {ServerHostKeyAlgorithm} from 'ssh2'

import {UsageError} from '../../util/errors.js'
import {MAX_FILE_BYTES, readRegularFile} from '../../util/user-file.js'
import {hostPatternMatcher} from './host-patterns.js'
import {DEFAULT_SSH_PORT} from './target.js'

interface KnownHostLine {
  marker?: 'cert-authority' | 'revoked'
  matches: (name: string) => boolean
  keyType: string
  key: Buffer
  where: string
}

type HostKeyCheck =
  | {status: 'known'}
  | {status: 'unknown'; certAuthority?: string}
  | {status: 'changed'; expected: string[]}
  | {status: 'revoked'; where: string}

/** Host key algorithms ssh2 can negotiate, strongest first; `ssh-rsa` (SHA-1) is left out, as OpenSSH does. */
const HOST_KEY_ALGORITHMS: ServerHostKeyAlgorithm[] = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256']

export class KnownHosts {
  private constructor(
    private readonly lines: KnownHostLine[],
    /** Where accept-new writes keys it learns. */
    readonly file: string,
  ) {}

  /** Reads the files that exist; `files[0]` is the one new keys are added to. */
  static load(files: string[]): KnownHosts {
    const lines: KnownHostLine[] = []
    for (const file of files) {
      let text: string
      try {
        text = readRegularFile(file, MAX_FILE_BYTES.knownHosts).toString('utf8')
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
        throw new UsageError(`known_hosts file ${file}: ${(error as Error).message}`, ['Name a known_hosts file with --known-hosts.'])
      }

      for (const [index, line] of text.split(/\r?\n/).entries()) {
        const parsed = parseLine(line, `${file}:${index + 1}`)
        if (parsed) lines.push(parsed)
      }
    }

    return new KnownHosts(lines, files[0])
  }

  check(host: string, port: number, key: Buffer): HostKeyCheck {
    const revoked = this.lines.find((line) => line.marker === 'revoked' && line.key.equals(key))
    if (revoked) return {status: 'revoked', where: revoked.where}
    const name = knownHostsName(host, port)
    const forHost = this.lines.filter((line) => line.matches(name))
    const plain = forHost.filter((line) => line.marker === undefined)
    if (plain.some((line) => line.key.equals(key))) return {status: 'known'}
    if (plain.length > 0) return {status: 'changed', expected: plain.map((line) => `${describeKey(line.key)} (${line.where})`)}
    const authority = forHost.find((line) => line.marker === 'cert-authority')
    return authority ? {status: 'unknown', certAuthority: authority.where} : {status: 'unknown'}
  }

  /**
   * The host key algorithms to offer, those of keys already known for the host first: a server
   * with several host keys then shows the one known_hosts can vouch for, as OpenSSH arranges.
   */
  algorithmsFor(host: string, port: number): ServerHostKeyAlgorithm[] {
    const name = knownHostsName(host, port)
    const known = new Set(this.lines.filter((line) => line.marker === undefined && line.matches(name)).map((line) => line.keyType))
    const isKnown = (algorithm: string) => known.has(algorithm.startsWith('rsa-sha2-') ? 'ssh-rsa' : algorithm)
    return [...HOST_KEY_ALGORITHMS.filter((algorithm) => isKnown(algorithm)), ...HOST_KEY_ALGORITHMS.filter((algorithm) => !isKnown(algorithm))]
  }

  /** Records a newly accepted key, in memory and at the end of the file (accept-new). */
  add(host: string, port: number, key: Buffer): void {
    const name = knownHostsName(host, port)
    const line = `${name} ${keyTypeOf(key)} ${key.toString('base64')}`
    mkdirSync(dirname(this.file), {recursive: true, mode: 0o700})
    appendFileSync(this.file, `${line}\n`, {mode: 0o600})
    this.lines.push(parseLine(line, this.file)!)
  }
}

/** How known_hosts names a host: `host` on port 22, else `[host]:port`. */
function knownHostsName(host: string, port: number): string {
  return port === DEFAULT_SSH_PORT ? host.toLowerCase() : `[${host.toLowerCase()}]:${port}`
}

function parseLine(text: string, where: string): KnownHostLine | undefined {
  const fields = text.trim().split(/\s+/)
  if (fields[0] === '' || fields[0].startsWith('#')) return undefined
  const marker = fields[0] === '@revoked' ? 'revoked' : (fields[0] === '@cert-authority' ? 'cert-authority' : undefined)
  if (fields[0].startsWith('@') && !marker) return undefined
  const [hosts, keyType, base64] = marker ? fields.slice(1) : fields
  if (!hosts || !keyType || !base64) return undefined
  const key = Buffer.from(base64, 'base64')
  // A line whose key does not say its own type is corrupt; OpenSSH skips such lines too.
  if (keyTypeOf(key) !== keyType) return undefined
  return {...(marker ? {marker} : {}), matches: hostMatcher(hosts), keyType, key, where}
}

function hostMatcher(hosts: string): (name: string) => boolean {
  const hashed = /^\|1\|([^|]+)\|([^|]+)$/.exec(hosts)
  if (hashed) {
    const salt = Buffer.from(hashed[1], 'base64')
    const hash = hashed[2]
    return (name) => createHmac('sha1', salt).update(name).digest('base64') === hash
  }

  return hostPatternMatcher(hosts.split(','))
}

/** The algorithm name at the start of an SSH public key blob (`ssh-ed25519`, …). */
export function keyTypeOf(key: Buffer): string {
  if (key.length < 4) return ''
  const length = key.readUInt32BE(0)
  return length <= key.length - 4 ? key.subarray(4, 4 + length).toString('latin1') : ''
}

/** The fingerprint as OpenSSH prints it: `SHA256:` and the unpadded base64 of the digest. */
export function fingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`
}

/** `ED25519 SHA256:…`, as `ssh-keygen -l` shows a key. */
/** How ssh-keygen -l names key types. */
const KEY_KINDS: Record<string, string> = {'ssh-ed25519': 'ED25519', 'ssh-rsa': 'RSA'}

export function describeKey(key: Buffer): string {
  const type = keyTypeOf(key)
  const kind = type.startsWith('ecdsa-') ? 'ECDSA' : (KEY_KINDS[type] ?? type)
  return `${kind} ${fingerprint(key)}`
}
