/**
 * `kpx-check verify node --watch` through bin/run.js with the real collector, run twice on a node of its own: namespaces
 * holding the captured kube-proxy 1.36.2 nftables node's ruleset and a process named kube-proxy (node-namespace.ts), where
 * a stand-in answers /proxyMode, /metrics and /healthz on kube-proxy's ports as the captured kube-proxy did. The second
 * answer of /metrics is the captured page, or it with the series kube-proxy adds at its first failures. Over SSH, a real
 * sshd runs in that node.
 */
import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {setTimeout as sleep} from 'node:timers/promises'

import type {Report} from '../../src/contract/report.js'
import {parseBundle} from '../../src/facts/bundle.js'
import {CAPTURES_DIR} from '../helpers/captured-bundles.js'
import {runProgram} from '../helpers/cli.js'
import {type EndpointAnswers, nodeNamespaceUnavailable, startNodeNamespace} from '../helpers/node-namespace.js'
import {RUN_JS} from '../helpers/paths.js'
import {RULE_FIXTURES} from '../helpers/rule-fixtures.js'
import {validateReport} from '../helpers/schemas.js'
import {allowSudo, sshdUnavailable, startSshd, TEST_USER} from '../helpers/sshd.js'

const CAPTURE = join(CAPTURES_DIR, 'capture-2-nftables')
const METRICS = readFileSync(join(CAPTURE, 'metrics.all'), 'utf8')
/** The captured page with the series kube-proxy 1.33+ adds at its first failed syncs of a family. */
const FAILING_METRICS = `${METRICS}kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family="IPv4"} 2\n`
/** kube-proxy 1.33+'s /healthz of a healthy dual-stack node, from the kube-proxy-healthz rule's fixture. */
const HEALTHZ = parseBundle(readFileSync(join(RULE_FIXTURES, 'kube-proxy-healthz', 'pass.healthy-dual-stack.facts'), 'utf8')).sections.get('kube-proxy-healthz')!
const answers = (metrics: string[]): EndpointAnswers => ({10_249: {'/proxyMode': 'nftables', '/metrics': metrics}, 10_256: {'/healthz': HEALTHZ}})

const unavailable = nodeNamespaceUnavailable()
let dir: string
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kpx-verify-node-watch-'))
})
after(() => rmSync(dir, {recursive: true, force: true}))

/**
 * `verify node` with these flags in a node whose kube-proxy answers `metrics` to successive /metrics requests: on this
 * machine (the node), or `overSsh`, through a real sshd in the node (TEST_USER, the collector run with sudo).
 */
async function verifyIn(metrics: string[], flags: string[], overSsh = false): Promise<{asked: string[]; code: null | number; report: Report}> {
  const node = await startNodeNamespace(dir, join(CAPTURE, 'nft-ruleset'), answers(metrics))
  const sshd = overSsh ? await startSshd({enter: node.enter}) : undefined
  try {
    if (sshd) allowSudo('nopasswd')
    const ssh = sshd ? ['--ssh', `${TEST_USER}@127.0.0.1:${sshd.port}`, '--identity', sshd.clientKey, '--known-hosts', sshd.knownHosts, '--sudo'] : []
    const {code, stdout, stderr} = await runProgram(node.enter[0], [...node.enter.slice(1), process.execPath, RUN_JS, 'verify', 'node', ...ssh, ...flags, '--json'], {env: {...process.env, NO_COLOR: '1'}})
    assert.ok(stdout.startsWith('{'), stderr)
    const report = JSON.parse(stdout) as Report
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors))
    assert.equal(report.exitCode, code)
    return {asked: node.asked, code, report}
  } finally {
    node.stop()
    await sshd?.stop()
  }
}

const failedChecks = (report: Report) => Object.entries(report.nodes[0].checks).filter(([, check]) => check.status === 'fail').map(([rule]) => rule)

describe('verify node --watch: the collector run twice on the node, DURATION apart', {skip: unavailable}, () => {
  it('kube-proxy answers the same twice: the node is verified, exit 0; the watch saw no failure and no new sync yet', async () => {
    const started = Date.now()
    const {asked, code, report} = await verifyIn([METRICS], ['--watch', '1s'])
    assert.ok(Date.now() - started >= 1000, 'the runs are a second apart')
    assert.equal(asked.filter((path) => path === '10249/metrics').length, 2, asked.join(' '))
    assert.equal(code, 0, JSON.stringify(report.nodes[0].checks, undefined, 1))
    assert.equal(report.nodes[0].state, 'verified')
    const watch = report.nodes[0].checks['verify/sync-watch']
    assert.equal(watch.status, 'pass')
    // Each collector run takes a few seconds: the watch is timed by the collector's clock, from one run's start to the next's.
    assert.match(watch.message, /^kube-proxy's failed nftables syncs did not grow over \d+ s \(no new sync of IPv4, IPv6 yet: a watch longer than 60 s would tell whether it is stuck\)\.$/)
  })

  it('the second /metrics has 2 failed IPv4 syncs the first had not: the node failed, exit 3, the watch saying IPv4 0 → 2', async () => {
    const {code, report} = await verifyIn([METRICS, FAILING_METRICS], ['--watch', '1s'])
    assert.equal(code, 3)
    assert.equal(report.nodes[0].state, 'failed')
    assert.deepEqual(failedChecks(report), ['verify/nftables-sync-failures', 'verify/sync-watch'])
    const watch = report.nodes[0].checks['verify/sync-watch']
    assert.match(watch.message, /^kube-proxy's failed nftables syncs grew over \d+ s \(IPv4 0 → 2\): its syncs are failing now/)
    assert.deepEqual(watch.evidence?.['kubeProxy.syncFailuresGrown'], ['IPv4 0 → 2'])
  })

  it('over SSH (a real sshd in the node, --sudo): the second collector run saw 2 failed IPv4 syncs the first had not: failed, exit 3', {skip: sshdUnavailable()}, async () => {
    const {asked, code, report} = await verifyIn([METRICS, FAILING_METRICS], ['--watch', '1s'], true)
    assert.equal(asked.filter((path) => path === '10249/metrics').length, 2, asked.join(' '))
    assert.equal(code, 3)
    assert.equal(report.nodes[0].source, 'ssh')
    assert.equal(report.nodes[0].state, 'failed')
    // As root through sudo, the node's tables were read: only the sync checks fail.
    assert.deepEqual(failedChecks(report), ['verify/nftables-sync-failures', 'verify/sync-watch'])
    assert.deepEqual(report.nodes[0].checks['verify/sync-watch'].evidence?.['kubeProxy.syncFailuresGrown'], ['IPv4 0 → 2'])
  })

  it('SIGINT during the wait ends the run at once with exit 130, saying what it was waiting for', {timeout: 60_000}, async () => {
    const node = await startNodeNamespace(dir, join(CAPTURE, 'nft-ruleset'), answers([METRICS]))
    try {
      const child = spawn(node.enter[0], [...node.enter.slice(1), process.execPath, RUN_JS, 'verify', 'node', '--watch', '10m', '--json'], {stdio: ['ignore', 'pipe', 'pipe'], env: {...process.env, NO_COLOR: '1'}})
      let stdout = ''
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
      const exited = new Promise<null | number>((resolve) => child.on('close', resolve))
      // The first run asked /healthz after /metrics: it is done, or all but.
      while (child.exitCode === null && !node.asked.includes('10256/healthz')) await sleep(50)
      const signalled = Date.now()
      // nsenter forked the CLI into the PID namespace: the signal is for it, as Ctrl-C's would be.
      process.kill(Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim()), 'SIGINT')
      assert.equal(await exited, 130, stdout)
      assert.ok(Date.now() - signalled < 30_000, 'it did not wait out the watch')
      assert.equal(JSON.parse(stdout).error.message, 'stopped by SIGINT; it was waiting for the second collector run (--watch 600s)')
    } finally {
      node.stop()
    }
  })
})
