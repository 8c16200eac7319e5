/**
 * How kpx-check authenticates: private keys and ssh-agent, never passwords. Keys are tried in
 * this order: `--identity` files, then the host's IdentityFile lines from ~/.ssh/config, then
 * the agent's keys, then (only when neither flag nor config names a key) OpenSSH's default key
 * files. Explicit keys go first so a full agent cannot use up the server's MaxAuthTries before
 * the right key is offered.
 *
 * An encrypted key is opened with the passphrase in $KPX_SSH_PASSPHRASE, never one from a flag
 * (flags show up in process lists and shell history).
 */
import {homedir} from 'node:os'
import {join} from 'node:path'
import ssh2, {type AnyAuthMethod, type ParsedKey} from 'ssh2'

import {UsageError} from '../../util/errors.js'
import {MAX_FILE_BYTES, readRegularFile, RefusedFileError} from '../../util/user-file.js'
import {describeKey} from './known-hosts.js'
import {PASSPHRASE_ENV} from './options.js'


const DEFAULT_KEY_FILES = ['id_ed25519', 'id_ecdsa', 'id_rsa']

type LoadedKey = {ok: true; key: ParsedKey; label: string} | {ok: false; problem: string}

export interface AuthPlan {
  methods: AnyAuthMethod[]
  /** The methods in words, for the message when the server accepts none of them. */
  tried: string
}

export class Credentials {
  private readonly keyFiles = new Map<string, LoadedKey | undefined>()
  private readonly explicit: string[]

  /** Loads the `--identity` files now: a key that cannot be used is a usage error (exit 2). */
  constructor(
    identityFiles: string[],
    private readonly agentSocket: string | undefined,
    private readonly passphrase: string | undefined,
  ) {
    for (const file of identityFiles) {
      const loaded = this.load(file)
      if (!loaded) throw new UsageError(`--identity ${file}: no such file`)
      if (!loaded.ok) throw new UsageError(`--identity ${file}: ${loaded.problem}`)
    }

    this.explicit = identityFiles
  }

  /** What to try for `user`, given the host's IdentityFile lines from ~/.ssh/config. */
  planFor(user: string, configuredKeyFiles: string[]): AuthPlan {
    const fallback = this.explicit.length === 0 && configuredKeyFiles.length === 0
    const keyFiles = [...new Set([...this.explicit, ...configuredKeyFiles])]
    const methods: AnyAuthMethod[] = []
    const tried: string[] = []
    const addKeys = (files: string[]) => {
      for (const file of files) {
        const loaded = this.load(file)
        if (loaded?.ok) {
          methods.push({type: 'publickey', username: user, key: loaded.key})
          tried.push(loaded.label)
        } else if (loaded) {
          tried.push(`(skipped ${file}: ${loaded.problem})`)
        }
      }
    }

    addKeys(keyFiles)
    if (this.agentSocket) {
      methods.push({type: 'agent', username: user, agent: this.agentSocket})
      tried.push('the keys in ssh-agent')
    }

    if (fallback) addKeys(DEFAULT_KEY_FILES.map((name) => join(homedir(), '.ssh', name)))
    return {methods, tried: tried.join(', ')}
  }

  /** Reads and opens a key file once; undefined when the file does not exist. */
  private load(file: string): LoadedKey | undefined {
    if (!this.keyFiles.has(file)) this.keyFiles.set(file, readKey(file, this.passphrase))
    return this.keyFiles.get(file)
  }
}

function readKey(file: string, passphrase: string | undefined): LoadedKey | undefined {
  let data: Buffer
  try {
    data = readRegularFile(file, MAX_FILE_BYTES.identity)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (error instanceof RefusedFileError) return {ok: false, problem: error.message}
    return code === 'ENOENT' ? undefined : {ok: false, problem: `cannot read it (${code ?? (error as Error).message})`}
  }

  const parsed = ssh2.utils.parseKey(data, passphrase)
  const key = Array.isArray(parsed) ? parsed[0] : parsed
  if (key instanceof Error) {
    if (/no passphrase given/i.test(key.message)) return {ok: false, problem: `the key is encrypted; put its passphrase in $${PASSPHRASE_ENV}`}
    if (/passphrase/i.test(key.message)) return {ok: false, problem: `cannot open the key with the passphrase in $${PASSPHRASE_ENV}`}
    return {ok: false, problem: `not a private key (${key.message})`}
  }

  if (!key.isPrivateKey()) return {ok: false, problem: 'a public key; pass the private key file'}
  return {ok: true, key, label: `key ${file} (${describeKey(key.getPublicSSH())})`}
}
