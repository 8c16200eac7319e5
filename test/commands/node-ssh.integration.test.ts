/**
 * `kpx-check node --ssh` end to end, the real CLI against a real sshd: what the "done
 * when" asks, plus the usage errors. HOME points at an empty folder and SSH_AUTH_SOCK is unset,
 * so nothing of this machine's own SSH setup leaks in.
 */
import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {hostname, release, tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {skipSuiteOutsideCi} from '../helpers/ci.js'
import {runCli} from '../helpers/cli.js'
import {validateReport} from '../helpers/schemas.js'
import {forcedCommandKey, freePort, sshdUnavailable, startSshd, TEST_USER, type TestSshd} from '../helpers/sshd.js'

const FLEET_SIZE = 20

describe('kpx-check node --ssh (CLI)', {skip: skipSuiteOutsideCi(sshdUnavailable())}, () => {
  let sshd: TestSshd
  let home: string
  const env = () => ({HOME: home, SSH_AUTH_SOCK: ''})
  const login = (address = '127.0.0.1') => `${TEST_USER}@${address}:${sshd.port}`
  const keys = () => ['--identity', sshd.clientKey, '--known-hosts', sshd.knownHosts]
  const run = async (args: string[]) => {
    const result = await runCli(['node', ...args], {env: env()})
    return {...result, report: args.includes('--json') ? (JSON.parse(result.stdout) as Report) : undefined}
  }

  before(async () => {
    sshd = await startSshd({addresses: FLEET_SIZE})
    home = mkdtempSync(join(tmpdir(), 'kpx-home-'))
  })
  after(async () => {
    await sshd?.stop()
    rmSync(home, {recursive: true, force: true})
  })

  it("reports this machine's real facts over SSH, in a report that matches the schema", async () => {
    const {code, report} = await run(['--ssh', login(), ...keys(), '--json'])
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
    assert.equal(report!.exitCode, code)
    const [node] = report!.nodes
    assert.deepEqual(
      {name: node.name, source: node.source, origin: node.origin, reachable: node.reachable, kernelRelease: node.kernelRelease},
      {name: hostname(), source: 'ssh', origin: login(), reachable: true, kernelRelease: release()},
    )
    assert.equal(node.os.id, /^ID="?([^"\n]+)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1])
  })

  it('refuses a wrong host key, and the report is not go', async () => {
    const wrong = join(home, 'known_hosts.wrong')
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(home, 'impostor')])
    writeFileSync(wrong, `[127.0.0.1]:${sshd.port} ${readFileSync(join(home, 'impostor.pub'), 'utf8')}`)
    const {code, report} = await run(['--ssh', login(), '--identity', sshd.clientKey, '--known-hosts', wrong, '--json'])
    assert.notEqual(report!.verdict, 'go')
    assert.equal(code, 5)
    assert.equal(report!.nodes[0].reachable, false)
    assert.match(report!.nodes[0].reason ?? '', /^host-key: the server offered ED25519 SHA256:\S+, but known_hosts expects ED25519 SHA256:/)
  })

  it('--host-key-policy accept-new still refuses a changed key, and leaves known_hosts byte for byte as it was', async () => {
    const changed = join(home, 'known_hosts.changed')
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(home, 'old_host_key')])
    const before = `# the key the host had before\n[127.0.0.1]:${sshd.port} ${readFileSync(join(home, 'old_host_key.pub'), 'utf8')}`
    writeFileSync(changed, before)
    const {code, report} = await run(['--ssh', login(), '--identity', sshd.clientKey, '--known-hosts', changed, '--host-key-policy', 'accept-new', '--json'])
    assert.equal(code, 5)
    assert.equal(report!.nodes[0].reachable, false)
    assert.match(report!.nodes[0].reason ?? '', /^host-key: the server offered ED25519 SHA256:\S+, but known_hosts expects ED25519 SHA256:/)
    assert.equal(readFileSync(changed, 'utf8'), before)
  })

  it('--host-key-policy accept-new records an unknown host in the first --known-hosts file', async () => {
    const fresh = join(home, 'known_hosts.fresh')
    writeFileSync(fresh, '')
    const {report} = await run(['--ssh', login(), '--identity', sshd.clientKey, '--known-hosts', fresh, '--host-key-policy', 'accept-new', '--json'])
    assert.equal(report!.nodes[0].reachable, true, report!.nodes[0].reason)
    assert.equal(readFileSync(fresh, 'utf8'), `[127.0.0.1]:${sshd.port} ${sshd.hostKeyLine}\n`)
  })

  it('ends a closed port as incomplete (exit 5) at once, not at the timeout', async () => {
    // Nothing listens there: the kernel just handed it out and took it back.
    const closed = await freePort()
    const started = Date.now()
    // A refusal ends the probe at once: the run takes a CLI start (1 s idle, 6 s at load 20), never the 60 s timeout.
    const {code, report} = await run(['--ssh', `${TEST_USER}@127.0.0.1:${closed}`, ...keys(), '--timeout', '60', '--json'])
    assert.ok(Date.now() - started < 30_000, `took ${Date.now() - started} ms`)
    assert.equal(code, 5)
    assert.equal(report!.verdict, 'incomplete')
    assert.match(report!.nodes[0].reason ?? '', /^refused: /)
  })

  it('a node whose collector prints more than 16 MiB: unreachable, the cap named, within the timeout', async () => {
    const flood = forcedCommandKey(sshd, 'flood_ed25519', 'head -c 20000000 /dev/zero')
    const started = Date.now()
    const {code, report} = await run(['--ssh', login(), '--identity', flood, '--known-hosts', sshd.knownHosts, '--timeout', '20', '--json'])
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`)
    assert.equal(code, 5)
    assert.deepEqual([report!.nodes[0].reachable, report!.nodes[0].reason], [false, 'collector: printed more than 16 MiB'])
    // Every check is unknown, those after the switch too: the node's mode is not seen, so it may have switched.
    const [before, after] = [report!.findings.filter((finding) => finding.rule.startsWith('node/')), report!.findings.filter((finding) => finding.rule.startsWith('verify/'))]
    assert.ok(before.length > 0 && before.every((finding) => finding.status === 'unknown' && finding.reason === 'node-unreachable'))
    assert.ok(after.length > 0 && after.every((finding) => finding.status === 'unknown' && finding.reason === 'node-unreachable'))
  })

  it(`probes ${FLEET_SIZE} hosts at once from an inventory, each named by where it was reached`, async () => {
    const inventory = join(home, 'hosts')
    writeFileSync(inventory, sshd.addresses.map((address) => `${login(address)}\n`).join(''))
    const {report} = await run(['--inventory', inventory, ...keys(), '--concurrency', String(FLEET_SIZE), '--json'])
    assert.ok(report!.nodes.every((node) => node.reachable && node.source === 'ssh'))
    // One machine behind every address: the shared hostname is qualified by the target.
    assert.deepEqual(
      report!.nodes.map((node) => node.name).toSorted(),
      sshd.addresses.map((address) => `${hostname()} (${login(address)})`).toSorted(),
    )
  })

  it('shows progress on stderr as a few lines, never one per node', async () => {
    const {stdout, stderr} = await run(['--ssh', login('127.0.0.2'), '--ssh', login('127.0.0.3'), '--ssh', login('127.0.0.4'), ...keys()])
    assert.match(stdout, /127\.0\.0\.4/)
    assert.match(stderr, /^✔ Probed 3 node\(s\) over SSH: 3 done, 0 failed$/m)
    assert.ok(stderr.trim().split('\n').length <= 6, stderr)
  })

  it('a probe that failed for some nodes does not wear the tick of success, and the run goes on to the report', async () => {
    const closed = `${TEST_USER}@127.0.0.1:${await freePort()}`
    const {code, stdout, stderr} = await run(['--ssh', login('127.0.0.2'), '--ssh', closed, ...keys()])
    // This machine runs no kube-proxy, which is never go (no Service rules): no-go outranks the unknown node.
    assert.equal(code, 3)
    assert.match(stdout, /^NO-GO /)
    assert.match(stderr, /^✖ Probed 2 node\(s\) over SSH: 1 done, 1 failed \[FAILED: 1 of 2 could not be probed, see the report\]$/m)
    assert.doesNotMatch(stderr, /✔ Probed/)
  })

  const mistakes: Array<[string, () => string[], RegExp]> = [
    ['a host name that is not one', () => ['--ssh', 'node;reboot'], /--ssh node;reboot: "node;reboot" is not a host name/],
    ['a bad user name', () => ['--ssh', '-FProxyCommand=x@node'], /is not a valid user name/],
    // A value that starts as one of the command's own flags (-o, --output) is taken for it: --ssh is left without a value.
    ['an --ssh value shaped as -o', () => ['--ssh', '-oProxyCommand=x@node'], /--ssh expects a value/],
    ['an SSH flag without targets', () => ['--sudo', '--concurrency', '4'], /--sudo, --concurrency only apply with --ssh or --inventory/],
    ['--ssh with --facts', () => ['--ssh', 'node-1', '--facts', home], /cannot also be provided when using --ssh/],
    ['a missing --identity', () => ['--ssh', 'node-1', '--identity', join(home, 'nope')], /--identity .*nope: no such file/],
    ['a missing --known-hosts under strict', () => ['--ssh', 'node-1', '--known-hosts', join(home, 'nope')], /--known-hosts .*nope: no such file/],
    ['a bad inventory line', () => ['--inventory', writeInventory(home, '[nodes]\nnode-1\nnode-2 ansible_port=x\n')], /hosts-bad:3: \(text of the file\) is not a port number/],
  ]
  for (const [name, args, message] of mistakes) {
    it(`exits 2 on ${name}, with and without --json`, async () => {
      const text = await run(args())
      assert.equal(text.code, 2, text.stderr)
      assert.match(text.stderr, message)
      const json = await runCli(['node', ...args(), '--json'], {env: env()})
      assert.equal(json.code, 2, json.stdout)
      assert.match(JSON.parse(json.stdout).error.message, message)
    })
  }
})

function writeInventory(dir: string, text: string): string {
  const file = join(dir, 'hosts-bad')
  writeFileSync(file, text)
  return file
}

