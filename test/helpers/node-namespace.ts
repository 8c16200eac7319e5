/**
 * A node of its own for the real collector on this machine: a network namespace (its own loopback, nftables and
 * iptables) holding a captured node's nftables ruleset, where a stand-in for kube-proxy's HTTP servers answers on
 * 127.0.0.1 as the captured kube-proxy did. Programs run in it through `nsenter`; nothing of it is seen outside it,
 * so collector runs of other tests on this machine still find no kube-proxy endpoint. Needs root, unshare and nsenter.
 *
 * Both processes end with the process that started them (their stdin is a pipe from it), however that ends.
 */
import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

/** What each of kube-proxy's ports answers, by path: one answer for every request, or a list for successive ones (the last repeats). */
export type EndpointAnswers = Record<number, Record<string, string | string[]>>

interface NodeNamespace {
  /** The namespace, for `nsenter --net=`. */
  net: string
  /** The paths asked of the endpoints so far, in order (`10249/metrics`). */
  asked: string[]
  /** `nsenter` and its flags: put before a command to run it in the namespace. */
  enter: string[]
  stop(): void
}

export function nodeNamespaceUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root to make a network namespace'
  for (const tool of ['unshare', 'nsenter', 'nft', 'ip']) if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `needs ${tool}`
  return undefined
}

/** Serves each port's answers on 127.0.0.1, logs each path asked to stdout, and says `listening` once all listen. */
const ENDPOINTS = String.raw`
const http = require('node:http')
const answers = JSON.parse(require('node:fs').readFileSync(process.argv[1], 'utf8'))
const asked = new Map()
Promise.all(Object.entries(answers).map(([port, paths]) => new Promise((resolve) => {
  http.createServer((request, response) => {
    const key = port + request.url
    process.stdout.write(key + '\n')
    const answer = paths[request.url]
    if (answer === undefined) return response.writeHead(404).end()
    const count = asked.get(key) ?? 0
    asked.set(key, count + 1)
    response.end(Array.isArray(answer) ? answer[Math.min(count, answer.length - 1)] : answer)
  }).listen(Number(port), '127.0.0.1', resolve)
}))).then(() => process.stdout.write('listening\n'))
process.stdin.on('end', () => process.exit()).resume()
`

/** A namespace with `ruleset` (an `nft -f` file) loaded and `answers` served; `dir` holds the answers' file. */
export async function startNodeNamespace(dir: string, ruleset: string, answers: EndpointAnswers): Promise<NodeNamespace> {
  // unshare execs the shell in the new namespace, in the same process: its /proc entry names the namespace.
  const holder = spawn('unshare', ['--net', 'sh', '-c', 'ip link set lo up && nft -f "$0" && echo ready && exec cat', ruleset], {stdio: ['pipe', 'pipe', 'pipe']})
  const stopAll: ChildProcess[] = [holder]
  const stop = () => {
    for (const child of stopAll) child.kill('SIGKILL')
  }

  try {
    await lineFrom(holder, 'ready')
    const net = `/proc/${holder.pid}/ns/net`
    const enter = ['nsenter', `--net=${net}`]
    const answersFile = join(dir, 'kube-proxy-answers.json')
    writeFileSync(answersFile, JSON.stringify(answers))
    const endpoints = spawn(enter[0], [...enter.slice(1), process.execPath, '-e', ENDPOINTS, '--', answersFile], {stdio: ['pipe', 'pipe', 'pipe']})
    stopAll.push(endpoints)
    await lineFrom(endpoints, 'listening')
    const asked: string[] = []
    endpoints.stdout!.setEncoding('utf8').on('data', (chunk: string) => asked.push(...chunk.split('\n').filter(Boolean)))
    return {net, asked, enter, stop}
  } catch (error) {
    stop()
    throw error
  }
}

/** Resolves once `child` prints `line`; rejects with what it said on stderr when it exits first. */
async function lineFrom(child: ChildProcess, line: string): Promise<void> {
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  let stdout = ''
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      stdout += chunk.toString('utf8')
      if (!stdout.split('\n').includes(line)) return
      child.stdout!.off('data', onData)
      resolve()
    }

    child.stdout!.on('data', onData)
    // Once it said the line, its exit (stop) is no error: a settled promise ignores the rejection.
    child.once('exit', (code) => reject(new Error(`${child.spawnargs.join(' ')} exited ${code} before saying "${line}": ${stderr}`)))
  })
}
