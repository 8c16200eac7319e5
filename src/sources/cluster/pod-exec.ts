/**
 * pods/exec over WebSocket, as kubectl and client-node speak it: GET …/pods/<pod>/exec?command=…
 * upgraded with the subprotocol `v5.channel.k8s.io` (or `v4.channel.k8s.io` from an older server);
 * every binary frame starts with its channel (0 stdin, 1 stdout, 2 stderr, 3 error); in v5 the frame
 * [255, 0] ends stdin. The command's end comes as a `Status` on the error channel: `Success`, or
 * `NonZeroExitCode` with the exit code as an `ExitCode` cause, or the runtime's own failure (a program
 * the image lacks). A refused upgrade is an HTTP answer with a `Status` body, quoted as it is.
 *
 * Not client-node's Exec: it reduces a refused upgrade to "Unexpected server response: 403", which
 * loses the API's message that tells a forbidden exec from a pod that is gone; this client uses the
 * TLS settings and credentials the reads use (kube-client.ts), resolved once for every node.
 */
import {WebSocket} from 'ws'

import {isObject} from '../../util/json-value.js'
import type {KubeClient} from './kube-client.js'

const PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io']
const CHANNEL = {stdin: 0, stdout: 1, stderr: 2, error: 3, close: 255} as const

/** What one exec may bring back: a collector's bundle is well under 1 MB, stderr only classified. */
const EXEC_LIMITS = {stdout: 16 * 1024 * 1024, stderr: 64 * 1024, status: 64 * 1024} as const

interface PodExecRequest {
  namespace: string
  pod: string
  container: string
  command: readonly string[]
  stdin: Buffer
}

interface PodExecResult {
  exitCode: number
  stdout: Buffer
  stderr: string
}

/**
 * Why an exec did not run to an exit code: the API refused it (`forbidden`: 403, `not-found`: 404,
 * `refused`: any other answer), the runtime could not start the command (`runtime`: the image has no
 * such program), the connection failed or broke (`transport`), or what came is no exec answer (`protocol`).
 */
export class PodExecError extends Error {
  constructor(
    readonly kind: 'forbidden' | 'not-found' | 'protocol' | 'refused' | 'runtime' | 'transport',
    message: string,
  ) {
    super(message)
  }
}

/** Runs `command` in the pod's container with `stdin` as its input; ends (rejecting with the signal's reason) when `signal` aborts. */
export function execInPod(client: KubeClient, request: PodExecRequest, signal: AbortSignal): Promise<PodExecResult> {
  const query = new URLSearchParams([
    ...request.command.map((part): [string, string] => ['command', part]),
    ['container', request.container],
    ['stdin', 'true'],
    ['stdout', 'true'],
    ['stderr', 'true'],
  ])
  const target = client.webSocketTarget(`/api/v1/namespaces/${encodeURIComponent(request.namespace)}/pods/${encodeURIComponent(request.pod)}/exec?${query}`)
  return new Promise((resolve, reject) => {
    signal.throwIfAborted()
    const socket = new WebSocket(target.url, PROTOCOLS, {...target.tls, headers: target.headers, perMessageDeflate: false, maxPayload: EXEC_LIMITS.stdout})
    const stdout: Buffer[] = []
    let stdoutLength = 0
    let stderr = ''
    let status: Buffer | undefined
    let settled = false
    const settle = (outcome: () => PodExecResult) => {
      if (settled) return
      settled = true
      signal.removeEventListener('abort', abort)
      try {
        resolve(outcome())
      } catch (error) {
        reject(error)
      }

      socket.terminate()
    }

    const fail = (error: unknown) => settle(() => {
      throw error
    })
    const abort = () => fail(signal.reason)
    signal.addEventListener('abort', abort, {once: true})

    socket.on('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = []
      let length = 0
      response.on('data', (chunk: Buffer) => {
        length += chunk.length
        if (length <= EXEC_LIMITS.status) chunks.push(chunk)
      })
      response.on('end', () => fail(refusal(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))))
      response.on('error', fail)
    })
    socket.on('open', () => {
      socket.send(Buffer.concat([Buffer.of(CHANNEL.stdin), request.stdin]))
      // v4 cannot end stdin without closing the connection: the command must stop reading by itself.
      if (socket.protocol === PROTOCOLS[0]) socket.send(Buffer.of(CHANNEL.close, CHANNEL.stdin))
    })
    socket.on('message', (data: Buffer) => {
      const payload = data.subarray(1)
      switch (data[0]) {
        case CHANNEL.stdout: {
          stdoutLength += payload.length
          if (stdoutLength > EXEC_LIMITS.stdout) fail(new PodExecError('protocol', `the command printed more than ${EXEC_LIMITS.stdout / 1024 / 1024} MB`))
          else stdout.push(payload)
          break
        }

        case CHANNEL.stderr: {
          if (stderr.length < EXEC_LIMITS.stderr) stderr += payload.toString('utf8')
          break
        }

        case CHANNEL.error: {
          status = status ? Buffer.concat([status, payload]) : payload
          if (status.length > EXEC_LIMITS.status) fail(new PodExecError('protocol', 'the exit status is larger than any Status'))
          break
        }
      }
    })
    socket.on('close', () => {
      settle(() => {
        if (!status || status.length === 0) throw new PodExecError('protocol', 'the connection closed before the command\'s exit status came')
        return {exitCode: exitCodeOf(status.toString('utf8')), stdout: Buffer.concat(stdout), stderr}
      })
    })
    socket.on('error', (error) => fail(new PodExecError('transport', error.message)))
  })
}

/** The exit code a `Status` from the error channel carries; a failure that is no exit code throws. */
function exitCodeOf(text: string): number {
  let status: unknown
  try {
    status = JSON.parse(text)
  } catch {
    throw new PodExecError('protocol', 'the error channel held no Status')
  }

  if (!isObject(status)) throw new PodExecError('protocol', 'the error channel held no Status')
  if (status.status === 'Success') return 0
  const causes = isObject(status.details) && Array.isArray(status.details.causes) ? status.details.causes : []
  const exitCode = causes.find((cause) => isObject(cause) && cause.reason === 'ExitCode')?.message
  if (status.reason === 'NonZeroExitCode' && typeof exitCode === 'string' && /^\d{1,3}$/.test(exitCode)) return Number(exitCode)
  throw new PodExecError('runtime', typeof status.message === 'string' ? status.message : 'the command failed without an exit code')
}

/** An upgrade the API server answered with a `Status` (or anything) instead of switching protocols. */
function refusal(code: number, body: string): PodExecError {
  let message = `HTTP ${code}`
  try {
    const status = JSON.parse(body) as unknown
    if (isObject(status) && typeof status.message === 'string') message = status.message
  } catch {
    // not a Status body: the HTTP code says it all
  }

  if (code === 403) return new PodExecError('forbidden', message)
  if (code === 404) return new PodExecError('not-found', message)
  return new PodExecError('refused', message === `HTTP ${code}` ? message : `HTTP ${code}: ${message}`)
}
