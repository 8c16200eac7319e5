/**
 * One SSH connection to one node, bounded by one deadline that covers everything from the TCP
 * connect to the end of reading what the last command printed. Whatever goes wrong (the deadline, a
 * socket error, the server hanging up, a refused host key) ends the session with one named
 * `SshFailure`, and every step still waiting on it fails with that same reason.
 */
import type {Duplex} from 'node:stream'
import ssh2, {type AnyAuthMethod, type Client as SshClient} from 'ssh2'

import type {ProbeFailureClass} from '../probe.js'
import {describeKey, type KnownHosts} from './known-hosts.js'
import type {SshEndpoint} from './target.js'

const {Client} = ssh2

/** The short class that leads a failed node's reason, so a fleet's failures can be told apart at a glance. */
type FailureKind = Extract<ProbeFailureClass, 'auth' | 'collector' | 'dns' | 'dropped' | 'host-key' | 'network' | 'protocol' | 'refused' | 'timeout'>

export class SshFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly detail: string,
  ) {
    super(`${kind}: ${detail}`)
    this.name = 'SshFailure'
  }
}

export type HostKeyPolicy = 'accept-new' | 'strict'

export interface HostKeyRules {
  knownHosts: KnownHosts
  policy: HostKeyPolicy
  /** The files known_hosts was read from, for messages. */
  files: string[]
}

export interface ConnectRequest {
  endpoint: SshEndpoint
  auth: AnyAuthMethod[]
  /** What `auth` holds, in words (keys with fingerprints, the agent), for the auth failure message. */
  authTried: string
  hostKeys: HostKeyRules
  /** A stream through a jump host, instead of a TCP connection. */
  sock?: Duplex
}

export interface CommandResult {
  exitCode: null | number
  signal?: string
  stdout: Buffer
  stderr: string
}

/**
 * A collector prints a few hundred kilobytes at most; far more means something else is talking. The
 * cap also bounds the time its output takes to read, which no deadline can interrupt.
 */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024
const STDERR_TAIL_BYTES = 4096

type ErrorWithDetails = Error & {code?: string; level?: string}

export class SshSession {
  private readonly client: SshClient = new Client()
  private phase = 'while connecting'
  private authTried = ''
  private readonly failed: Promise<never>
  private fail!: (failure: SshFailure) => void
  private readonly deadline: NodeJS.Timeout
  private readonly deadlineAt: number
  private ready = false

  constructor(private readonly timeoutSeconds: number) {
    this.failed = new Promise<never>((_, reject) => {
      this.fail = (failure) => {
        reject(failure)
        this.close()
      }
    })
    // Nobody may be waiting when the failure comes; the next step sees it.
    this.failed.catch(() => {})
    this.deadlineAt = Date.now() + timeoutSeconds * 1000
    this.deadline = setTimeout(() => this.fail(this.timedOut()), timeoutSeconds * 1000)
    this.client.on('error', (error: ErrorWithDetails) => {
      // ssh2 reports an unusable agent and goes on with the next method; the auth message says what was tried.
      if (error.level !== 'agent') this.fail(this.classify(error))
    })
    this.client.on('close', () => this.fail(new SshFailure('dropped', `the connection closed ${this.phase}`)))
    this.client.on('connect', () => (this.phase = 'during the SSH handshake'))
    this.client.on('handshake', () => (this.phase = 'while authenticating'))
  }

  /** Waits for `step`, unless the session fails first; `phase` ("while …") names the step in a timeout. */
  async during<T>(phase: string, step: Promise<T>): Promise<T> {
    this.phase = phase
    return Promise.race([step, this.failed])
  }

  /**
   * Runs `work` on what the session brought (reading the collector's output) within the deadline.
   * Synchronous work cannot be interrupted: a result that is ready only after the deadline is
   * refused, as a timeout, so the node is never shown as probed after its time ran out.
   */
  within<T>(phase: string, work: () => T): T {
    this.phase = phase
    const result = work()
    if (Date.now() >= this.deadlineAt) throw this.timedOut()
    return result
  }

  connect(request: ConnectRequest): Promise<void> {
    const {endpoint} = request
    const connected = new Promise<void>((resolve) => {
      this.client.once('ready', () => {
        this.ready = true
        resolve()
      })
    })
    this.authTried = request.authTried
    this.client.connect({
      host: endpoint.host,
      port: endpoint.port,
      username: endpoint.user,
      ...(request.sock ? {sock: request.sock} : {}),
      // The session's own deadline bounds the handshake.
      readyTimeout: 0,
      algorithms: {serverHostKey: request.hostKeys.knownHosts.algorithmsFor(endpoint.host, endpoint.port)},
      hostVerifier: (key: Buffer) => this.verifyHostKey(endpoint, key, request.hostKeys),
      authHandler: request.auth,
    })
    return this.during(request.sock ? 'while connecting through the jump host' : 'while connecting', connected)
  }

  /** Runs `command` with `stdin` as its standard input, and collects what it prints. */
  run(command: string, stdin: Buffer, phase: string): Promise<CommandResult> {
    const finished = new Promise<CommandResult>((resolve, reject) => {
      this.client.exec(command, (error, channel) => {
        if (error) return reject(new SshFailure('collector', `the server would not run a command: ${error.message}`))
        const stdout: Buffer[] = []
        let stdoutBytes = 0
        let stderr = ''
        let exit: {exitCode: null | number; signal?: string} | undefined
        channel.on('data', (chunk: Buffer) => {
          stdoutBytes += chunk.length
          if (stdoutBytes <= MAX_OUTPUT_BYTES) stdout.push(chunk)
          else reject(new SshFailure('collector', `printed more than ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB`))
        })
        channel.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES)))
        channel.on('exit', (exitCode: null | number, signal?: string) => (exit = {exitCode, ...(signal ? {signal} : {})}))
        // A dropped connection fails the session before its channels close; this is a server that said nothing.
        channel.on('close', () => {
          if (exit) resolve({...exit, stdout: Buffer.concat(stdout), stderr})
          else reject(new SshFailure('collector', 'the command ended without an exit status'))
        })
        channel.end(stdin)
      })
    })
    return this.during(phase, finished)
  }

  /** Opens a tunnel from the server to `host:port`, for connections through a jump host. */
  tunnel(host: string, port: number): Promise<Duplex> {
    const opened = new Promise<Duplex>((resolve, reject) => {
      this.client.forwardOut('127.0.0.1', 0, host, port, (error, stream) => {
        if (error) reject(tunnelFailure(error.message, `${host}:${port}`))
        else resolve(stream)
      })
    })
    return this.during(`while opening a tunnel to ${host}:${port}`, opened)
  }

  /** Ends the deadline, for a connection that outlives one node's probe (a shared jump host). */
  keepOpen(): void {
    clearTimeout(this.deadline)
  }

  close(): void {
    clearTimeout(this.deadline)
    this.client.destroy()
  }

  private timedOut(): SshFailure {
    return new SshFailure('timeout', `gave up after ${this.timeoutSeconds}s ${this.phase}`)
  }

  private verifyHostKey(endpoint: SshEndpoint, key: Buffer, rules: HostKeyRules): boolean {
    const check = rules.knownHosts.check(endpoint.host, endpoint.port, key)
    const offered = describeKey(key)
    if (check.status === 'known') return true
    if (check.status === 'unknown' && rules.policy === 'accept-new') {
      try {
        rules.knownHosts.add(endpoint.host, endpoint.port, key)
        return true
      } catch (error) {
        this.fail(new SshFailure('host-key', `cannot record the new key (${offered}) in ${rules.knownHosts.file}: ${(error as Error).message}`))
        return false
      }
    }

    const files = rules.files.join(', ')
    let detail: string
    if (check.status === 'revoked') {
      detail = `the server offered ${offered}, a key marked @revoked in ${check.where}`
    } else if (check.status === 'changed') {
      detail = `the server offered ${offered}, but known_hosts expects ${check.expected.join(' or ')}: the host was reinstalled, or someone is in between; check, then fix known_hosts`
    } else if (check.certAuthority) {
      detail = `only a @cert-authority line (${check.certAuthority}) vouches for this host, and host certificates are not supported; add the host's own key (offered ${offered})`
    } else {
      detail = `not in ${files} (offered ${offered}); check the fingerprint and add the key (ssh-keyscan), or use --host-key-policy accept-new`
    }

    this.fail(new SshFailure('host-key', detail))
    return false
  }

  private classify(error: ErrorWithDetails): SshFailure {
    switch (error.code) {
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
      case 'EAI_NONAME': {
        return new SshFailure('dns', `cannot resolve the host name (${error.code})`)
      }
      case 'ECONNREFUSED': {
        return new SshFailure('refused', 'nothing listens on the port (connection refused)')
      }
      case 'ETIMEDOUT': {
        return new SshFailure('timeout', `the TCP connection timed out ${this.phase}`)
      }
      case 'ECONNRESET':
      case 'EPIPE': {
        return new SshFailure('dropped', `the connection was reset ${this.phase}`)
      }
      default:
    }

    if (error.level === 'client-authentication') {
      return new SshFailure('auth', this.authTried ? `the server accepted none of: ${this.authTried}` : 'no key to log in with: pass --identity, or use ssh-agent or IdentityFile in ~/.ssh/config')
    }

    if (error.code) return new SshFailure('network', `${error.message} ${this.phase}`)
    if (/before handshake/i.test(error.message)) return new SshFailure('dropped', 'the server closed the connection before the SSH handshake')
    if (!this.ready) return new SshFailure('protocol', `the SSH handshake failed: ${error.message}`)
    return new SshFailure('dropped', `${error.message} ${this.phase}`)
  }
}

/** Why a jump host could not open a tunnel, from the reason its SSH server gave (the caller names the jump host). */
function tunnelFailure(message: string, destination: string): SshFailure {
  if (/refused/i.test(message)) return new SshFailure('refused', `${destination} refused the connection`)
  if (/name or service|not known|resolve|nodename|no address/i.test(message)) return new SshFailure('dns', `cannot resolve ${destination}`)
  if (/timed out/i.test(message)) return new SshFailure('timeout', `${destination} did not answer`)
  return new SshFailure('network', `cannot reach ${destination}: ${message}`)
}
