/**
 * The real path: Debian's OpenSSH server on loopback, logged in to as a plain test account. The
 * facts that come back over SSH must be this machine's own, host keys must be checked as OpenSSH
 * checks them, and sudo, jump hosts, ~/.ssh/config, ssh-agent and fleets must work against the
 * real thing.
 */
import assert from 'node:assert/strict'
import {type ChildProcess, execFileSync, spawn} from 'node:child_process'
import {appendFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import {factsOfSection} from '../../../src/facts/catalog.js'
import type {FactSet} from '../../../src/facts/fact-set.js'
import {runCollectorLocally} from '../../../src/sources/collector/local.js'
import {runCollectorOverSsh} from '../../../src/sources/ssh/fleet.js'
import type {SshProbeOptions} from '../../../src/sources/ssh/options.js'
import type {SshTarget} from '../../../src/sources/ssh/target.js'
import {UsageError} from '../../../src/util/errors.js'
import {COLLECTOR_SCRIPT} from '../../../src/util/paths.js'
import {bundleFacts} from '../../helpers/bundle-facts.js'
import {skipSuiteOutsideCi} from '../../helpers/ci.js'
import {FIXTURES} from '../../helpers/paths.js'
import {probeNodesOverSshForFacts} from '../../helpers/probed-nodes.js'
import {allowSudo, forcedCommandKey, removeSudo, sshdUnavailable, startSshd, TEST_USER, type TestSshd} from '../../helpers/sshd.js'

const FLEET_SIZE = 20
const skip = skipSuiteOutsideCi(sshdUnavailable())

/**
 * The processes running here change between two runs: the collector test starts a fake kube-proxy, which
 * the other of two test files running at once may see or not, and which nft kube-proxy runs (its JSON
 * support) follows where kube-proxy runs. The rest is the same machine read twice.
 */
const CHANGING = new Set<string>([...factsOfSection('kube-proxy-process'), ...factsOfSection('nft-json')])

/** Everything a rule can read, but what comes from the process list: known values and the reasons for unknown ones. */
function comparable(facts: FactSet) {
  return {
    known: Object.fromEntries(facts.knownPaths().filter((path) => !CHANGING.has(path)).toSorted().map((path) => [path, facts.get(path)])),
    unknown: Object.fromEntries(facts.unknownEntries().filter(([path]) => !CHANGING.has(path)).toSorted(([a], [b]) => a.localeCompare(b))),
  }
}

/** The collector run here as TEST_USER, the way sshd runs it: the script on standard input to sh -s. */
function collectAsTestUser(): FactSet {
  const uid = Number(execFileSync('id', ['-u', TEST_USER], {encoding: 'utf8'}))
  const gid = Number(execFileSync('id', ['-g', TEST_USER], {encoding: 'utf8'}))
  const stdout = execFileSync('sh', ['-s'], {input: readFileSync(COLLECTOR_SCRIPT), uid, gid, cwd: '/', env: {PATH: '/usr/bin:/bin', HOME: '/'}, encoding: 'utf8'})
  return bundleFacts(stdout, 'unused')
}

describe('SSH against a real OpenSSH server', {skip}, () => {
  let sshd: TestSshd
  let options: SshProbeOptions
  const node = (index = 0): SshTarget => ({host: sshd.addresses[index], port: sshd.port, user: TEST_USER})

  before(async () => {
    sshd = await startSshd({addresses: FLEET_SIZE})
    options = {identityFiles: [sshd.clientKey], knownHostsFiles: [sshd.knownHosts], hostKeyPolicy: 'strict', jump: [], sudo: false, concurrency: FLEET_SIZE, timeoutSeconds: 30}
  })
  after(async () => {
    removeSudo()
    await sshd?.stop()
  })

  it("reports this machine's own facts, as the login user reads them", async () => {
    const [probed] = await probeNodesOverSshForFacts([node()], options)
    assert.equal(probed.reachable, true, probed.reason)
    assert.equal(probed.origin, `${TEST_USER}@127.0.0.1:${sshd.port}`)
    assert.equal(probed.facts.get('collector.root'), false)
    assert.deepEqual(comparable(probed.facts), comparable(collectAsTestUser()))
  })

  it("with --sudo and passwordless sudo for sh -s, reports root's view: the same facts as a local run as root", async () => {
    allowSudo('nopasswd')
    try {
      const [probed] = await probeNodesOverSshForFacts([node()], {...options, sudo: true})
      const local = await runCollectorLocally(30_000)
      assert.ok(local.ok)
      assert.equal(probed.facts.get('collector.root'), true)
      assert.deepEqual(comparable(probed.facts), comparable(bundleFacts(local.stdout, 'unused')))
    } finally {
      removeSudo()
    }
  })

  it('with --sudo where sudo wants a password, root-only facts are unknown for that reason and the node stays reachable', async () => {
    allowSudo('password')
    try {
      const [probed] = await probeNodesOverSshForFacts([node()], {...options, sudo: true})
      assert.equal(probed.reachable, true)
      assert.equal(probed.facts.get('collector.root'), false)
      const policies = probed.facts.whyUnknown('iptables.inputPolicy')
      assert.equal(policies?.reason, 'permission-denied')
      assert.match(policies?.detail ?? '', /^sudo -n needs a password/)
    } finally {
      removeSudo()
    }
  })

  it("the timeout covers reading the output too: a node whose output is handled past --timeout is a timeout, not a probed node", async () => {
    const bundle = join(sshd.dir, 'bundle.facts')
    writeFileSync(bundle, readFileSync(join(FIXTURES, 'bundles', 'debian-12-iptables-root.facts')), {mode: 0o644})
    const quick = {...options, identityFiles: [forcedCommandKey(sshd, 'bundle_ed25519', `cat ${bundle}`)], timeoutSeconds: 4}
    const [control] = await runCollectorOverSsh([node()], quick, (run) => run)
    assert.equal(control.ok, true, control.ok ? '' : control.failure.detail)

    // Reading the output stands in for a parse that takes longer than the time left: it blocks until past the deadline.
    const started = Date.now()
    const [late] = await runCollectorOverSsh([node()], quick, (run) => {
      if (run.ok) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, started + 4500 - Date.now()))
      return run
    })
    assert.deepEqual(late.ok ? late : late.failure, {class: 'timeout', detail: "gave up after 4s while reading the collector's output"})
  })

  describe('host keys', () => {
    it('refuses a host whose key differs from known_hosts, with both fingerprints', async () => {
      const wrong = join(sshd.dir, 'known_hosts.wrong')
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshd.dir, 'other_key')])
      writeFileSync(wrong, `[127.0.0.1]:${sshd.port} ${readFileSync(join(sshd.dir, 'other_key.pub'), 'utf8')}`)
      const expected = execFileSync('ssh-keygen', ['-l', '-f', join(sshd.dir, 'other_key.pub')], {encoding: 'utf8'}).split(' ', 2)[1]
      const offered = execFileSync('ssh-keygen', ['-l', '-f', join(sshd.dir, 'host_ed25519.pub')], {encoding: 'utf8'}).split(' ', 2)[1]
      const [probed] = await probeNodesOverSshForFacts([node()], {...options, knownHostsFiles: [wrong]})
      assert.equal(probed.reachable, false)
      assert.match(probed.reason ?? '', /^host-key: the server offered ED25519 SHA256:/)
      assert.ok(probed.reason?.includes(offered) && probed.reason.includes(`ED25519 ${expected} (${wrong}:1)`), probed.reason)
    })

    it('refuses an unknown host under strict, and accept-new records it for the next run', async () => {
      const fresh = join(sshd.dir, 'known_hosts.fresh')
      writeFileSync(fresh, '')
      const [strict] = await probeNodesOverSshForFacts([node()], {...options, knownHostsFiles: [fresh]})
      assert.match(strict.reason ?? '', /^host-key: not in .*known_hosts\.fresh \(offered ED25519 SHA256:.*--host-key-policy accept-new$/)

      const [accepted] = await probeNodesOverSshForFacts([node()], {...options, knownHostsFiles: [fresh], hostKeyPolicy: 'accept-new'})
      assert.equal(accepted.reachable, true, accepted.reason)
      assert.equal(readFileSync(fresh, 'utf8'), `[127.0.0.1]:${sshd.port} ${sshd.hostKeyLine}\n`)
      const [again] = await probeNodesOverSshForFacts([node()], {...options, knownHostsFiles: [fresh]})
      assert.equal(again.reachable, true, again.reason)
    })

    it('accepts hashed known_hosts entries, as ssh-keygen -H writes them', async () => {
      const hashed = join(sshd.dir, 'known_hosts.hashed')
      writeFileSync(hashed, readFileSync(sshd.knownHosts))
      execFileSync('ssh-keygen', ['-q', '-H', '-f', hashed], {stdio: 'ignore'})
      assert.match(readFileSync(hashed, 'utf8'), /^\|1\|/)
      const [probed] = await probeNodesOverSshForFacts([node()], {...options, knownHostsFiles: [hashed]})
      assert.equal(probed.reachable, true, probed.reason)
    })
  })

  it(`probes ${FLEET_SIZE} hosts at once (127.0.0.1…127.0.0.${FLEET_SIZE})`, async () => {
    const probed = await probeNodesOverSshForFacts(
      sshd.addresses.map((_, index) => node(index)),
      options,
    )
    assert.deepEqual(
      probed.map((one) => [one.origin, one.reachable, one.reason]),
      sshd.addresses.map((address) => [`${TEST_USER}@${address}:${sshd.port}`, true, undefined]),
    )
  })

  it('reaches a node through a jump host (--jump), and through ProxyJump and a Host alias from ~/.ssh/config', async () => {
    const bastion: SshTarget = {host: '127.0.0.1', port: sshd.port, user: TEST_USER}
    const [jumped] = await probeNodesOverSshForFacts([node(1)], {...options, jump: [bastion]})
    assert.equal(jumped.reachable, true, jumped.reason)

    const config = join(sshd.dir, 'ssh_config')
    writeFileSync(
      config,
      [
        'Host bastion',
        '  HostName 127.0.0.1',
        'Host node-3',
        '  HostName 127.0.0.3',
        '  ProxyJump bastion',
        'Host *',
        `  User ${TEST_USER}`,
        `  Port ${sshd.port}`,
        `  IdentityFile ${sshd.clientKey}`,
        '',
      ].join('\n'),
    )
    const [aliased] = await probeNodesOverSshForFacts([{host: 'node-3'}], {...options, identityFiles: [], sshConfigFile: config})
    assert.equal(aliased.reachable, true, aliased.reason)
    assert.equal(aliased.origin, `${TEST_USER}@127.0.0.3:${sshd.port}`)
  })

  describe('keys', () => {
    let agent: ChildProcess | undefined
    after(() => agent?.kill())

    it('logs in with a key held by ssh-agent ($SSH_AUTH_SOCK)', async () => {
      const socket = join(sshd.dir, 'agent.sock')
      agent = spawn('ssh-agent', ['-D', '-a', socket], {stdio: 'ignore'})
      await waitFor(() => execFileSync('ssh-add', ['-l'], {env: {SSH_AUTH_SOCK: socket}, stdio: 'ignore'}))
      execFileSync('ssh-add', [sshd.clientKey], {env: {SSH_AUTH_SOCK: socket}, stdio: 'ignore'})
      const [probed] = await probeNodesOverSshForFacts([node()], {...options, identityFiles: [], agentSocket: socket})
      assert.equal(probed.reachable, true, probed.reason)
    })

    it('opens an encrypted --identity with the passphrase from the environment, and says what is wrong without it', async () => {
      const encrypted = join(sshd.dir, 'encrypted_ed25519')
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'correct horse', '-f', encrypted])
      appendFileSync(join(sshd.dir, 'authorized_keys'), readFileSync(`${encrypted}.pub`))
      const [probed] = await probeNodesOverSshForFacts([node()], {...options, identityFiles: [encrypted], passphrase: 'correct horse'})
      assert.equal(probed.reachable, true, probed.reason)

      const refusal = (passphrase?: string) => probeNodesOverSshForFacts([node()], {...options, identityFiles: [encrypted], ...(passphrase ? {passphrase} : {})})
      await assert.rejects(refusal(), (error: unknown) => error instanceof UsageError && /--identity .*encrypted_ed25519: the key is encrypted; put its passphrase in \$KPX_SSH_PASSPHRASE/.test(error.message))
      await assert.rejects(refusal('wrong'), (error: unknown) => error instanceof UsageError && /cannot open the key with the passphrase in \$KPX_SSH_PASSPHRASE/.test(error.message))
    })
  })
})

async function waitFor(check: () => unknown, tries = 50): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      check()
      return
    } catch (error) {
      // ssh-add -l exits 1 ("no identities") once the agent answers, 2 while it does not.
      if ((error as {status?: number}).status === 1 || attempt >= tries) return
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}
