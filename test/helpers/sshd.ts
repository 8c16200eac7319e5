/**
 * A real OpenSSH server for tests: Debian's /usr/sbin/sshd on a free port of 127.0.0.1 (and of
 * 127.0.0.2…127.0.0.N for fleets, one sshd per 16 addresses), with host and client keys generated in a temporary folder. It
 * lets in only TEST_USER, a plain account with /bin/sh as its shell. It needs root (sshd's privilege
 * separation, useradd, sudoers), so `sshdUnavailable()` says why a test must skip elsewhere.
 *
 * TEST_USER is this process's own (node --test runs each test file in a process of its own, two at
 * a time, and work trees may run theirs side by side): created by the first startSshd, removed with
 * its home and sudoers drop-in when the last server this process started stops. No file shares it
 * with another, so none can remove it from under another's feet.
 */
import {type ChildProcess, execFileSync, spawn, spawnSync} from 'node:child_process'
import {appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

export const TEST_USER = `kpx-ssh-test-${process.pid}`
const SSHD = '/usr/sbin/sshd'
const SUDOERS_DROP_IN = `/etc/sudoers.d/${TEST_USER}`
const MAX_LISTEN_ADDRESSES = 16

export interface TestSshd {
  port: number
  /** 127.0.0.1, 127.0.0.2, … one per address the server listens on. */
  addresses: string[]
  dir: string
  /** A private key the server accepts for TEST_USER. */
  clientKey: string
  /** A known_hosts file with the server's key for every address. */
  knownHosts: string
  /** The public half of the server's host key, as a known_hosts line would hold it after the host names. */
  hostKeyLine: string
  stop(): Promise<void>
}

export function sshdUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root: starts sshd and creates the test account (run as root, as CI does)'
  if (!existsSync(SSHD)) return `needs ${SSHD}: apt-get install openssh-server openssh-client sudo (see .ci/run)`
  return undefined
}

/** Servers this process runs for TEST_USER: the account lives while there is one. */
let serversRunning = 0

/** Creates TEST_USER when missing, with a usable (not locked) account: sshd without PAM refuses locked ones. */
function ensureTestUser(): void {
  try {
    execFileSync('useradd', ['--create-home', '--shell', '/bin/sh', TEST_USER], {stdio: 'ignore'})
  } catch (error) {
    // 9: the account exists (left by an earlier process of the same id that was killed).
    if ((error as {status?: number}).status !== 9) throw error
  }

  execFileSync('usermod', ['--password', '*', TEST_USER])
}

/** Removes TEST_USER, its home and its sudoers drop-in; --force: a login sshd has not reaped yet must not keep it. */
function removeTestUser(): void {
  removeSudo()
  execFileSync('userdel', ['--force', '--remove', TEST_USER], {stdio: 'ignore'})
}

/** Lets TEST_USER run exactly `sh -s` as root, without a password or (`'password'`) with one. */
export function allowSudo(mode: 'nopasswd' | 'password'): void {
  const tag = mode === 'nopasswd' ? 'NOPASSWD: ' : ''
  writeFileSync(SUDOERS_DROP_IN, `${TEST_USER} ALL=(root) ${tag}/bin/sh -s, ${tag}/usr/bin/sh -s\n`, {mode: 0o440})
  execFileSync('visudo', ['-c', '-q', '-f', SUDOERS_DROP_IN])
}

export function removeSudo(): void {
  rmSync(SUDOERS_DROP_IN, {force: true})
}

/**
 * `enter`: a command prefix sshd runs under (`nsenter` into a node of its own, node-namespace.ts), so its sessions, and the
 * collector they run, are in that node; its ports and addresses are then that node's.
 */
export async function startSshd(options: {addresses?: number; enter?: string[]} = {}): Promise<TestSshd> {
  if (serversRunning === 0) ensureTestUser()
  serversRunning++
  // The folder holds authorized_keys, which sshd reads as TEST_USER.
  const dir = mkdtempSync(join(tmpdir(), 'kpx-sshd-'))
  chmodSync(dir, 0o755)
  const hostKey = join(dir, 'host_ed25519')
  const clientKey = join(dir, 'client_ed25519')
  for (const key of [hostKey, clientKey]) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'kpx-check test', '-f', key])
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${clientKey}.pub`), {mode: 0o644})

  const port = await freePort()
  const addresses = Array.from({length: options.addresses ?? 1}, (_, index) => `127.0.0.${index + 1}`)
  // Debian's sshd wants its privilege separation folder, which only the service unit creates.
  mkdirSync('/run/sshd', {recursive: true, mode: 0o755})
  // One sshd listens on at most 16 addresses (MAX_LISTEN_SOCKS): a fleet gets one sshd per 16, all alike.
  const servers: ChildProcess[] = []
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    await Promise.all(servers.map((server) => stopProcess(server)))
    rmSync(dir, {recursive: true, force: true})
    if (--serversRunning === 0) removeTestUser()
  }

  try {
    for (let first = 0; first < addresses.length; first += MAX_LISTEN_ADDRESSES) {
      const group = addresses.slice(first, first + MAX_LISTEN_ADDRESSES)
      const config = join(dir, `sshd_config.${first}`)
      writeFileSync(config, sshdConfig(dir, hostKey, port, group, `sshd.${first}.pid`))
      const [program, ...args] = [...(options.enter ?? []), SSHD, '-D', '-e', '-f', config]
      const server = spawn(program, args, {stdio: ['ignore', 'ignore', 'pipe']})
      servers.push(server)
      await listening(server, group.length)
    }
  } catch (error) {
    await stop()
    throw error
  }

  const hostKeyLine = readFileSync(`${hostKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')
  const knownHosts = join(dir, 'known_hosts')
  writeFileSync(knownHosts, addresses.map((address) => `[${address}]:${port} ${hostKeyLine}\n`).join(''))
  return {
    port,
    addresses,
    dir,
    clientKey,
    knownHosts,
    hostKeyLine,
    stop,
  }
}

/**
 * A new key the server accepts for TEST_USER only to run `command` (authorized_keys' `command=`),
 * whatever the client asks for: a node whose collector does what `command` does.
 */
export function forcedCommandKey(sshd: TestSshd, name: string, command: string): string {
  const key = join(sshd.dir, name)
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'kpx-check test', '-f', key])
  appendFileSync(join(sshd.dir, 'authorized_keys'), `command="${command}" ${readFileSync(`${key}.pub`, 'utf8')}`)
  return key
}

async function stopProcess(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return
  const exited = new Promise((resolve) => server.once('exit', resolve))
  server.kill('SIGTERM')
  await exited
}

function sshdConfig(dir: string, hostKey: string, port: number, addresses: string[], pidFile: string): string {
  const version = /OpenSSH_(\d+)\.(\d+)/.exec(spawnSync('ssh', ['-V'], {encoding: 'utf8'}).stderr)
  return [
    ...addresses.map((address) => `ListenAddress ${address}:${port}`),
    `HostKey ${hostKey}`,
    `PidFile ${join(dir, pidFile)}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    `AllowUsers ${TEST_USER}`,
    'UsePAM no',
    'StrictModes no',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PubkeyAuthentication yes',
    'PermitRootLogin no',
    'PrintMotd no',
    'AllowTcpForwarding yes',
    // The fleet tests and the benchmark open hundreds of connections at once.
    'MaxStartups 1000',
    'MaxSessions 100',
    'LoginGraceTime 60',
    // OpenSSH 9.8+ slows down addresses that fail to log in; the host-key tests do that on purpose.
    ...(version && Number(version[1]) * 100 + Number(version[2]) >= 908 ? ['PerSourcePenalties no'] : []),
    'LogLevel INFO',
    '',
  ].join('\n')
}

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const {port} = probe.address() as {port: number}
      probe.close(() => resolve(port))
    })
  })
}

/** Resolves once sshd says it listens on every address; rejects with its log when it exits first. */
function listening(server: ChildProcess, addresses: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = ''
    let seen = 0
    server.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      if (seen < addresses) log += chunk
      seen += chunk.match(/Server listening on/g)?.length ?? 0
      if (seen >= addresses) resolve()
    })
    server.once('exit', (code) => reject(new Error(`sshd exited ${code}:\n${log}`)))
  })
}
