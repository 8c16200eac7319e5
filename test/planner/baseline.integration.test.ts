import assert from 'node:assert/strict'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {request} from 'node:https'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, afterEach, before, beforeEach, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {type ApiServer, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {FIXTURES} from '../helpers/paths.js'

const bundle = (name: string) => join(FIXTURES, 'bundles', name)
/** Both fail node/kernel-version (a blocker); the Debian node fails node/localhost-nodeports instead. */
const RHEL8 = bundle('rhel-8.10-firewalld.facts')
const UBUNTU_2004 = bundle('ubuntu-20.04-ipvs-nonroot.facts')
const DEBIAN_12 = bundle('debian-12-iptables-root.facts')

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-baseline-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

async function check(args: string[]): Promise<{code: null | number; report: Report; stdout: string}> {
  const {code, stdout, stderr} = await runCli(['node', ...args, '--json'])
  assert.ok(stdout.startsWith('{'), stderr)
  return {code, report: JSON.parse(stdout) as Report, stdout}
}

async function baselineOf(name: string, facts: string[]): Promise<string> {
  const path = join(workdir, name)
  const {stdout} = await check(facts.flatMap((file) => ['--facts', file]))
  writeFileSync(path, stdout)
  return path
}

describe('kpx-check node --baseline', () => {
  it('the same failures as the baseline: the verdict stays no-go, the exit code is 0', async () => {
    const baseline = await baselineOf('same.json', [RHEL8])
    const {code, report} = await check(['--facts', RHEL8, '--baseline', baseline])
    assert.equal(report.verdict, 'no-go', 'the verdict still describes the nodes')
    assert.equal(code, 0, 'nothing new to gate on')
    assert.equal(report.baseline?.new, 0)
    // The RHEL 8.10 node: kernel-version, host-firewall and os-distro fail; iptables-backend-mix is unknown, and so is
    // nft-version and nft-json, as the nft in kube-proxy's image was not read on the host; ruleset-flush, rollback-target and
    // native-nft-rules, whose sections the bundle predates.
    assert.equal(report.baseline?.existing, 9)
    // consistency: the baseline counts every finding the summary counts as not passed.
    assert.equal(report.baseline?.existing, report.summary.blockers + report.summary.warnings + report.summary.info + report.summary.unknown)
    assert.ok(report.findings.filter((finding) => finding.status === 'fail').every((finding) => finding.baseline === 'existing'))
  })

  it('a node added since the baseline brings new blockers: exit 3, and only they are marked new', async () => {
    const baseline = await baselineOf('one-node.json', [RHEL8])
    const {code, report} = await check(['--facts', RHEL8, '--facts', UBUNTU_2004, '--baseline', baseline])
    assert.equal(code, 3)
    const fresh = report.findings.filter((finding) => finding.baseline === 'new')
    // The Ubuntu 20.04 node (kernel 5.4, ipvs, a second NIC, run without root): four failures, nine unknowns (nft-version's and
    // nft-json's among them: the nft in kube-proxy's image was not read on the host; input-only-firewall's: no nft; and the
    // three whose sections the bundle predates).
    assert.deepEqual(
      fresh.filter((finding) => finding.status === 'fail').map((finding) => finding.rule).toSorted(),
      ['node/ipvs-other-users', 'node/kernel-version', 'node/nodeport-addresses', 'node/os-distro'],
    )
    assert.equal(fresh.length, 13)
    assert.equal(report.baseline?.new, 13)
    assert.ok(fresh.every((finding) => finding.subject.name === 'ip-10-0-1-23'), 'the RHEL node\'s findings are old news')
  })

  it('reports what got fixed since the baseline', async () => {
    const baseline = await baselineOf('two-nodes.json', [RHEL8, DEBIAN_12])
    const {report} = await check(['--facts', DEBIAN_12, '--baseline', baseline])
    assert.ok(report.baseline!.fixed.some((fixed) => fixed.rule === 'node/kernel-version' && fixed.subject.name === 'rhel8-worker-07.corp.example' && fixed.was === 'fail'))
    const text = await runCli(['node', '--facts', DEBIAN_12, '--baseline', baseline])
    assert.match(text.stdout, /fixed: node\/kernel-version on Node rhel8-worker-07\.corp\.example/)
  })

  it('a baseline of other nodes only (another machine\'s report) is refused with exit 2; one sharing a node is taken', async () => {
    const baseline = await baselineOf('rhel-only.json', [RHEL8])
    const other = await runCli(['node', '--facts', DEBIAN_12, '--baseline', baseline])
    assert.equal(other.code, 2)
    assert.match(other.stderr, /--baseline .*rhel-only\.json: a report of other nodes \(rhel8-worker-07\.corp\.example\), and this run checks worker-bookworm-1: its findings are not these nodes'/)
    assert.equal(other.stdout, '', 'no report for a refused baseline')
    const sharing = await check(['--facts', DEBIAN_12, '--facts', RHEL8, '--baseline', baseline])
    assert.equal(sharing.report.baseline?.file, baseline)
  })

  it('a file that is not a kpx-check report is a usage error (exit 2)', async () => {
    const notReport = join(workdir, 'other.json')
    writeFileSync(notReport, '{"kind": "List"}')
    const {code, stderr} = await runCli(['node', '--facts', RHEL8, '--baseline', notReport])
    assert.equal(code, 2)
    assert.match(stderr, /--baseline .*other\.json: not a kpx-check report/)
    // A fleet's report holds a report per cluster: which one is meant is for the user to say.
    const fleet = join(workdir, 'fleet.json')
    writeFileSync(fleet, '{"schemaVersion": "kpx-check-fleet/v1", "kind": "fleet", "clusters": []}')
    const fromFleet = await runCli(['node', '--facts', RHEL8, '--baseline', fleet])
    assert.equal(fromFleet.code, 2)
    assert.match(fromFleet.stderr, /--baseline .*fleet\.json: a fleet's report, and a baseline is one cluster's/)
    const missing = await runCli(['node', '--facts', RHEL8, '--baseline', join(workdir, 'nope.json')])
    assert.equal(missing.code, 2)
    assert.match(missing.stderr, /no such file/)
  })
})

describe('kpx-check cluster --baseline: gates node by node', () => {
  /*
   * One API server for a test's runs: the same cluster, at one address, as it changes (a --baseline of another is
   * refused). Serving it again at the address of a server closed before would race: between the two, the kernel may
   * give that port to another test file's client or server, and the second listen fails with EADDRINUSE.
   */
  let server: ApiServer
  let kubeconfig: string
  beforeEach(async () => {
    server = await startApiServer({scenario: 'kubeadm-calico'})
    kubeconfig = writeKubeconfig(mkdtempSync(join(workdir, 'cluster-')), server)
  })
  afterEach(() => server.close())

  async function clusterRun(args: string[]): Promise<{code: null | number; report: Report; stdout: string}> {
    const {code, stdout, stderr} = await runCli(['cluster', '--kubeconfig', kubeconfig, ...args, '--json'])
    assert.ok(stdout.startsWith('{'), stderr)
    return {code, report: JSON.parse(stdout) as Report, stdout}
  }

  async function baselineRun(name: string): Promise<string> {
    const path = join(workdir, name)
    writeFileSync(path, (await clusterRun([])).stdout)
    return path
  }

  /** kubeadm-calico's three nodes have kernel 4.18 (kernel-version fails on each); a fourth like them joins, as its kubelet registers its Node. */
  async function joinWorker(): Promise<void> {
    const worker = structuredClone(server.objects('/api/v1/nodes').find((node) => node.metadata?.name === 'k8s-worker-02')!)
    worker.metadata = {...worker.metadata, name: 'k8s-worker-03', uid: undefined, resourceVersion: undefined, creationTimestamp: undefined}
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const registering = request(new URL('/api/v1/nodes', server.url), {method: 'POST', ca: server.ca, headers: {Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json'}})
      registering.on('error', reject).on('response', (response) => resolve(response.resume().statusCode))
      registering.end(JSON.stringify(worker))
    })
    assert.equal(status, 201)
  }

  it('the same cluster again: every check existing, exit 0 though the verdict is still no-go', async () => {
    const path = await baselineRun('cluster-baseline.json')
    const {code, report} = await clusterRun(['--baseline', path])
    assert.equal(report.verdict, 'no-go')
    assert.equal(code, 0)
    assert.equal(report.baseline?.new, 0)
    const marks = new Set(report.nodes.flatMap((node) => Object.values(node.checks).filter((check) => check.status === 'fail' || check.status === 'unknown').map((check) => check.baseline)))
    assert.deepEqual(marks, new Set(['existing']))
  })

  it('a node that joined since: its checks are new, the others existing, and its unknowns (summed up with the others\' in one finding) gate the run', async () => {
    const path = await baselineRun('cluster-baseline-3.json')
    await joinWorker()
    const {code, report} = await clusterRun(['--baseline', path])
    assert.equal(code, 3, 'its kernel-version blocker is new')
    const fresh = report.nodes.find((node) => node.name === 'k8s-worker-03')!
    assert.equal(fresh.checks['node/kernel-version'].baseline, 'new')
    assert.equal(fresh.checks['node/nft-version'].baseline, 'new')
    assert.equal(report.nodes.find((node) => node.name === 'k8s-worker-01')!.checks['node/nft-version'].baseline, 'existing')
    const folded = report.findings.find((finding) => finding.rule === 'node/nft-version' && finding.subject.kind === 'Cluster')!
    assert.equal(folded.baseline, 'new', 'a sum over nodes is new when one of its nodes is')
  })

  it('its unknowns alone gate the run: with the new node\'s kernel blocker waived, exit 5 (incomplete)', async () => {
    const path = await baselineRun('cluster-baseline-unknowns.json')
    await joinWorker()
    const waivers = join(workdir, 'new-worker-waivers.yaml')
    writeFileSync(waivers, ['waivers:', '  - rule: node/kernel-version', '    subject: node/k8s-worker-03', '    reason: Replaced next week (CHG-2001)', ''].join('\n'))
    const {code} = await clusterRun(['--baseline', path, '--waivers', waivers])
    assert.equal(code, 5)
  })

  it('a baseline from a node run is refused for a cluster run (exit 2), and the other way round', async () => {
    const nodeBaseline = await baselineOf('node-run.json', [RHEL8])
    const refused = await runCli(['cluster', '--kubeconfig', kubeconfig, '--baseline', nodeBaseline])
    assert.equal(refused.code, 2)
    assert.match(refused.stderr, /--baseline .*node-run\.json: a report of `kpx-check node`, and this is `kpx-check cluster`/)

    const clusterBaseline = await baselineRun('cluster-for-node.json')
    const {code, stderr} = await runCli(['node', '--facts', RHEL8, '--baseline', clusterBaseline])
    assert.equal(code, 2)
    assert.match(stderr, /a report of `kpx-check cluster`, and this is `kpx-check node`/)
  })
})
