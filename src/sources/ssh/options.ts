/** How a fleet is probed over SSH: what the SSH flags become, and the progress a probe reports. */
import type {ProbeOptions} from '../probe.js'
import type {HostKeyPolicy} from './session.js'
import type {SshTarget} from './target.js'

/** The environment variable an encrypted key's passphrase comes from (never a flag: flags show in process lists). */
export const PASSPHRASE_ENV = 'KPX_SSH_PASSPHRASE'

/** Nodes probed at once over SSH unless --concurrency says otherwise. */
export const DEFAULT_CONCURRENCY = 32

export interface SshProbeOptions extends ProbeOptions {
  /** Private key files (`--identity`), tried before any other key. */
  identityFiles: string[]
  /** Opens encrypted keys; it comes from the environment ($KPX_SSH_PASSPHRASE), never a flag. */
  passphrase?: string
  /** ssh-agent's socket ($SSH_AUTH_SOCK). */
  agentSocket?: string
  /** OpenSSH client configuration to honour (~/.ssh/config); none when unset. */
  sshConfigFile?: string
  /** known_hosts files; the first one is where accept-new records new keys. */
  knownHostsFiles: string[]
  hostKeyPolicy: HostKeyPolicy
  /** Jump hosts for every target (`--jump`), overriding ProxyJump from the configuration. */
  jump: SshTarget[]
  /** Run the collector with `sudo -n`. */
  sudo: boolean
  /** Per node, from the TCP connect to the end of reading the collector's output (parsing the bundle included). */
  timeoutSeconds: number
}
