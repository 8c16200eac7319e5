/**
 * The test API server's pods/exec, driven by a plain `ws` client speaking the channel protocol, as
 * kubectl and client-node do.
 */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {WebSocket} from 'ws'

import {type ApiServer, type ApiServerOptions, startApiServer} from './apiserver.js'

const POD = '/api/v1/namespaces/kube-system/pods/kube-proxy-8xq2w/exec'

interface ExecReply {
  protocol: string
  stdout: string
  stderr: string
  /** The error channel's Status, parsed. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  status: any
  /** Frames received with nothing after their channel byte, by channel. */
  emptyFrames: number[]
}

interface ExecRequest {
  command: string[]
  stdin?: string
  protocols?: string[]
  path?: string
  /** v5 only: send the close signal for stdin after it (else stdin stays open). */
  closeStdin?: boolean
}

function execUrl(server: ApiServer, request: ExecRequest): string {
  const query = new URLSearchParams([
    ...request.command.map((part): [string, string] => ['command', part]),
    ['container', 'kube-proxy'],
    ['stdin', String(request.stdin !== undefined)],
    ['stdout', 'true'],
    ['stderr', 'true'],
  ])
  return `${server.url.replace('https:', 'wss:')}${request.path ?? POD}?${query}`
}

function exec(server: ApiServer, request: ExecRequest): Promise<ExecReply> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(execUrl(server, request), request.protocols ?? ['v5.channel.k8s.io', 'v4.channel.k8s.io'], {ca: server.ca, headers: {Authorization: `Bearer ${server.token}`}})
    const reply: ExecReply = {protocol: '', stdout: '', stderr: '', status: undefined, emptyFrames: []}
    socket.on('open', () => {
      reply.protocol = socket.protocol
      if (request.stdin !== undefined) socket.send(Buffer.concat([Buffer.of(0), Buffer.from(request.stdin)]))
      if (request.closeStdin) socket.send(Buffer.of(255, 0))
    })
    socket.on('message', (data: Buffer) => {
      const payload = data.subarray(1).toString('utf8')
      if (payload === '') reply.emptyFrames.push(data[0])
      else if (data[0] === 1) reply.stdout += payload
      else if (data[0] === 2) reply.stderr += payload
      else if (data[0] === 3) reply.status = JSON.parse(payload)
    })
    socket.on('close', () => resolve(reply))
    socket.on('unexpected-response', (_request, response) => {
      let body = ''
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
      response.on('end', () => reject(Object.assign(new Error(`HTTP ${response.statusCode}`), {statusCode: response.statusCode, body: JSON.parse(body)})))
    })
    socket.on('error', reject)
  })
}

async function withServer(options: ApiServerOptions, body: (server: ApiServer) => Promise<void>): Promise<void> {
  const server = await startApiServer({scenario: 'kubeadm-calico', ...options})
  try {
    await body(server)
  } finally {
    await server.close()
  }
}

describe('test API server: pods/exec', () => {
  it('runs the command over v5, with its output on stdout and stderr and its exit code in the error channel Status', () =>
    withServer({}, async (server) => {
      const reply = await exec(server, {command: ['sh', '-c', 'echo out; echo err >&2; exit 3']})
      assert.equal(reply.protocol, 'v5.channel.k8s.io')
      assert.deepEqual(reply.emptyFrames, [1, 2, 3])
      assert.equal(reply.stdout, 'out\n')
      assert.equal(reply.stderr, 'err\n')
      assert.deepEqual(reply.status, {
        metadata: {},
        status: 'Failure',
        message: 'command terminated with non-zero exit code: error executing command [sh -c echo out; echo err >&2; exit 3], exit code 3',
        reason: 'NonZeroExitCode',
        details: {causes: [{reason: 'ExitCode', message: '3'}]},
      })
      assert.equal(server.requests.at(-1)?.status, 101)
    }))

  it('reads stdin until the v5 close signal, and says Success for exit 0', () =>
    withServer({}, async (server) => {
      const reply = await exec(server, {command: ['wc', '-l'], stdin: 'a\nb\n', closeStdin: true})
      assert.equal(reply.stdout.trim(), '2')
      assert.deepEqual(reply.status, {metadata: {}, status: 'Success'})
    }))

  it('with execReplay, runs the first execs for real and answers the later ones with the recorded output once stdin is closed', () =>
    withServer({execReplay: {stdout: 'recorded\n', realRuns: 1}}, async (server) => {
      const real = await exec(server, {command: ['wc', '-l'], stdin: 'a\nb\n', closeStdin: true})
      assert.equal(real.stdout.trim(), '2')
      for (const protocols of [['v5.channel.k8s.io'], ['v4.channel.k8s.io']]) {
        const replayed = await exec(server, {command: ['wc', '-l'], stdin: 'a\nb\n', closeStdin: protocols[0].startsWith('v5'), protocols})
        assert.deepEqual([replayed.stdout, replayed.status], ['recorded\n', {metadata: {}, status: 'Success'}], protocols[0])
      }
    }))

  it('speaks v4 when only v4 is offered: a script on stdin that exits needs no close signal', () =>
    withServer({}, async (server) => {
      const reply = await exec(server, {command: ['sh', '-s'], stdin: 'echo "$0 in v4"\nexit 0\n', protocols: ['v4.channel.k8s.io']})
      assert.equal(reply.protocol, 'v4.channel.k8s.io')
      assert.equal(reply.stdout, 'sh in v4\n')
      assert.equal(reply.status.status, 'Success')
    }))

  it('speaks v4 only when it is an older API server, and refuses a client that offers neither', () =>
    withServer({execProtocols: ['v4.channel.k8s.io']}, async (server) => {
      const reply = await exec(server, {command: ['sh', '-c', 'exit 0']})
      assert.equal(reply.protocol, 'v4.channel.k8s.io')
      await assert.rejects(exec(server, {command: ['true'], protocols: ['v5.channel.k8s.io']}), {statusCode: 400})
    }))

  it('has only the kube-proxy image tools: no sed, awk, uname, and PATH is that folder alone', () =>
    withServer({}, async (server) => {
      const reply = await exec(server, {command: ['sh', '-c', 'for tool in sed awk tr cut uname timeout ip curl cat grep wc; do command -v $tool >/dev/null && echo $tool; done; echo "$PATH" | grep -c -v ^/usr']})
      assert.equal(reply.stdout, 'cat\ngrep\nwc\n1\n')
      const sed = await exec(server, {command: ['sed', '--version']})
      assert.equal(sed.status.reason, 'InternalError')
      assert.match(sed.status.message, /exec: "sed": executable file not found in \$PATH: unknown$/)
    }))

  it('fails exec of the shell as the runtime does when the image has none (no-shell)', () =>
    withServer({faults: [{path: POD, kind: 'no-shell'}]}, async (server) => {
      const reply = await exec(server, {command: ['/bin/sh', '-s'], stdin: 'exit 0\n'})
      assert.equal(reply.stdout, '')
      assert.deepEqual(reply.status, {
        metadata: {},
        status: 'Failure',
        message:
          'Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "0f3c6b1e9a2d": OCI runtime exec failed: exec failed: unable to start container process: exec: "/bin/sh": stat /bin/sh: no such file or directory: unknown',
        reason: 'InternalError',
        details: {
          causes: [
            {
              message:
                'error executing command in container: failed to exec in container: failed to start exec "0f3c6b1e9a2d": OCI runtime exec failed: exec failed: unable to start container process: exec: "/bin/sh": stat /bin/sh: no such file or directory: unknown',
            },
          ],
        },
        code: 500,
      })
    }))

  it('refuses the upgrade with the real 403 Status when exec is forbidden, and 404 for a pod that is not there', () =>
    withServer({faults: [{path: POD, kind: 'forbidden'}]}, async (server) => {
      await assert.rejects(exec(server, {command: ['true']}), {
        statusCode: 403,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'pods "kube-proxy-8xq2w" is forbidden: User "system:serviceaccount:default:kpx" cannot create resource "pods/exec" in API group "" in the namespace "kube-system"',
          reason: 'Forbidden',
          details: {name: 'kube-proxy-8xq2w', kind: 'pods'},
          code: 403,
        },
      })
      await assert.rejects(exec(server, {command: ['true'], path: '/api/v1/namespaces/kube-system/pods/kube-proxy-gone/exec'}), (error: {body: {message: string}; statusCode: number}) => {
        assert.equal(error.statusCode, 404)
        assert.equal(error.body.message, 'pods "kube-proxy-gone" not found')
        return true
      })
      assert.deepEqual(server.requests.map((request) => request.status), [403, 404])
    }))

  it('never answers a hanging exec, and still closes at once', () =>
    withServer({faults: [{path: POD, kind: 'hang'}]}, async (server) => {
      const socket = new WebSocket(execUrl(server, {command: ['true']}), ['v5.channel.k8s.io'], {ca: server.ca, headers: {Authorization: `Bearer ${server.token}`}})
      const closed = new Promise((resolve) => socket.on('error', resolve).on('close', resolve))
      while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
      await new Promise((resolve) => setTimeout(resolve, 100))
      assert.equal(socket.readyState, WebSocket.CONNECTING)
      assert.equal(server.requests[0].status, undefined)
      await server.close()
      await closed
    }))
})
