/**
 * pods/exec for the test API server, as the API server and the node's kubelet answer it together (no
 * kubelet runs here): a WebSocket upgrade of GET /api/v1/namespaces/<ns>/pods/<pod>/exec?command=…,
 * with the channel protocols `v5.channel.k8s.io` and `v4.channel.k8s.io` (binary frames whose first
 * byte is the channel: 0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize; in v5 the frame [255, channel]
 * closes a channel, so a client can end stdin and keep reading). The command really runs, on this
 * machine, inside a stand-in for the pod's image: its program is looked up, and PATH set, in a folder
 * of links to the tools the upstream kube-proxy image has (the ones this machine lacks are simply not
 * there). It ends with a `Status` on the error channel, as the kubelet writes it: `Success`, or
 * `NonZeroExitCode` with the exit code as an `ExitCode` cause, or the runtime's InternalError for a
 * program the image lacks; then the server closes the WebSocket.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {accessSync, constants} from 'node:fs'
import {access, mkdtemp, rm, symlink} from 'node:fs/promises'
import type {IncomingMessage} from 'node:http'
import {constants as osConstants, tmpdir} from 'node:os'
import {basename, join} from 'node:path'
import type {Duplex} from 'node:stream'
import {type WebSocket, WebSocketServer} from 'ws'

/** The subprotocols served, most preferred first: v5 since Kubernetes 1.30, v4 before. */
const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const

export type ExecProtocol = (typeof EXEC_PROTOCOLS)[number]

/** Channel numbers of the remotecommand protocol. */
const CHANNEL = {stdin: 0, stdout: 1, stderr: 2, error: 3, close: 255} as const

/**
 * The upstream registry.k8s.io/kube-proxy image's tools (distroless-iptables, Debian bookworm): name in
 * the image → the program it is. kmod answers as lsmod, modprobe and modinfo; sh is dash.
 */
const KUBE_PROXY_IMAGE_TOOLS: Readonly<Record<string, string>> = {
  sh: 'dash',
  dash: 'dash',
  cat: 'cat',
  chmod: 'chmod',
  grep: 'grep',
  ln: 'ln',
  rm: 'rm',
  sleep: 'sleep',
  wc: 'wc',
  nft: 'nft',
  ipset: 'ipset',
  kmod: 'kmod',
  lsmod: 'kmod',
  modprobe: 'kmod',
  modinfo: 'kmod',
  ...Object.fromEntries(
    ['iptables', 'ip6tables'].flatMap((family) =>
      ['', '-legacy', '-nft'].flatMap((backend) => ['', '-save', '-restore'].map((verb) => `${family}${backend}${verb}`)).map((name) => [name, name]),
    ),
  ),
}

/** The shells of the image: a pod whose image has none (the `no-shell` fault) fails to exec them. */
const SHELLS = new Set(['sh', 'dash', 'bash', 'ash'])

const HOST_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin']

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

async function hostProgram(name: string): Promise<string | undefined> {
  for (const dir of HOST_DIRS) {
    const candidate = join(dir, name)
    if (await access(candidate, constants.X_OK).then(() => true, () => false)) return candidate
  }

  return undefined
}

/** A folder of links to this machine's programs, named as the kube-proxy image names them; removed by `remove`. */
export async function imageToolsFolder(tools: Readonly<Record<string, string>> = KUBE_PROXY_IMAGE_TOOLS): Promise<{dir: string; remove(): Promise<void>}> {
  const dir = await mkdtemp(join(tmpdir(), 'kpx-image-tools-'))
  for (const [name, program] of Object.entries(tools)) {
    const found = await hostProgram(program)
    if (found) await symlink(found, join(dir, name))
  }

  return {dir, remove: () => rm(dir, {recursive: true, force: true})}
}

/** A `Status` as the kubelet writes it on the error channel. */
type ExecStatus = Record<string, unknown>

const SUCCESS: ExecStatus = {metadata: {}, status: 'Success'}

function exitStatus(command: readonly string[], code: number): ExecStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${code}`,
    reason: 'NonZeroExitCode',
    details: {causes: [{reason: 'ExitCode', message: String(code)}]},
  }
}

/** What containerd and runc answer when the image has no such program: an InternalError, not an exit code. */
function runtimeStatus(program: string): ExecStatus {
  const why = program.includes('/') ? `stat ${program}: no such file or directory` : 'executable file not found in $PATH'
  const error = `error executing command in container: failed to exec in container: failed to start exec "0f3c6b1e9a2d": OCI runtime exec failed: exec failed: unable to start container process: exec: "${program}": ${why}: unknown`
  return {metadata: {}, status: 'Failure', message: `Internal error occurred: ${error}`, reason: 'InternalError', details: {causes: [{message: error}]}, code: 500}
}

interface ExecSession {
  command: string[]
  /** Whether the client asked for stdin; the other streams are always served. */
  stdin: boolean
  /** The image has no shell: its shells fail to exec as the runtime reports it. */
  noShell: boolean
  /** Answer with this recorded stdout (and success) once stdin is read to its end, instead of running the command. */
  replay?: string
}

/** Upgrades exec requests and runs their commands in the image stand-in; `close` ends every session. */
export class ExecEndpoint {
  private readonly sockets = new WebSocketServer({noServer: true, handleProtocols: (offered) => this.protocols.find((protocol) => offered.has(protocol)) ?? false})
  private readonly children = new Set<ChildProcess>()

  private constructor(
    private readonly tools: {dir: string; remove(): Promise<void>},
    private readonly protocols: readonly ExecProtocol[],
  ) {}

  /** Serves `protocols` (an API server older than 1.30 speaks v4 only). */
  static async start(protocols: readonly ExecProtocol[] = EXEC_PROTOCOLS): Promise<ExecEndpoint> {
    return new ExecEndpoint(await imageToolsFolder(), protocols)
  }

  /** Whether the client offers a subprotocol this server speaks. */
  speaksProtocol(request: IncomingMessage): boolean {
    const offered = new Set(String(request.headers['sec-websocket-protocol'] ?? '').split(',').map((protocol) => protocol.trim()))
    return this.protocols.some((protocol) => offered.has(protocol))
  }

  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, session: ExecSession): void {
    this.sockets.handleUpgrade(request, socket, head, (webSocket) => {
      this.run(webSocket, session)
    })
  }

  async close(): Promise<void> {
    for (const child of this.children) child.kill('SIGKILL')
    for (const client of this.sockets.clients) client.terminate()
    this.sockets.close()
    await this.tools.remove()
  }

  /** Synchronous from the upgrade on: a frame that came before its listener would be lost. */
  private run(webSocket: WebSocket, session: ExecSession): void {
    const send = (channel: number, data: Buffer | string = Buffer.alloc(0)) => {
      if (webSocket.readyState === webSocket.OPEN) webSocket.send(Buffer.concat([Buffer.of(channel), Buffer.from(data)]))
    }

    const finish = (status: ExecStatus) => {
      send(CHANNEL.error, JSON.stringify(status))
      webSocket.close(1000)
    }

    // As the server does on opening: one empty frame on each channel it writes to.
    for (const channel of [CHANNEL.stdout, CHANNEL.stderr, CHANNEL.error]) send(channel)
    if (session.replay !== undefined) {
      const {replay} = session
      // v5 closes stdin with a frame; v4 has none, so its first stdin frame (the whole script, as kpx-check sends it) ends it.
      webSocket.on('message', (data: Buffer) => {
        if ((data[0] === CHANNEL.close && data[1] === CHANNEL.stdin) || (data[0] === CHANNEL.stdin && webSocket.protocol !== EXEC_PROTOCOLS[0])) {
          send(CHANNEL.stdout, replay)
          finish(SUCCESS)
        }
      })
      return
    }

    const [program = '', ...args] = session.command
    const name = basename(program)
    const path = join(this.tools.dir, name)
    const inImage = !(session.noShell && SHELLS.has(name)) && isExecutable(path)
    if (!inImage) {
      finish(runtimeStatus(program))
      return
    }

    const child = spawn(path, args, {argv0: program, cwd: '/', env: {PATH: this.tools.dir}, stdio: [session.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe']})
    this.children.add(child)
    child.stdout!.on('data', (chunk: Buffer) => send(CHANNEL.stdout, chunk))
    child.stderr!.on('data', (chunk: Buffer) => send(CHANNEL.stderr, chunk))
    child.stdin?.on('error', () => {}) // the command may exit before reading all of its input
    webSocket.on('message', (data: Buffer) => {
      if (data.length === 0) return
      if (data[0] === CHANNEL.stdin) child.stdin?.write(data.subarray(1))
      else if (data[0] === CHANNEL.close && data[1] === CHANNEL.stdin && webSocket.protocol === EXEC_PROTOCOLS[0]) child.stdin?.end()
    })
    // The client went away: the command is killed, as the kubelet ends an exec whose stream is gone.
    webSocket.on('close', () => child.kill('SIGKILL'))
    child.on('error', (error) => finish(runtimeStatus(`${program} (${error.message})`)))
    child.on('close', (code, signal) => {
      this.children.delete(child)
      finish(code === 0 ? SUCCESS : exitStatus(session.command, code ?? 128 + (signal ? osConstants.signals[signal] : 0)))
    })
  }
}
