/**
 * The kube-proxy stand-in ends with the process that started it, even one killed outright, so a test or
 * a benchmark that dies does not leave a kube-proxy for later collector runs on this machine to find.
 */
import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {readFileSync} from 'node:fs'
import {describe, it} from 'node:test'
import {setTimeout as sleep} from 'node:timers/promises'

const STAND_IN_MODULE = new URL('kube-proxy-stand-in.js', import.meta.url).href

/** Its command line, as the collector reads it; empty once it has exited (a zombie's), undefined once reaped. */
function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {
    return undefined
  }
}

describe('kube-proxy stand-in', () => {
  it('is named kube-proxy with its flags, and exits when the process that started it is killed with SIGKILL', async () => {
    const starter = spawn(
      process.execPath,
      ['--input-type=module', '-e', `const {startKubeProxyStandIn} = await import(${JSON.stringify(STAND_IN_MODULE)}); console.log((await startKubeProxyStandIn(['--config=/x'])).pid); setInterval(() => {}, 1000)`],
      {stdio: ['ignore', 'pipe', 'inherit']},
    )
    const [line] = (await once(starter.stdout, 'data')) as [Buffer]
    const pid = Number(line.toString().trim())
    assert.equal(commandLine(pid)?.split('\0').find(Boolean), 'kube-proxy')
    assert.ok(commandLine(pid)?.includes('--config=/x'))

    starter.kill('SIGKILL')
    let running = true
    for (let waited = 0; running && waited < 5000; waited += 50) {
      await sleep(50)
      running = Boolean(commandLine(pid))
    }

    assert.equal(running, false, `stand-in ${pid} still runs after its starter was killed`)
  })
})
