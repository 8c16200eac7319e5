/** Every node's own verdict and checks in the JSON report, in node and cluster runs alike, waivers for one node included. */
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {NODE_RULES} from '../helpers/node-rules.js'
import {FIXTURES} from '../helpers/paths.js'
import {validateReport} from '../helpers/schemas.js'

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-node-verdicts-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

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
    assert.deepEqual(Object.keys(rhel.checks), NODE_RULES)
    assert.deepEqual({status: rhel.checks['node/kernel-version'].status, severity: rhel.checks['node/kernel-version'].severity}, {status: 'fail', severity: 'blocker'})
    for (const node of report.nodes) {
      for (const [rule, check] of Object.entries(node.checks)) {
        const finding = report.findings.find((candidate) => candidate.rule === rule && candidate.subject.name === node.name)!
        assert.deepEqual([check.status, check.severity, check.message], [finding.status, finding.severity, finding.message], `${node.name} ${rule}`)
      }
    }
  })

  it('cluster run: each kubeadm node (kernel 4.18) has all 13 checks and is no-go, though the findings sum the nodes up', async () => {
    const report = await clusterReport('kubeadm-calico')
    assert.deepEqual(
      report.nodes.map((node) => [node.name, node.verdict, Object.keys(node.checks)]),
      ['k8s-cp-01', 'k8s-worker-01', 'k8s-worker-02'].map((name) => [name, 'no-go', NODE_RULES]),
    )
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

  it('cluster run with nothing to migrate: nodes are go with no checks (no node rule runs)', async () => {
    const report = await clusterReport('cilium-kpr')
    assert.ok(report.nodes.length > 0)
    assert.deepEqual(new Set(report.nodes.map((node) => `${node.verdict} ${Object.keys(node.checks).length}`)), new Set(['go 0']))
  })
})
