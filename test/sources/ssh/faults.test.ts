/**
 * Faults an SSH probe must survive, shown by ssh2's own Server (a real sshd cannot easily refuse
 * every login, print garbage or drop a connection halfway): each ends as one unreachable node
 * with a reason that names its class, and the other nodes go on.
 */
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {createServer, type Socket, type Server as TcpServer} from 'node:net'
import {after, before, describe, it} from 'node:test'

import {runNodeCheck} from '../../../src/services/node-check.js'
import type {SshProbeOptions} from '../../../src/sources/ssh/options.js'
import type {SshTarget} from '../../../src/sources/ssh/target.js'
import {COLLECTOR_SCRIPT} from '../../../src/util/paths.js'
import {type FakeSshd, printBundle, startFakeSshd} from '../../helpers/fake-sshd.js'
import {FIXTURES} from '../../helpers/paths.js'
import {probeNodesOverSshForFacts} from '../../helpers/probed-nodes.js'

const BUNDLE = readFileSync(`${FIXTURES}/rules/kernel-version/pass.ubuntu-22.04-azure-5.15.facts`, 'utf8')

function options(fake: FakeSshd, overrides: Partial<SshProbeOptions> = {}): SshProbeOptions {
  return {
    identityFiles: [fake.clientKey],
    knownHostsFiles: [fake.knownHosts],
    hostKeyPolicy: 'strict',
    jump: [],
    sudo: false,
    concurrency: 4,
    timeoutSeconds: 5,
    ...overrides,
  }
}

const target = (fake: FakeSshd, user = 'probe'): SshTarget => ({host: '127.0.0.1', port: fake.port, user})

describe('SSH faults, one node at a time', () => {
  const fakes: FakeSshd[] = []
  const fake = async (...args: Parameters<typeof startFakeSshd>) => {
    const started = await startFakeSshd(...args)
    fakes.push(started)
    return started
  }

  after(async () => {
    await Promise.all(fakes.map((started) => started.close()))
  })

  it('sends the collector on standard input to the constant command "sh -s"', async () => {
    const node = await fake({exec: printBundle(BUNDLE)})
    const [probed] = await probeNodesOverSshForFacts([target(node)], options(node))
    assert.deepEqual(node.calls, [{command: 'sh -s', stdin: readFileSync(COLLECTOR_SCRIPT, 'utf8')}])
    assert.equal(probed.source, 'ssh')
    assert.equal(probed.origin, `probe@127.0.0.1:${node.port}`)
    assert.equal(probed.reachable, true)
    assert.equal(probed.facts.get('node.name'), 'aks-nodepool1-12345678-vmss000000')
    assert.equal(probed.facts.get('kernel.release'), '5.15.0-1034-azure')
  })

  it('--sudo runs "sudo -n sh -s", and falls back to "sh -s" when sudo wants a password', async () => {
    const asLoginUser = `${BUNDLE.replace(/### (unavailable|end)\n[\s\S]*$/, '')}### unavailable\nnft-check permission-denied\n### end\n`
    const node = await fake({
      exec(call, channel) {
        if (call.command.startsWith('sudo')) {
          channel.stderr.write('sudo: a password is required\n')
          channel.exit(1)
          channel.end()
        } else printBundle(asLoginUser)(call, channel)
      },
    })
    const [probed] = await probeNodesOverSshForFacts([target(node)], options(node, {sudo: true}))
    assert.deepEqual(
      node.calls.map((call) => call.command),
      ['sudo -n sh -s', 'sh -s'],
    )
    assert.equal(probed.reachable, true)
    assert.deepEqual(probed.facts.whyUnknown('netfilter.checkPassed'), {reason: 'permission-denied', detail: 'sudo -n needs a password; the collector could not read nft-check'})
  })

  const failures: Array<[string, Parameters<typeof startFakeSshd>[0], Partial<SshProbeOptions>, RegExp]> = [
    ['a login the server refuses', {rejectLogins: true}, {}, /^auth: the server accepted none of: key \S+client_ed25519 \(ED25519 SHA256:[\w+/]{43}\)$/],
    ['a collector that prints garbage', {exec: printBundle('Welcome to node-7!\nuptime: 3 days\n')}, {}, /^collector: printed a malformed bundle \(line 1: expected the first line to be "# kpx-check node facts v1"/],
    [
      'a collector that fails',
      {
        exec(_call, channel) {
          channel.stderr.write('collect: something broke\nboom\n')
          channel.exit(3)
          channel.end()
        },
      },
      {},
      /^collector: exited 3: boom$/,
    ],
    [
      'a connection dropped while the collector runs',
      {
        exec(_call, channel, connection) {
          channel.write(BUNDLE.slice(0, 200))
          connection.end()
        },
      },
      {},
      /^dropped: /,
    ],
    ['a collector that never ends', {exec: () => {}}, {timeoutSeconds: 1}, /^timeout: gave up after 1s while the collector ran$/],
  ]
  for (const [name, behaviour, overrides, reason] of failures) {
    it(`${name}: unreachable, with the reason`, async () => {
      const node = await fake(behaviour)
      const [probed] = await probeNodesOverSshForFacts([target(node)], options(node, overrides))
      assert.equal(probed.reachable, false)
      assert.match(probed.reason ?? '', reason)
      assert.equal(probed.facts.get('node.name'), '127.0.0.1')
      assert.deepEqual(probed.facts.whyUnknown('kernel.release'), {reason: 'node-unreachable', detail: probed.reason})
    })
  }

  it('a collector that exits 0 with its output cut short: as a bundle file cut short, flagged and nothing believed', async () => {
    const node = await fake({exec: printBundle(BUNDLE.replace(/### end\n$/, ''))})
    const [probed] = await probeNodesOverSshForFacts([target(node)], options(node))
    assert.equal(probed.reachable, true)
    assert.equal(probed.cutShort, true)
    assert.equal(probed.reason, 'the bundle was cut short: it ends after section "os-release", which may be cut too, with no "### end" line')
    assert.equal(probed.facts.get('node.name'), 'aks-nodepool1-12345678-vmss000000')
    assert.deepEqual(probed.facts.whyUnknown('kernel.release'), {reason: 'truncated', detail: `${probed.reason}; collect it again`})
  })

  describe('a host that accepts the connection and never answers', () => {
    let silent: TcpServer
    const sockets = new Set<Socket>()
    before(async () => {
      silent = createServer((socket) => sockets.add(socket))
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    })
    after(async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => silent.close(resolve))
    })

    it('times out within --timeout, naming the step', async () => {
      const node = await fake()
      const started = Date.now()
      const [probed] = await probeNodesOverSshForFacts([{host: '127.0.0.1', port: (silent.address() as {port: number}).port}], options(node, {timeoutSeconds: 1}))
      assert.match(probed.reason ?? '', /^timeout: gave up after 1s during the SSH handshake$/)
      assert.ok(Date.now() - started < 2500, `took ${Date.now() - started} ms`)
    })
  })

  it('refuses every node behind a jump host that refuses the login, naming the jump host', async () => {
    const bastion = await fake({rejectLogins: true})
    const node = await fake({exec: printBundle(BUNDLE)})
    const probed = await probeNodesOverSshForFacts([target(node, 'a'), target(node, 'b')], options(node, {jump: [target(bastion, 'ops')], knownHostsFiles: [node.knownHosts]}))
    for (const one of probed) {
      assert.equal(one.reachable, false)
      // The bastion's host key is not in the node's known_hosts: that is the first thing refused.
      assert.match(one.reason ?? '', new RegExp(String.raw`^host-key: jump host ops@127\.0\.0\.1:${bastion.port}: not in `))
    }

    const withKeys = await probeNodesOverSshForFacts([target(node, 'a')], options(node, {jump: [target(bastion, 'ops')], knownHostsFiles: [bastion.knownHosts]}))
    assert.match(withKeys[0].reason ?? '', new RegExp(String.raw`^auth: jump host ops@127\.0\.0\.1:${bastion.port}: the server accepted none of`))
    assert.equal(node.calls.length, 0)
  })
})

describe('SSH fleets', () => {
  let good: FakeSshd
  let refusing: FakeSshd
  before(async () => {
    good = await startFakeSshd({
      exec(call, channel) {
        setTimeout(() => printBundle(BUNDLE.replace('aks-nodepool1-12345678-vmss000000', `node-${good.calls.indexOf(call)}`))(call, channel), 100)
      },
    })
    refusing = await startFakeSshd({rejectLogins: true})
  })
  after(async () => {
    await good.close()
    await refusing.close()
  })

  it('probes at most --concurrency nodes at once', async () => {
    const targets = Array.from({length: 10}, (_, index) => target(good, `user${index}`))
    const progress: number[] = []
    const probed = await probeNodesOverSshForFacts(targets, options(good, {concurrency: 3, onProgress: (update) => progress.push(update.remaining)}))
    assert.equal(good.peakConcurrentCommands, 3)
    assert.deepEqual(progress, [9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
    assert.deepEqual(
      probed.map((node) => node.origin),
      targets.map((one) => `${one.user}@127.0.0.1:${good.port}`),
    )
    assert.ok(probed.every((node) => node.reachable))
  })

  it('goes on past a failed node; the report is incomplete (exit 5) and names why', async () => {
    const report = await runNodeCheck({
      factsPaths: [],
      ssh: {
        targets: [target(good), {host: '127.0.0.1', port: refusing.port, user: 'probe', name: 'node-refusing'}],
        probe: options(good, {knownHostsFiles: [good.knownHosts, refusing.knownHosts]}),
      },
      rulePaths: [],
      skip: [],
      severity: new Map(),
      policy: {failOn: 'blocker', allowIncomplete: false},
      timeoutSeconds: 60,
    })
    assert.equal(report.verdict, 'incomplete')
    assert.equal(report.exitCode, 5)
    const failed = report.nodes.find((node) => node.name === 'node-refusing')
    assert.equal(failed?.reachable, false)
    assert.match(failed?.reason ?? '', /^auth: /)
    assert.ok(report.nodes.some((node) => node.reachable && node.source === 'ssh'))
    // Its pre-switch checks are unknown; the checks after the switch wait for a node seen running nftables.
    const unknown = report.findings.filter((finding) => finding.subject.name === 'node-refusing' && finding.rule.startsWith('node/'))
    assert.ok(unknown.length > 0 && unknown.every((finding) => finding.status === 'unknown'))
  })
})
