import assert from 'node:assert/strict'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {GatedFinding, Status} from '../../src/contract/finding.js'
import type {NodeReport, Report} from '../../src/contract/report.js'
import {type Baseline, compareWithBaseline, openResults} from '../../src/planner/baseline.js'
import {loadScenario, type Scenario} from '../helpers/apiserver-scenario.js'
import {startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
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

function finding(rule: string, name: string, status: Status): GatedFinding {
  return {rule, title: rule, status, severity: 'blocker', confidence: 'verified', subject: {kind: 'Node', name}, message: 'm', evidence: {}, remediation: [], references: []}
}

/** The earlier report's failed and unknown findings, each given as rule, node and status. */
function baseline(entries: Array<[string, string, 'fail' | 'unknown']>): Baseline {
  return {
    file: 'before.json',
    generatedAt: '2026-11-01T08:00:00Z',
    findings: new Map(entries.map(([rule, name, status]) => [`${rule} node/${name}`, {rule, subject: {kind: 'Node', name}, status}])),
    nodeRecords: new Map(),
  }
}

describe('comparing with a baseline', () => {
  it('marks a failure or unknown the baseline had with the same status existing, and others new', () => {
    const {findings, summary} = compareWithBaseline(
      [finding('node/kernel-version', 'a', 'fail'), finding('node/kernel-version', 'b', 'fail'), finding('node/nft-version', 'a', 'unknown'), finding('node/os-distro', 'a', 'unknown')],
      [],
      baseline([['node/kernel-version', 'a', 'fail'], ['node/nft-version', 'a', 'unknown'], ['node/os-distro', 'a', 'fail']]),
    )
    // node/os-distro was a failure and is unknown now: another finding, so new.
    assert.deepEqual(findings.map((marked) => marked.baseline), ['existing', 'new', 'existing', 'new'])
    assert.deepEqual(summary, {file: 'before.json', generatedAt: '2026-11-01T08:00:00Z', new: 2, existing: 2, fixed: []})
  })

  it('gates on objects new since the baseline, and compares a baseline from before findings named their objects by rule, saying so', () => {
    const onService = (name: string): GatedFinding => ({...finding('cluster/external-ips', name, 'fail'), subject: {kind: 'Service', namespace: 'web', name}})
    const byObject: Baseline = {file: 'before.json', generatedAt: '', findings: new Map([['cluster/external-ips service/web/a', {rule: 'cluster/external-ips', subject: {kind: 'Service', namespace: 'web', name: 'a'}, status: 'fail'}]]), nodeRecords: new Map()}
    const now = compareWithBaseline([onService('a'), onService('b')], [], byObject)
    assert.deepEqual([now.findings.map((marked) => marked.baseline), now.summary.new, now.summary.notes], [['existing', 'new'], 1, undefined])

    const byRule: Baseline = {file: 'before.json', generatedAt: '', findings: new Map([['cluster/external-ips cluster', {rule: 'cluster/external-ips', subject: {kind: 'Cluster', name: 'cluster'}, status: 'fail'}]]), nodeRecords: new Map()}
    const old = compareWithBaseline([onService('a'), onService('b')], [], byRule)
    assert.deepEqual([old.findings.map((marked) => marked.baseline), old.summary.existing, old.summary.fixed], [['existing', 'existing'], 2, []])
    assert.deepEqual(old.summary.notes, [
      'the baseline has cluster/external-ips about the cluster (a report from before its findings named their objects): 2 finding(s) on objects were compared with that one; write a new baseline to gate on each object',
    ])
  })

  it('leaves passed and skipped findings unmarked and uncounted', () => {
    const passed = finding('node/kernel-version', 'a', 'pass')
    const skipped = finding('node/nft-version', 'a', 'skip')
    const {findings, summary} = compareWithBaseline([passed, skipped], [], baseline([]))
    assert.deepEqual(findings, [passed, skipped])
    assert.equal(summary.new + summary.existing, 0)
  })

  it('lists as fixed what the baseline had that neither fails nor is unknown now, with what it was', () => {
    const {summary} = compareWithBaseline(
      [finding('node/kernel-version', 'a', 'pass'), finding('node/nft-version', 'a', 'fail')],
      [],
      baseline([['node/kernel-version', 'a', 'fail'], ['node/nft-version', 'a', 'unknown'], ['node/os-distro', 'gone', 'unknown']]),
    )
    assert.deepEqual(summary.fixed, [
      {rule: 'node/kernel-version', subject: {kind: 'Node', name: 'a'}, was: 'fail'},
      {rule: 'node/os-distro', subject: {kind: 'Node', name: 'gone'}, was: 'unknown'},
    ])
    assert.equal(summary.new, 1, 'node/nft-version fails now where it was unknown')
  })
})

/** A cluster run's node: only its name and checks matter to the comparison. */
function node(name: string, checks: Record<string, Status>): NodeReport {
  return {
    name,
    source: 'api',
    origin: 'cluster',
    kernelRelease: null,
    os: {id: null, prettyName: null, versionId: null},
    nftVersion: null,
    reachable: true,
    verdict: 'incomplete',
    checks: Object.fromEntries(Object.entries(checks).map(([rule, status]) => [rule, {status, severity: 'blocker', message: 'm'}])),
  }
}

/** A finding about the cluster: for a node rule, its results summed up (a cluster run's folded finding). */
function sumUp(rule: string, status: Status): GatedFinding {
  return {...finding(rule, 'cluster', status), subject: {kind: 'Cluster', name: 'cluster'}}
}

describe('comparing a cluster run with a baseline, node by node', () => {
  it('keeps each node\'s failed or unknown check as its own entry, keyed by the node, and no passed one', () => {
    const {byKey, sums} = openResults(
      [sumUp('node/kernel-version', 'fail'), sumUp('cluster/cni-version', 'fail')],
      [node('n1', {'node/kernel-version': 'fail', 'node/nft-version': 'pass'}), node('n2', {'node/kernel-version': 'unknown'})],
    )
    assert.deepEqual([...byKey], [
      ['node/kernel-version node/n1', {rule: 'node/kernel-version', status: 'fail', subject: {kind: 'Node', name: 'n1'}}],
      ['node/kernel-version node/n2', {rule: 'node/kernel-version', status: 'unknown', subject: {kind: 'Node', name: 'n2'}}],
      ['cluster/cni-version cluster', {rule: 'cluster/cni-version', status: 'fail', subject: {kind: 'Cluster', name: 'cluster'}}],
    ])
    assert.deepEqual([...sums].map((sum) => sum.rule), ['node/kernel-version'], 'the folded finding is a sum of node checks, not an entry')
  })

  it('a node that joined with a failure: its check is new, so is the sum-up finding; the old node\'s check is existing', () => {
    const earlier: Baseline = {file: 'before.json', generatedAt: '2026-11-01T08:00:00Z', findings: openResults([], [node('n1', {'node/kernel-version': 'fail'})]).byKey, nodeRecords: new Map()}
    const {findings, nodes, summary} = compareWithBaseline(
      [sumUp('node/kernel-version', 'fail')],
      [node('n1', {'node/kernel-version': 'fail', 'node/nft-version': 'pass'}), node('n2', {'node/kernel-version': 'fail'})],
      earlier,
    )
    assert.deepEqual(nodes.map((each) => each.checks['node/kernel-version'].baseline), ['existing', 'new'])
    assert.equal(nodes[0].checks['node/nft-version'].baseline, undefined, 'a passed check is not marked')
    assert.equal(findings[0].baseline, 'new')
    assert.deepEqual({new: summary.new, existing: summary.existing, fixed: summary.fixed}, {new: 1, existing: 1, fixed: []})
  })

  it('the sum-up finding is existing when every node\'s check is; a node gone is fixed', () => {
    const earlier: Baseline = {
      file: 'before.json',
      generatedAt: '2026-11-01T08:00:00Z',
      findings: openResults([], [node('n1', {'node/kernel-version': 'fail'}), node('gone', {'node/kernel-version': 'unknown'})]).byKey,
      nodeRecords: new Map(),
    }
    const {findings, summary} = compareWithBaseline([sumUp('node/kernel-version', 'fail')], [node('n1', {'node/kernel-version': 'fail'})], earlier)
    assert.equal(findings[0].baseline, 'existing')
    assert.deepEqual(summary.fixed, [{rule: 'node/kernel-version', subject: {kind: 'Node', name: 'gone'}, was: 'unknown'}])
  })

  it('a node check whose status changed (unknown, now failed) is new', () => {
    const earlier: Baseline = {file: 'before.json', generatedAt: '2026-11-01T08:00:00Z', findings: openResults([], [node('n1', {'node/kernel-version': 'unknown'})]).byKey, nodeRecords: new Map()}
    const {findings, nodes} = compareWithBaseline([sumUp('node/kernel-version', 'fail')], [node('n1', {'node/kernel-version': 'fail'})], earlier)
    assert.equal(nodes[0].checks['node/kernel-version'].baseline, 'new')
    assert.equal(findings[0].baseline, 'new')
  })
})

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
  const NODES = '/api/v1/nodes'
  /** kubeadm-calico's three nodes (kernel 4.18: kernel-version fails on each), and a fourth that joined later. */
  function withNewWorker(): Scenario {
    const scenario = loadScenario('kubeadm-calico')
    const worker = structuredClone(scenario.objects[NODES].find((node) => node.metadata?.name === 'k8s-worker-02')!)
    worker.metadata = {...worker.metadata, name: 'k8s-worker-03'}
    return {...scenario, objects: {...scenario.objects, [NODES]: [...scenario.objects[NODES], worker]}}
  }

  /** One address for every run: the same cluster, as it changes (a --baseline of another is refused). */
  let port: number | undefined
  async function clusterRun(scenario: Scenario | string, args: string[]): Promise<{code: null | number; report: Report; stdout: string}> {
    const server = await startApiServer({scenario, port})
    port = Number(new URL(server.url).port)
    try {
      const {code, stdout, stderr} = await runCli(['cluster', '--kubeconfig', writeKubeconfig(mkdtempSync(join(workdir, 'cluster-')), server), ...args, '--json'])
      assert.ok(stdout.startsWith('{'), stderr)
      return {code, report: JSON.parse(stdout) as Report, stdout}
    } finally {
      await server.close()
    }
  }

  it('the same cluster again: every check existing, exit 0 though the verdict is still no-go', async () => {
    const path = join(workdir, 'cluster-baseline.json')
    writeFileSync(path, (await clusterRun('kubeadm-calico', [])).stdout)
    const {code, report} = await clusterRun('kubeadm-calico', ['--baseline', path])
    assert.equal(report.verdict, 'no-go')
    assert.equal(code, 0)
    assert.equal(report.baseline?.new, 0)
    const marks = new Set(report.nodes.flatMap((node) => Object.values(node.checks).filter((check) => check.status === 'fail' || check.status === 'unknown').map((check) => check.baseline)))
    assert.deepEqual(marks, new Set(['existing']))
  })

  it('a node that joined since: its checks are new, the others existing, and its unknowns (summed up with the others\' in one finding) gate the run', async () => {
    const path = join(workdir, 'cluster-baseline-3.json')
    writeFileSync(path, (await clusterRun('kubeadm-calico', [])).stdout)
    const {code, report} = await clusterRun(withNewWorker(), ['--baseline', path])
    assert.equal(code, 3, 'its kernel-version blocker is new')
    const fresh = report.nodes.find((node) => node.name === 'k8s-worker-03')!
    assert.equal(fresh.checks['node/kernel-version'].baseline, 'new')
    assert.equal(fresh.checks['node/nft-version'].baseline, 'new')
    assert.equal(report.nodes.find((node) => node.name === 'k8s-worker-01')!.checks['node/nft-version'].baseline, 'existing')
    const folded = report.findings.find((finding) => finding.rule === 'node/nft-version' && finding.subject.kind === 'Cluster')!
    assert.equal(folded.baseline, 'new', 'a sum over nodes is new when one of its nodes is')
  })

  it('its unknowns alone gate the run: with the new node\'s kernel blocker waived, exit 5 (incomplete)', async () => {
    const path = join(workdir, 'cluster-baseline-unknowns.json')
    writeFileSync(path, (await clusterRun('kubeadm-calico', [])).stdout)
    const waivers = join(workdir, 'new-worker-waivers.yaml')
    writeFileSync(waivers, ['waivers:', '  - rule: node/kernel-version', '    subject: node/k8s-worker-03', '    reason: Replaced next week (CHG-2001)', ''].join('\n'))
    const {code} = await clusterRun(withNewWorker(), ['--baseline', path, '--waivers', waivers])
    assert.equal(code, 5)
  })

  it('a baseline from a node run is refused for a cluster run (exit 2), and the other way round', async () => {
    const nodeBaseline = await baselineOf('node-run.json', [RHEL8])
    const server = await startApiServer({scenario: 'kubeadm-calico'})
    try {
      const {code, stderr} = await runCli(['cluster', '--kubeconfig', writeKubeconfig(mkdtempSync(join(workdir, 'refuse-')), server), '--baseline', nodeBaseline])
      assert.equal(code, 2)
      assert.match(stderr, /--baseline .*node-run\.json: a report of `kpx-check node`, and this is `kpx-check cluster`/)
    } finally {
      await server.close()
    }

    const clusterBaseline = join(workdir, 'cluster-for-node.json')
    writeFileSync(clusterBaseline, (await clusterRun('kubeadm-calico', [])).stdout)
    const {code, stderr} = await runCli(['node', '--facts', RHEL8, '--baseline', clusterBaseline])
    assert.equal(code, 2)
    assert.match(stderr, /a report of `kpx-check cluster`, and this is `kpx-check node`/)
  })
})
