/** Every node's own verdict and checks in the JSON report, in node and cluster runs alike, waivers for one node included. */
import assert from 'node:assert/strict'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import type {Scenario} from '../helpers/apiserver-scenario.js'
import {type Fault, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {nodesOfMachine} from '../helpers/captured-bundles.js'
import {runCli} from '../helpers/cli.js'
import {NODE_RULES, SWITCH_CHECK_RULES} from '../helpers/node-rules.js'
import {FIXTURES} from '../helpers/paths.js'
import {validateReport} from '../helpers/schemas.js'

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-node-verdicts-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

/** Every node has a check of each node rule, then of each switched-node check. */
const CHECKS = [...NODE_RULES, ...SWITCH_CHECK_RULES]

/**
 * The verify checks of a node not seen running nftables: skipped as not applicable where it is seen running another
 * mode; unknown, with why, where its mode is not seen at all (through the API alone): it may have switched and be broken.
 */
function assertVerifyWaiting(node: Report['nodes'][number]): void {
  const expected = node.proxyMode?.running ? ['skip', 'not-applicable'] : ['unknown', 'not-collected']
  assert.deepEqual(
    SWITCH_CHECK_RULES.map((rule) => [rule, node.checks[rule].status, node.checks[rule].reason]),
    SWITCH_CHECK_RULES.map((rule) => [rule, ...expected]),
    node.name,
  )
}

async function json(args: string[]): Promise<Report> {
  const {stdout, stderr} = await runCli([...args, '--json'])
  assert.ok(stdout.startsWith('{'), stderr)
  const report = JSON.parse(stdout) as Report
  assert.ok(validateReport(report), JSON.stringify(validateReport.errors))
  return report
}

async function clusterReport(scenario: string, args: string[] = []): Promise<Report> {
  const server = await startApiServer({scenario})
  try {
    return await json(['cluster', '--kubeconfig', writeKubeconfig(mkdtempSync(join(workdir, `${scenario}-`)), server), ...args])
  } finally {
    await server.close()
  }
}

describe('nodes[]: a verdict and a check per node rule on every node', () => {
  it('node run: the RHEL 8.10 node (kernel 4.18) is no-go by its kernel; each check is the node\'s finding (consistency)', async () => {
    const report = await json(['node', '--facts', join(FIXTURES, 'bundles', 'rhel-8.10-firewalld.facts'), '--facts', join(FIXTURES, 'bundles', 'debian-12-iptables-root.facts')])
    const rhel = report.nodes.find((node) => node.name === 'rhel8-worker-07.corp.example')!
    assert.equal(rhel.verdict, 'no-go')
    assert.deepEqual(Object.keys(rhel.checks), CHECKS)
    for (const node of report.nodes) assertVerifyWaiting(node)
    assert.deepEqual({status: rhel.checks['node/kernel-version'].status, severity: rhel.checks['node/kernel-version'].severity}, {status: 'fail', severity: 'blocker'})
    for (const node of report.nodes) {
      for (const [rule, check] of Object.entries(node.checks)) {
        const finding = report.findings.find((candidate) => candidate.rule === rule && candidate.subject.name === node.name)!
        assert.deepEqual([check.status, check.severity, check.message], [finding.status, finding.severity, finding.message], `${node.name} ${rule}`)
      }
    }
  })

  it("cluster run: each kubeadm node (kernel 4.18) has all 19 node checks and the 9 verify checks (unknown: no node's mode is seen through the API alone) and is no-go, though the findings sum the nodes up", async () => {
    const report = await clusterReport('kubeadm-calico')
    assert.deepEqual(
      report.nodes.map((node) => [node.name, node.verdict, Object.keys(node.checks)]),
      ['k8s-cp-01', 'k8s-worker-01', 'k8s-worker-02'].map((name) => [name, 'no-go', CHECKS]),
    )
    for (const node of report.nodes) assertVerifyWaiting(node)
    const worker = report.nodes[1].checks
    assert.deepEqual([worker['node/kernel-version'].status, worker['node/kernel-check-bypass'].status, worker['node/nft-version'].status, worker['node/nft-version'].reason], ['fail', 'pass', 'unknown', 'not-collected'])
    assert.ok(!report.findings.some((finding) => finding.rule === 'node/nft-version' && finding.subject.kind === 'Node'), 'the not-collected unknowns are one finding about the cluster')
  })

  it('cluster run: a waiver for one node applies to that node\'s check and finding, and is not reported unused', async () => {
    const waivers = join(workdir, 'waivers.yaml')
    writeFileSync(waivers, ['waivers:', '  - rule: node/kernel-version', '    subject: node/k8s-worker-01', '    reason: Kernel upgrade booked as CHG-1234', ''].join('\n'))
    const report = await clusterReport('kubeadm-calico', ['--waivers', waivers])
    const [controlPlane, waived] = report.nodes
    assert.equal(waived.checks['node/kernel-version'].waiver?.reason, 'Kernel upgrade booked as CHG-1234')
    // Its kernel waived, the blockers only a node shell can tell (nft, nf_tables, localhost NodePorts) are still unknown.
    assert.equal(waived.verdict, 'incomplete')
    assert.equal(controlPlane.verdict, 'no-go')
    assert.equal(report.findings.find((finding) => finding.rule === 'node/kernel-version' && finding.subject.name === 'k8s-worker-01')?.waiver?.reason, 'Kernel upgrade booked as CHG-1234')
    assert.deepEqual(report.waivers?.unused, [])
  })

  it('a waiver reason under 8 characters, spaces aside, is exit 2 saying the minimum and why; --help says the rule', async () => {
    const waivers = join(workdir, 'short-reason.yaml')
    writeFileSync(waivers, ['waivers:', '  - rule: node/kernel-version', '    reason: "   later    "', ''].join('\n'))
    const {code, stdout, stderr} = await runCli(['node', '--facts', join(FIXTURES, 'bundles', 'debian-12-iptables-root.facts'), '--waivers', waivers, '--json'])
    assert.equal(code, 2, stderr)
    const {error} = JSON.parse(stdout) as {error: {message: string; suggestions: string[]}}
    assert.equal(
      error.message,
      `--waivers ${waivers} is not valid:\n  ${waivers}:3:5 "later" is too short: a reason has at least 8 characters (a ticket, a name), so that the next reader can find out why the risk was accepted`,
    )
    assert.match(error.suggestions[0], /^Each waiver needs rule and reason \(at least 8 characters\);/)
    const help = await runCli(['node', '--help'])
    assert.match(help.stdout.replaceAll(/\s+/g, ' '), /--waivers=FILE YAML file of accepted risks \(rule, subject pattern, reason of at least 8 characters such as a ticket or a name, expires\)/)
  })

  it('cluster run with nothing to migrate: nodes are go with no checks (no node rule runs)', async () => {
    const report = await clusterReport('cilium-kpr')
    assert.ok(report.nodes.length > 0)
    assert.deepEqual(new Set(report.nodes.map((node) => `${node.verdict} ${Object.keys(node.checks).length}`)), new Set(['go 0']))
  })
})

/**
 * The scenarios the tests have, and the 403 case: kube-proxy's ConfigMap refused. Where no kube-proxy
 * runs (GKE Dataplane V2, OpenShift OVN-Kubernetes, Cilium without kube-proxy) there is nothing to migrate.
 */
const SCENARIOS: Array<{faults?: Fault[]; migrates: boolean; name: string; scenario: string}> = [
  {name: 'EKS', scenario: 'eks-old-vpc-cni', migrates: true},
  {name: 'AKS', scenario: 'aks', migrates: true},
  {name: 'GKE Dataplane V2', scenario: 'gke-dataplane-v2', migrates: false},
  {name: 'kubeadm', scenario: 'kubeadm-calico', migrates: true},
  {name: 'k3s', scenario: 'k3s', migrates: true},
  {name: 'OpenShift SDN', scenario: 'openshift-sdn', migrates: true},
  {name: 'OpenShift OVN-Kubernetes', scenario: 'openshift-ovn', migrates: false},
  {name: 'Cilium without kube-proxy', scenario: 'cilium-kpr', migrates: false},
  {name: 'kubeadm, kube-proxy ConfigMap forbidden (403)', scenario: 'kubeadm-calico', faults: [{path: '/api/v1/namespaces/kube-system/configmaps/kube-proxy', kind: 'forbidden'}], migrates: true},
]

/** A real bundle (Debian 12, collected as root), said to come from the named node. */
const DEBIAN_12 = readFileSync(join(FIXTURES, 'bundles', 'debian-12-iptables-root.facts'), 'utf8')
/** Checks of the nft in kube-proxy's image, which a bundle from the host does not show. */
const IMAGE_NFT = new Set(['node/nft-version', 'node/nft-json'])
/** Checks of sections the collector prints since DEBIAN_12 was collected (ruleset-flush, rollback-kernel, iptables-nft-incompatible). */
const SECTIONS_SINCE_THIS_BUNDLE = new Set(['node/ruleset-flush', 'node/rollback-target', 'node/native-nft-rules'])
const bundleFor = (node: string) => DEBIAN_12.replace('### hostname\nworker-bookworm-1\n', `### hostname\n${node}\n`)

/** What the Debian 12 bundle's machine reports as a Node: its kernel and os-release's PRETTY_NAME. */
const DEBIAN_12_MACHINE = {kernelVersion: '6.1.0-18-cloud-amd64', osImage: 'Debian GNU/Linux 12 (bookworm)'}

/** A node's verdict as its checks give it, written out here: a failed blocker is no-go, an unknown one incomplete. */
function verdictOfChecks(checks: Report['nodes'][number]['checks']): string {
  const counted = Object.values(checks).filter((check) => check.severity === 'blocker' && !(check.waiver && !check.waiver.expired))
  if (counted.some((check) => check.status === 'fail')) return 'no-go'
  return counted.some((check) => check.status === 'unknown') ? 'incomplete' : 'go'
}

async function clusterRun(scenario: Scenario | string, faults: Fault[] | undefined, args: string[]): Promise<Report> {
  const server = await startApiServer({scenario, ...(faults ? {faults} : {})})
  try {
    return await json(['cluster', '--kubeconfig', writeKubeconfig(mkdtempSync(join(workdir, 'cluster-')), server), ...args])
  } finally {
    await server.close()
  }
}

describe('every scenario: each Linux node\'s verdict and checks agree with the findings and with its own bundle', () => {
  for (const {name, scenario, faults, migrates} of SCENARIOS) {
    it(`${name}: a verdict and a check per node rule on every Linux node, as the findings say (consistency)`, async () => {
      const report = await clusterRun(scenario, faults, [])
      const linux = report.nodes.filter((node) => !node.windows)
      assert.ok(linux.length > 0)
      assert.equal(report.cluster?.nothingToMigrate, !migrates)
      if (!migrates) {
        assert.deepEqual(new Set(linux.map((node) => `${node.verdict} ${Object.keys(node.checks).length}`)), new Set(['go 0']), 'no node rule runs')
        return
      }

      for (const node of linux) {
        assert.deepEqual(Object.keys(node.checks), CHECKS, node.name)
        if (node.proxyMode?.running !== 'nftables') assertVerifyWaiting(node)
        assert.equal(node.verdict, verdictOfChecks(node.checks), node.name)
        for (const [rule, check] of Object.entries(node.checks)) {
          const own = report.findings.find((finding) => finding.rule === rule && finding.subject.kind === 'Node' && finding.subject.name === node.name)
          // Without a finding of its own, the node is in the finding that sums up the rule's nodes with its status.
          const sum = report.findings.find((finding) => finding.rule === rule && finding.subject.kind === 'Cluster' && finding.status === check.status && finding.reason === check.reason)
          assert.ok(own ? own.status === check.status && own.message === check.message : sum, `${node.name} ${rule}: ${check.status}`)
        }
      }
    })

    if (!migrates) continue
    it(`${name}: with each node's bundle (--facts), no check waits on a node shell, and each agrees with \`node --facts\` on that bundle where it decided`, async () => {
      const apiOnly = await clusterRun(scenario, faults, [])
      const dir = mkdtempSync(join(workdir, `${scenario}-bundles-`))
      const linux = apiOnly.nodes.filter((node) => !node.windows).map((node) => node.name)
      for (const node of linux) writeFileSync(join(dir, `${node}.facts`), bundleFor(node))
      const withBundles = await clusterRun(nodesOfMachine(scenario, DEBIAN_12_MACHINE), faults, ['--facts', dir])
      const alone = await json(['node', '--facts', dir])
      for (const name of linux) {
        const clusterNode = withBundles.nodes.find((node) => node.name === name)!
        assert.equal(clusterNode.source, 'facts', name)
        const own = alone.nodes.find((node) => node.name === name)!
        for (const [rule, check] of Object.entries(clusterNode.checks)) {
          // The nft in kube-proxy's image is read in its pod (--node-probe exec), never in a bundle from the host; and
          // this bundle predates the sections of the rules below, which are then not-collected, as they must be.
          if (SECTIONS_SINCE_THIS_BUNDLE.has(rule)) assert.equal(check.reason, 'not-collected', `${name} ${rule}: ${check.message}`)
          else if (!IMAGE_NFT.has(rule)) assert.notEqual(check.reason, 'not-collected', `${name} ${rule}: ${check.message}`)
          // The cluster run knows what the API adds (kube-proxy's settings); where the bundle alone decided, it says the same.
          if (own.checks[rule].status !== 'unknown') assert.equal(check.status, own.checks[rule].status, `${name} ${rule}: ${check.message} / ${own.checks[rule].message}`)
        }
      }

      assert.equal(withBundles.cluster?.unmatchedBundles, undefined)
    })
  }

  it('a bundle whose hostname names no Node is reported and not used; --facts with --node-probe is refused (exit 2)', async () => {
    const dir = mkdtempSync(join(workdir, 'stray-'))
    writeFileSync(join(dir, 'stray.facts'), bundleFor('not-a-node'))
    const report = await clusterRun('kubeadm-calico', undefined, ['--facts', dir])
    assert.deepEqual(report.cluster?.unmatchedBundles, [`not-a-node (${join(dir, 'stray.facts')})`])
    assert.ok(report.nodes.every((node) => node.source === 'api'))
    const {code, stderr} = await runCli(['cluster', '--facts', dir, '--node-probe', 'ssh'])
    assert.equal(code, 2, stderr)
    assert.match(stderr, /--facts|--node-probe/)
  })
})
