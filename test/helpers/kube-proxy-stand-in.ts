/**
 * A process named kube-proxy on this machine, as one runs on a node or in its pod, for the collector to
 * find: its flags and environment as given. It ends with the process that started it, however that ends
 * (a crash, SIGKILL): one left behind would be found by every later collector run on this machine, and
 * change what those runs report.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {once} from 'node:events'

/** Its stdin is a pipe from the process that started it, which ends when that process does. */
const UNTIL_STDIN_ENDS = "process.stdin.on('end', () => process.exit()).resume()"

/** Kill it when done; it is running (its command line and environment final) when this resolves. */
export async function startKubeProxyStandIn(flags = ['--config=/var/lib/kube-proxy/config.conf'], env?: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const standIn = spawn(process.execPath, ['-e', UNTIL_STDIN_ENDS, '--', ...flags], {argv0: 'kube-proxy', stdio: ['pipe', 'ignore', 'ignore'], ...(env ? {env} : {})})
  await once(standIn, 'spawn')
  return standIn
}
