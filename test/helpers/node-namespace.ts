/**
 * A node of its own for the real collector on this machine: network, PID and mount namespaces (its own loopback,
 * nftables and iptables, its own /proc) holding a captured node's nftables ruleset and a stand-in for kube-proxy: a
 * process answering on kube-proxy's ports of 127.0.0.1 as the captured kube-proxy did, whose command line in that node's
 * /proc is kube-proxy's. Programs run in it through `nsenter`.
 *
 * Other tests' collector runs on this machine do not take it for a kube-proxy: they cannot reach its ports, and outside
 * its mount namespace its command line is node's (processes of a PID namespace are seen from the one above). Nor do its
 * collector runs see any process outside it. Everything in it ends with its first process, which ends with the process
 * that started it (its stdin is a pipe from it), however that ends. Needs root, unshare, nsenter, nft and ip.
 */
import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
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

/** kube-proxy's command line as kubeadm's DaemonSet gives it (NUL-separated, as /proc/PID/cmdline holds it). */
const KUBE_PROXY_CMDLINE = 'kube-proxy\0--config=/var/lib/kube-proxy/config.conf\0'

/**
 * The first process of the namespaces: loopback up, the ruleset loaded ($0), the endpoints served (node $1 running $2 on
 * the answers $3) with kube-proxy's command line ($4) bound over theirs in this mount namespace's /proc (the collector
 * knows kube-proxy by its argv[0] and reads its flags there), then `cat` until its stdin ends.
 */
const FIRST_PROCESS = `ip link set lo up && nft -f "$0" || exit 1
"$1" -e "$2" -- "$3" &
mount --bind "$4" "/proc/$!/cmdline" || exit 1
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

/** Namespaces with `ruleset` (an `nft -f` file) loaded and `answers` served; `dir` holds the answers and the command line. */
export async function startNodeNamespace(dir: string, ruleset: string, answers: EndpointAnswers): Promise<NodeNamespace> {
  const answersFile = join(dir, 'endpoint-answers.json')
  writeFileSync(answersFile, JSON.stringify(answers))
  const cmdline = join(dir, 'proxy-cmdline')
  writeFileSync(cmdline, KUBE_PROXY_CMDLINE)
  // --kill-child: the first process (PID 1 there) dies with unshare, and every other process there with it.
  const holder = spawn('unshare', ['--net', '--pid', '--fork', '--mount-proc', '--kill-child', 'sh', '-c', FIRST_PROCESS, ruleset, process.execPath, ENDPOINTS, answersFile, cmdline], {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const stop = () => holder.kill('SIGKILL')
  try {
    const lines = await linesFrom(holder, ['ready', 'listening'])
    const first = readFileSync(`/proc/${holder.pid}/task/${holder.pid}/children`, 'utf8').trim()
    return {
      get asked() {
        return lines.filter((line) => /^\d+\//.test(line))
      },
      enter: ['nsenter', `--target=${first}`, '--net', '--pid', '--mount'],
      stop,
    }
  } catch (error) {
    stop()
    throw error
  }
}

/**
 * The lines `child` prints, kept up to date, once it has printed every one of `awaited`; rejects with what it said on
 * stderr when it exits first.
 */
async function linesFrom(child: ChildProcess, awaited: string[]): Promise<string[]> {
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const lines: string[] = []
  let partial = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const split = (partial + chunk).split('\n')
      partial = split.pop()!
      lines.push(...split)
      if (awaited.every((line) => lines.includes(line))) resolve()
    })
    // Once it said them, its exit (stop) is no error: a settled promise ignores the rejection.
    child.once('exit', (code) => reject(new Error(`${child.spawnargs.slice(0, 8).join(' ')} exited ${code} before saying ${awaited.join(', ')}: ${stderr}`)))
  })
  return lines
}
