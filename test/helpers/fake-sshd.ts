/**
 * An SSH server from ssh2 itself, for the faults a real sshd cannot easily show: a login that is
 * always refused, a command that prints garbage, a connection dropped halfway. It executes
 * nothing: each command is answered by the test's script, and recorded with its standard input.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import ssh2, {type Connection, type ServerChannel} from 'ssh2'

const {Server, utils} = ssh2

interface ExecCall {
  command: string
  stdin: string
}

interface FakeSshdOptions {
  /** Refuse every login (default: accept any key). */
  rejectLogins?: boolean
  /** Answers a command once its standard input has ended. Default: exit 127, as for an unknown command. */
  exec?: (call: ExecCall, channel: ServerChannel, connection: Connection) => void
}

export interface FakeSshd {
  port: number
  /** A known_hosts file with the server's key for [127.0.0.1]:port. */
  knownHosts: string
  /** A private key file to log in with (any key is accepted). */
  clientKey: string
  calls: ExecCall[]
  /** The most commands that ran at the same time. */
  peakConcurrentCommands: number
  close(): Promise<void>
}

/**
 * A fresh key pair in OpenSSH format. ssh2 1.17 writes about one ed25519 key in 256 that it cannot
 * read back (it strips a leading zero byte of the public key: mscdex/ssh2#1390), so those are drawn again.
 */
export function generateKeyPair(type: 'ecdsa' | 'ed25519' = 'ed25519'): {private: string; public: string} {
  for (;;) {
    const pair = utils.generateKeyPairSync(type, type === 'ecdsa' ? {bits: 256} : {})
    if (!(utils.parseKey(pair.private) instanceof Error) && !(utils.parseKey(pair.public) instanceof Error)) return pair
  }
}

export async function startFakeSshd(options: FakeSshdOptions = {}): Promise<FakeSshd> {
  const hostKey = generateKeyPair()
  const connections = new Set<Connection>()
  const state = {calls: [] as ExecCall[], running: 0, peak: 0}

  const server = new Server({hostKeys: [hostKey.private]}, (connection) => {
    connections.add(connection)
    connection.on('close', () => connections.delete(connection))
    connection.on('error', () => {})
    connection.on('authentication', (context) => (options.rejectLogins || context.method !== 'publickey' ? context.reject(['publickey']) : context.accept()))
    connection.on('ready', () => {
      connection.on('session', (acceptSession) => {
        acceptSession().on('exec', (acceptExec, _reject, info) => {
          const channel = acceptExec()
          state.running++
          state.peak = Math.max(state.peak, state.running)
          channel.on('close', () => state.running--)
          let stdin = ''
          channel.on('data', (chunk: Buffer) => (stdin += chunk.toString('utf8')))
          channel.on('end', () => {
            const call = {command: info.command, stdin}
            state.calls.push(call)
            if (options.exec) return options.exec(call, channel, connection)
            channel.stderr.write(`sh: 1: ${info.command}: not found\n`)
            channel.exit(127)
            channel.end()
          })
        })
      })
    })
  })

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as {port: number}
  const dir = mkdtempSync(join(tmpdir(), 'kpx-fake-sshd-'))
  const clientKey = join(dir, 'client_ed25519')
  writeFileSync(clientKey, generateKeyPair().private, {mode: 0o600})
  const knownHosts = join(dir, 'known_hosts')
  writeFileSync(knownHosts, `[127.0.0.1]:${port} ${hostKey.public}\n`)
  return {
    port,
    knownHosts,
    clientKey,
    calls: state.calls,
    get peakConcurrentCommands() {
      return state.peak
    },
    async close() {
      for (const connection of connections) connection.end()
      await new Promise((resolve) => server.close(resolve))
      rmSync(dir, {recursive: true, force: true})
    },
  }
}

/** Answers like a node that runs the collector and prints `bundle`. */
export function printBundle(bundle: string) {
  return (_call: ExecCall, channel: ServerChannel) => {
    channel.write(bundle)
    channel.exit(0)
    channel.end()
  }
}
