/**
 * A node of its own for the real collector on this machine: network, PID and mount namespaces (its own loopback,
 * nftables and iptables, and its own /proc) holding a captured node's nftables ruleset, a process named kube-proxy, and a
 * stand-in for kube-proxy's HTTP servers answering on 127.0.0.1 as the captured kube-proxy did. Programs run in it through
 * `nsenter`. Nothing of it is seen outside it, so the collector runs of other tests on this machine find no kube-proxy
 * process or endpoint of it, and its collector runs find none of theirs. Needs root, unshare and nsenter.
 *
 * Everything in it ends with its first process, which ends with the process that started it (its stdin is a pipe from
 * it), however that ends.
 */
import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import {readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

/** What each of kube-proxy's ports answers, by path: one answer for every request, or a list for successive ones (the last repeats). */
export type EndpointAnswers = Record<number, Record<string, string | string[]>>

interface NodeNamespace {
  /** The paths asked of the endpoints so far, in order (`10249/metrics`). */
  asked: string[]
  /** `nsenter` and its flags: put before a command to run it in the namespaces. */
  enter: string[]
  stop(): void
}

export function nodeNamespaceUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root to make namespaces'
  for (const tool of ['unshare', 'nsenter', 'nft', 'ip']) if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `needs ${tool}`
  return undefined
}

/**
 * The first process of the namespaces: loopback up, the ruleset loaded, kube-proxy started (node under that name: the
 * collector knows a process by its argv[0]'s base name, and reads its flags), then `cat` until its stdin ends.
 */
const FIRST_PROCESS = `ip link set lo up && nft -f "$0" || exit 1
"$1" -e 'setInterval(() => {}, 1 << 30)' -- --config=/var/lib/kube-proxy/config.conf &
echo ready
exec cat`

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
`

/** Namespaces with `ruleset` (an `nft -f` file) loaded and `answers` served; `dir` holds the answers' file and kube-proxy's name. */
export async function startNodeNamespace(dir: string, ruleset: string, answers: EndpointAnswers): Promise<NodeNamespace> {
  const kubeProxy = join(dir, 'kube-proxy')
  try {
    symlinkSync(process.execPath, kubeProxy)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }

  // --kill-child: the first process (PID 1 there) dies with unshare, and every other process there with it.
  const holder = spawn('unshare', ['--net', '--pid', '--fork', '--mount-proc', '--kill-child', 'sh', '-c', FIRST_PROCESS, ruleset, kubeProxy], {stdio: ['pipe', 'pipe', 'pipe']})
  const stop = () => holder.kill('SIGKILL')
  try {
    await lineFrom(holder, 'ready')
    const first = readFileSync(`/proc/${holder.pid}/task/${holder.pid}/children`, 'utf8').trim()
    const enter = ['nsenter', `--target=${first}`, '--net', '--pid', '--mount']
    const answersFile = join(dir, 'kube-proxy-answers.json')
    writeFileSync(answersFile, JSON.stringify(answers))
    const endpoints = spawn(enter[0], [...enter.slice(1), process.execPath, '-e', ENDPOINTS, '--', answersFile], {stdio: ['ignore', 'pipe', 'pipe']})
    await lineFrom(endpoints, 'listening')
    const asked: string[] = []
    endpoints.stdout!.setEncoding('utf8').on('data', (chunk: string) => asked.push(...chunk.split('\n').filter(Boolean)))
    return {asked, enter, stop}
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
