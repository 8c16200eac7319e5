/**
 * `kpx-check cluster --node-probe ssh`: an HTTPS API server serving the AKS scenario with its
 * Nodes' InternalIPs on loopback, and a real sshd there. Only 127.0.0.0/8 is ever dialled: the
 * third Node has only an ExternalIP outside it, which the default template does not use.
 */
import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {release, tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {nodeTargets, unmatchedInventory} from '../../src/derive/ssh-targets.js'
import type {KubeObject} from '../../src/sources/cluster/snapshot.js'
import {checkHostTemplate} from '../../src/sources/ssh/host-template.js'
import {UsageError} from '../../src/util/errors.js'
import {loadScenario, type Scenario} from '../helpers/apiserver-scenario.js'
import {type ApiServer, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {skipSuiteOutsideCi} from '../helpers/ci.js'
import {runCli} from '../helpers/cli.js'
import {validateReport} from '../helpers/schemas.js'
import {sshdUnavailable, startSshd, TEST_USER, type TestSshd} from '../helpers/sshd.js'


const NODES = ['aks-nodepool1-38290314-vmss000000', 'aks-nodepool1-38290314-vmss000001', 'aks-nodepool1-38290314-vmss000002']

/** This machine's machine-id and os-release PRETTY_NAME: what its kubelet would report as nodeInfo.machineID and osImage. */
const MACHINE_ID = readFileSync('/etc/machine-id', 'utf8').trim()
const PRETTY_NAME = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? ''
/** A machine-id of no machine here: another machine's. */
const OTHER_MACHINE_ID = '0123456789abcdef0123456789abcdef'

/**
 * The AKS scenario with the Nodes at 127.0.0.2 and 127.0.0.3, and the third with no InternalIP (only an
 * ExternalIP, never dialled). The first two stand for this machine, which the test sshd runs on: their
 * kubelets report its kernel, OS and machine-id (`machineIDs` replaces the second's).
 */
function loopbackScenario(machineIDs: readonly string[] = [MACHINE_ID, MACHINE_ID]): Scenario {
  const scenario = loadScenario('aks')
  const addresses = [
    [{type: 'InternalIP', address: '127.0.0.2'}],
    [{type: 'InternalIP', address: '127.0.0.3'}],
    [{type: 'ExternalIP', address: '10.255.255.1'}],
  ]
  const nodes = scenario.objects['/api/v1/nodes'] as Array<KubeObject & {status: {addresses: unknown; nodeInfo: Record<string, string>}}>
  assert.deepEqual(
    nodes.map((node) => node.metadata?.name),
    NODES,
  )
  for (const [index, node] of nodes.entries()) node.status.addresses = addresses[index]
  for (const [index, machineID] of machineIDs.entries()) {
    Object.assign(nodes[index].status.nodeInfo, {kernelVersion: release(), osImage: PRETTY_NAME, machineID})
  }

  return scenario
}

const node = (name: string, addresses: Array<{address: string; type: string}>, os = 'linux'): KubeObject =>
  ({metadata: {name, labels: {'kubernetes.io/os': os}}, status: {addresses}}) as KubeObject

describe('Nodes as SSH targets', () => {
  const nodes = [
    node('n1', [{type: 'InternalIP', address: '10.0.0.1'}]),
    node('n2', [{type: 'ExternalIP', address: '192.0.2.2'}]),
    node('win', [{type: 'InternalIP', address: '10.0.0.9'}], 'windows'),
  ]

  it('takes the InternalIP by default, names targets after the Node, skips Windows, and says which Nodes have no address', () => {
    const {targets, unaddressed} = nodeTargets(nodes, {hostTemplate: '{internalIP}', user: 'ops'})
    assert.deepEqual(targets, [{host: '10.0.0.1', name: 'n1', user: 'ops'}])
    assert.deepEqual([...unaddressed], [['n2', 'no InternalIP to reach it over SSH']])
  })

  it('fills {name} and {externalIP} from a template', () => {
    assert.deepEqual(nodeTargets(nodes, {hostTemplate: '{name}.nodes.example.com'}).targets.map((target) => target.host), ['n1.nodes.example.com', 'n2.nodes.example.com'])
    const external = nodeTargets(nodes, {hostTemplate: '{externalIP}'})
    assert.deepEqual(external.targets, [{host: '192.0.2.2', name: 'n2'}])
    assert.deepEqual([...external.unaddressed], [['n1', 'no ExternalIP to reach it over SSH']])
  })

  it('refuses templates that cannot give a host, naming the flag', () => {
    for (const template of ['{internalIP}:22', 'root@{name}', '{hostname}', 'a b']) {
      assert.throws(() => checkHostTemplate(template), (error: unknown) => error instanceof UsageError && error.message.startsWith(`--ssh-host-template ${template}:`))
    }
  })

  it('reports inventory hosts that are no Node, by name or InternalIP', () => {
    assert.deepEqual(unmatchedInventory([{host: '10.0.0.1'}, {host: 'n2'}, {host: '10.1.1.1', name: 'n1'}, {host: 'stray'}, {host: '10.9.9.9', name: 'alias'}], nodes), ['stray', 'alias'])
  })
})

describe('cluster --node-probe ssh flags', () => {
  it('refuses SSH flags without --node-probe ssh, and a bad template, with exit code 2', async () => {
    const bare = await runCli(['cluster', '--snapshot', 'unused.json', '--sudo', '--ssh-user', 'ops'])
    assert.equal(bare.code, 2)
    assert.match(bare.stderr, /--sudo, --ssh-user only apply with --node-probe ssh/)
    const template = await runCli(['cluster', '--snapshot', 'unused.json', '--node-probe', 'ssh', '--ssh-host-template', '{internalIP}:22'])
    assert.equal(template.code, 2)
    assert.match(template.stderr, /--ssh-host-template \{internalIP\}:22: gives "10\.0\.0\.1:22", not a host name/)
  })
})

describe('cluster --node-probe ssh against a real sshd', {skip: skipSuiteOutsideCi(sshdUnavailable())}, () => {
  let sshd: TestSshd
  let server: ApiServer
  let dir: string
  let kubeconfig: string
  let sshConfig: string

  before(async () => {
    ;[sshd, server] = await Promise.all([startSshd({addresses: 3}), startApiServer({scenario: loopbackScenario()})])
    dir = mkdtempSync(join(tmpdir(), 'kpx-node-probe-'))
    kubeconfig = writeKubeconfig(dir, server)
    // The test sshd listens on a random port: ~/.ssh/config's way of saying so.
    sshConfig = join(dir, 'ssh_config')
    writeFileSync(sshConfig, `Host *\n  Port ${sshd.port}\n`)
  })
  after(async () => {
    await Promise.all([sshd?.stop(), server?.close()])
    if (dir) rmSync(dir, {recursive: true, force: true})
  })

  async function probe(args: string[]): Promise<{code: null | number; report: Report; stderr: string}> {
    const sshArgs = ['--node-probe', 'ssh', '--ssh-user', TEST_USER, '--identity', sshd.clientKey, '--ssh-config', sshConfig, '--timeout', '15']
    const {code, stdout, stderr} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--json', ...sshArgs, ...args])
    assert.equal(stdout.trimStart()[0], '{', `stdout is the report only:\n${stdout}\n${stderr}`)
    const report = JSON.parse(stdout) as Report
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
    assert.equal(report.exitCode, code)
    return {code, report, stderr}
  }

  const row = (report: Report, name: string) => report.nodes.find((entry) => entry.name === name)!

  it("merges the probed nodes' facts into the cluster report, and reports the Node it cannot reach and the stray inventory host", async () => {
    const inventory = join(dir, 'hosts')
    writeFileSync(inventory, `127.0.0.2\n${NODES[1]}\nstray.example.com\n`)
    const {code, report} = await probe(['--known-hosts', sshd.knownHosts, '--inventory', inventory])

    for (const name of NODES.slice(0, 2)) {
      const entry = row(report, name)
      assert.equal(entry.source, 'ssh')
      assert.equal(entry.reachable, true, entry.reason)
      assert.equal(entry.kernelRelease, release())
      assert.match(entry.origin, new RegExp(String.raw`^${TEST_USER}@127\.0\.0\.[23]:${sshd.port}$`))
    }

    assert.deepEqual(row(report, NODES[2]), {...row(report, NODES[2]), source: 'api', reachable: false, reason: 'no InternalIP to reach it over SSH'})
    assert.ok(report.nodes.every((entry) => !entry.origin.includes('10.255.255.1')))
    assert.deepEqual(report.cluster?.unmatchedInventory, ['stray.example.com'])

    // Unknown from the API, decided for the probed nodes; still unknown (summed up) for the third.
    // (Node passes are summed up in one finding; the unknowns of nodes the API describes too.)
    const nftKernel = report.findings.filter((finding) => finding.rule === 'node/nf-tables-kernel')
    const decided = nftKernel.filter((finding) => finding.status !== 'unknown')
    assert.ok(decided.length > 0 && !nftKernel.some((finding) => finding.status === 'unknown' && NODES.slice(0, 2).includes(finding.subject.name)), JSON.stringify(nftKernel))
    const passed = decided.filter((finding) => finding.status === 'pass').map((finding) => finding.message).join(' ')
    const failed = decided.filter((finding) => finding.status === 'fail').map((finding) => finding.subject.name)
    assert.equal(Number(/^(\d+) Node\(s\) pass/.exec(passed)?.[1] ?? 0) + failed.length, 2, JSON.stringify(decided))

    const summary = nftKernel.find((finding) => finding.status === 'unknown')
    assert.equal(summary?.status, 'unknown')
    assert.match(summary?.message ?? '', /^1 node\(s\), e\.g\. aks-nodepool1-38290314-vmss000002:/)
    assert.notEqual(report.verdict, 'go')
    assert.equal(code, report.exitCode)
  })

  it('a known_hosts with another key: those nodes are unreachable with a host-key reason, and the verdict is not go', async () => {
    const otherKey = join(dir, 'other_key')
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', otherKey])
    const wrong = join(dir, 'known_hosts.wrong')
    const line = readFileSync(`${otherKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')
    writeFileSync(wrong, ['127.0.0.2', '127.0.0.3'].map((address) => `[${address}]:${sshd.port} ${line}\n`).join(''))
    const {code, report} = await probe(['--known-hosts', wrong])
    for (const name of NODES.slice(0, 2)) {
      const entry = row(report, name)
      assert.deepEqual([entry.source, entry.reachable], ['ssh', false])
      assert.match(entry.reason ?? '', /^host-key: /)
    }

    assert.notEqual(report.verdict, 'go')
    assert.notEqual(code, 0)
  })

  it("a Node whose machine-id is another machine's: SSH reached the wrong machine, so that node's facts are not used", async () => {
    const other = await startApiServer({scenario: loopbackScenario([MACHINE_ID, OTHER_MACHINE_ID])})
    try {
      const sshArgs = ['--node-probe', 'ssh', '--ssh-user', TEST_USER, '--identity', sshd.clientKey, '--ssh-config', sshConfig, '--timeout', '15', '--known-hosts', sshd.knownHosts]
      const {code, stdout} = await runCli(['cluster', '--kubeconfig', writeKubeconfig(mkdtempSync(join(dir, 'other-')), other), '--json', ...sshArgs])
      const report = JSON.parse(stdout) as Report
      assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
      assert.equal(row(report, NODES[0]).reachable, true, 'the machine SSH reached is the first Node')
      const wrong = row(report, NODES[1])
      assert.deepEqual([wrong.source, wrong.reachable], ['ssh', false])
      assert.match(wrong.reason ?? '', new RegExp(String.raw`^contradicts the live Node, so none of its facts are used: machine-id "${MACHINE_ID}" \(the machine SSH reached ${TEST_USER}@127\.0\.0\.3:${sshd.port}, host [^)]+\) is not "${OTHER_MACHINE_ID}" \(the Node's status\.nodeInfo\.machineID\)$`))
      assert.equal(wrong.checks['node/nf-tables-kernel'].status, 'unknown')
      assert.notEqual(report.verdict, 'go')
      assert.notEqual(code, 0)
    } finally {
      await other.close()
    }
  })
})
