/**
 * The SSH flags, shared by every command that probes nodes over SSH (`node --ssh` and
 * `cluster --node-probe ssh`), and how they become SshProbeOptions. Defaults follow the
 * OpenSSH client's: ~/.ssh/config, ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts, $SSH_AUTH_SOCK.
 * The flags carry no oclif defaults, so a command can tell which ones were given.
 */
import {Flags} from '@oclif/core'
import {existsSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'

import {UsageError} from '../util/errors.js'
import type {SshProbeOptions} from '../sources/node/ssh/fleet.js'
import {readInventory} from '../sources/node/ssh/inventory.js'
import {parseJumpList} from '../sources/node/ssh/ssh-config.js'

/** The environment variable an encrypted key's passphrase comes from (never a flag: flags show in process lists). */
export const PASSPHRASE_ENV = 'KPX_SSH_PASSPHRASE'

/** Nodes probed at once over SSH unless --concurrency says otherwise. */
export const DEFAULT_CONCURRENCY = 32
import {parseTargetSpec, type SshTarget} from '../sources/node/ssh/target.js'

export const sshFlags = {
  identity: Flags.string({
    description: `Private key for the SSH login (repeatable), tried before ~/.ssh/config's and ssh-agent's; an encrypted key's passphrase is read from $${PASSPHRASE_ENV}.`,
    multiple: true,
    helpValue: 'FILE',
  }),
  jump: Flags.string({
    description: 'Reach the nodes through this jump host (bastion); several hops separated by commas, as with ssh -J.',
    helpValue: '[USER@]HOST[:PORT]',
  }),
  'ssh-config': Flags.string({
    description: 'OpenSSH client configuration to honour (Host, HostName, User, Port, IdentityFile, ProxyJump). Default: ~/.ssh/config; "none" for none.',
    helpValue: 'FILE',
  }),
  'known-hosts': Flags.string({
    description: 'known_hosts file to check host keys against. Default: ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts.',
    helpValue: 'FILE',
  }),
  'host-key-policy': Flags.string({
    description: 'strict (default): refuse a host whose key is not in known_hosts. accept-new: accept and record a key never seen before. A changed key is always refused.',
    options: ['strict', 'accept-new'],
  }),
  sudo: Flags.boolean({description: 'Run the collector with sudo -n. If sudo wants a password, the collector runs without it and root-only facts are unknown.'}),
  concurrency: Flags.integer({description: `Nodes probed at once over SSH (default ${DEFAULT_CONCURRENCY}).`, min: 1, max: 1000}),
}

export interface SshFlagValues {
  identity?: string[]
  jump?: string
  'ssh-config'?: string
  'known-hosts'?: string
  'host-key-policy'?: string
  sudo?: boolean
  concurrency?: number
}

/** The SSH flags that were given, as `--name`, to refuse them when no node is probed over SSH. */
export function givenSshFlags(flags: SshFlagValues): string[] {
  return Object.keys(sshFlags)
    .filter((name) => flags[name as keyof SshFlagValues] !== undefined && flags[name as keyof SshFlagValues] !== false)
    .map((name) => `--${name}`)
}

/** Targets from `--ssh [USER@]HOST[:PORT]` (repeatable) and `--inventory FILE` (repeatable), in that order. */
export function sshTargets(specs: string[], inventories: string[]): SshTarget[] {
  return [...specs.map((spec) => parseTargetSpec(spec, `--ssh ${spec}`)), ...inventories.flatMap((file) => readInventory(file))]
}

export function sshProbeOptions(flags: SshFlagValues, timeoutSeconds: number, env: NodeJS.ProcessEnv = process.env): SshProbeOptions {
  const sshDir = join(homedir(), '.ssh')
  const policy = flags['host-key-policy'] === 'accept-new' ? 'accept-new' : 'strict'
  const knownHosts = flags['known-hosts']
  if (knownHosts && policy === 'strict' && !existsSync(knownHosts)) {
    throw new UsageError(`--known-hosts ${knownHosts}: no such file`, ['With --host-key-policy strict every host would be refused; fill it with ssh-keyscan, or use --host-key-policy accept-new.'])
  }

  const configFlag = flags['ssh-config']
  const defaultConfig = join(sshDir, 'config')
  const sshConfigFile = configFlag === 'none' ? undefined : (configFlag ?? (existsSync(defaultConfig) ? defaultConfig : undefined))
  return {
    identityFiles: flags.identity ?? [],
    ...(env[PASSPHRASE_ENV] ? {passphrase: env[PASSPHRASE_ENV]} : {}),
    ...(env.SSH_AUTH_SOCK ? {agentSocket: env.SSH_AUTH_SOCK} : {}),
    ...(sshConfigFile ? {sshConfigFile} : {}),
    knownHostsFiles: knownHosts ? [knownHosts] : [join(sshDir, 'known_hosts'), '/etc/ssh/ssh_known_hosts'],
    hostKeyPolicy: policy,
    jump: flags.jump ? parseJumpList(flags.jump, `--jump ${flags.jump}`) : [],
    sudo: flags.sudo ?? false,
    concurrency: flags.concurrency ?? DEFAULT_CONCURRENCY,
    timeoutSeconds,
  }
}
