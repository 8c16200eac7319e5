/**
 * The SSH flags, shared by every command that probes nodes over SSH (`node --ssh` and
 * `cluster --node-probe ssh`), and how they become SshProbeOptions. Defaults follow the
 * OpenSSH client's: ~/.ssh/config, ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts, $SSH_AUTH_SOCK.
 * The flags carry no oclif defaults, so a command can tell which ones were given.
 */
import * as Flags from '@oclif/core/flags'
import {existsSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'

import type {NodeProbeOptions} from '../services/cluster-node-probe.js'
import {checkHostTemplate, DEFAULT_HOST_TEMPLATE} from '../sources/ssh/host-template.js'
import {readInventory} from '../sources/ssh/inventory.js'
import {DEFAULT_CONCURRENCY, PASSPHRASE_ENV, type SshProbeOptions} from '../sources/ssh/options.js'
import {parseJumpList} from '../sources/ssh/ssh-config.js'
import {checkUser, parseTargetSpec, type SshTarget} from '../sources/ssh/target.js'
import {UsageError} from '../util/errors.js'
import {NODE_PROBES, SSH} from './flag-groups.js'

export const sshFlags = {
  identity: Flags.string({
    helpGroup: SSH,
    description: `Private key for the SSH login (repeatable), tried before ~/.ssh/config's and ssh-agent's; an encrypted key's passphrase is read from $${PASSPHRASE_ENV}.`,
    multiple: true,
    helpValue: 'FILE',
  }),
  jump: Flags.string({
    helpGroup: SSH,
    description: 'Reach the nodes through this jump host (bastion); several hops separated by commas, as with ssh -J.',
    helpValue: '[USER@]HOST[:PORT]',
  }),
  'ssh-config': Flags.string({
    helpGroup: SSH,
    description: 'OpenSSH client configuration to honour (Host, HostName, User, Port, IdentityFile, ProxyJump). Default: ~/.ssh/config; "none" for none.',
    helpValue: 'FILE',
  }),
  'known-hosts': Flags.string({
    helpGroup: SSH,
    description: 'known_hosts file to check host keys against. Default: ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts.',
    helpValue: 'FILE',
  }),
  'host-key-policy': Flags.string({
    helpGroup: SSH,
    description: 'strict (default): refuse a host whose key is not in known_hosts. accept-new: accept and record a key never seen before. A changed key is always refused.',
    options: ['strict', 'accept-new'],
  }),
  sudo: Flags.boolean({helpGroup: SSH, description: 'Run the collector with sudo -n. If sudo wants a password, the collector runs without it and root-only facts are unknown.'}),
  concurrency: Flags.integer({helpGroup: NODE_PROBES, description: `Nodes probed at once, over SSH or by exec (default ${DEFAULT_CONCURRENCY}).`, min: 1, max: 1000}),
}

interface SshFlagValues {
  identity?: string[]
  jump?: string
  'ssh-config'?: string
  'known-hosts'?: string
  'host-key-policy'?: string
  sudo?: boolean
  concurrency?: number
}

/** The SSH flags that were given, as `--name`, to refuse them when no node is probed over SSH. */
function givenSshFlags(flags: SshFlagValues): string[] {
  return Object.keys(sshFlags)
    .filter((name) => flags[name as keyof SshFlagValues] !== undefined && flags[name as keyof SshFlagValues] !== false)
    .map((name) => `--${name}`)
}

/** Targets from `--ssh [USER@]HOST[:PORT]` (repeatable) and `--inventory FILE` (repeatable), in that order. */
function sshTargets(specs: string[], inventories: string[]): SshTarget[] {
  return [...specs.map((spec) => parseTargetSpec(spec, `--ssh ${spec}`)), ...inventories.flatMap((file) => readInventory(file))]
}

function sshProbeOptions(flags: SshFlagValues, timeoutSeconds: number, env: NodeJS.ProcessEnv = process.env): SshProbeOptions {
  const sshDir = join(homedir(), '.ssh')
  const policy = flags['host-key-policy'] === 'accept-new' ? 'accept-new' : 'strict'
  const knownHosts = flags['known-hosts']
  if (knownHosts && policy === 'strict' && !existsSync(knownHosts)) {
    throw new UsageError(`--known-hosts ${knownHosts}: no such file`, ['With --host-key-policy strict every host would be refused; fill it with ssh-keyscan, or use --host-key-policy accept-new.'])
  }

  // Loaded with the probe, after the cluster is read: a key file that is not there is said now.
  for (const file of flags.identity ?? []) if (!existsSync(file)) throw new UsageError(`--identity ${file}: no such file`)
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

/** `node --ssh/--inventory`: the targets and how to probe them; none (this machine, or bundles) without targets. */
export function nodeSshProbe(flags: SshFlagValues & {inventory?: string[]; ssh?: string[]; timeout: number}): undefined | {probe: SshProbeOptions; targets: SshTarget[]} {
  const targets = sshTargets(flags.ssh ?? [], flags.inventory ?? [])
  const unused = givenSshFlags(flags)
  if (targets.length === 0 && unused.length > 0) throw new UsageError(`${unused.join(', ')} only apply with --ssh or --inventory`)
  return targets.length > 0 ? {targets, probe: sshProbeOptions(flags, flags.timeout)} : undefined
}

interface ClusterProbeFlagValues extends SshFlagValues {
  'node-probe'?: string
  'probe-namespace'?: string
  'ssh-user'?: string
  'ssh-host-template'?: string
  inventory?: string[]
  timeout?: number
}

/** Seconds each node may take unless --timeout says otherwise, over SSH or by exec. */
const DEFAULT_NODE_TIMEOUT = 60

/** The probes that make pods. */
const POD_PROBES = ['pod', 'exec,pod'] as const

/** Whether a --node-probe method makes probe pods in the cluster (which a signal must then delete). */
export function makesPods(method: string | undefined): method is (typeof POD_PROBES)[number] {
  return (POD_PROBES as readonly string[]).includes(method ?? '')
}

/** A Kubernetes namespace name: an RFC 1123 label. */
const NAMESPACE_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/

/** --probe-namespace, checked: only with a probe that makes pods, and a namespace name. */
export function probeNamespace(namespace: string | undefined, method: string | undefined): string | undefined {
  if (namespace === undefined) return undefined
  if (!makesPods(method)) throw new UsageError('--probe-namespace only applies with --node-probe pod or exec,pod')
  if (!NAMESPACE_NAME.test(namespace)) {
    throw new UsageError(`--probe-namespace ${namespace}: not a namespace name`, ['A namespace name is at most 63 lower-case letters, digits and dashes, starting and ending with a letter or digit.'])
  }

  return namespace
}

/** `cluster --node-probe ssh|exec|pod|exec,pod`: how to reach the Nodes; the probe's flags alone, or SSH's with another probe, are a mistake. */
export function clusterNodeProbe(flags: ClusterProbeFlagValues): NodeProbeOptions | undefined {
  const given = (names: ReadonlyArray<keyof ClusterProbeFlagValues>) => names.filter((name) => flags[name] !== undefined).map((name) => `--${name}`)
  const method = flags['node-probe']
  const shared = given(['concurrency', 'timeout'])
  const sshOnly = [...givenSshFlags(flags).filter((flag) => !shared.includes(flag)), ...given(['ssh-user', 'ssh-host-template', 'inventory'])]
  const namespace = probeNamespace(flags['probe-namespace'], method)
  if (method === undefined && sshOnly.length > 0) throw new UsageError(`${[...sshOnly, ...shared].join(', ')} only apply with --node-probe ssh`)
  if (method === undefined && shared.length > 0) throw new UsageError(`${shared.join(', ')} only apply with --node-probe ssh, exec or pod`)
  if (method === 'exec' || makesPods(method)) {
    if (sshOnly.length > 0) throw new UsageError(`${sshOnly.join(', ')} only apply with --node-probe ssh`, [`--node-probe ${method} reaches the nodes through the API server, with the kubeconfig's credentials.`])
    const common = {concurrency: flags.concurrency ?? DEFAULT_CONCURRENCY, timeoutSeconds: flags.timeout ?? DEFAULT_NODE_TIMEOUT}
    if (method === 'exec') return {method, ...common}
    return {method, ...common, ...(namespace === undefined ? {} : {namespace})}
  }

  if (method !== 'ssh') return undefined
  return {
    method: 'ssh',
    probe: sshProbeOptions(flags, flags.timeout ?? DEFAULT_NODE_TIMEOUT),
    ...(flags['ssh-user'] === undefined ? {} : {user: checkUser(flags['ssh-user'], `--ssh-user ${flags['ssh-user']}`)}),
    hostTemplate: checkHostTemplate(flags['ssh-host-template'] ?? DEFAULT_HOST_TEMPLATE),
    inventory: (flags.inventory ?? []).flatMap((file) => readInventory(file)),
  }
}
