/**
 * The text report's default is one screen, and each cause is said once: the example snapshot, a 600-node
 * cluster half of whose nodes are blocked, an unreachable SSH node and a cluster whose Nodes are forbidden,
 * each through bin/run.js as a user runs it (stdout a pipe). --details gives the long form.
 */
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {KubeObject} from '../../src/sources/cluster/snapshot.js'
import {loadScenario, type Scenario} from '../helpers/apiserver-scenario.js'
import {type Fault, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {FIXTURES} from '../helpers/paths.js'
import {freePort} from '../helpers/sshd.js'

const EXAMPLE = join(FIXTURES, 'snapshots', 'kubespray-ipvs-metallb.snapshot.json')

/** Lines wider than 100 columns (characters: the report has no wide ones). */
function wide(text: string): string[] {
  return text.split('\n').filter((line) => [...line].length > 100)
}

function occurrences(text: string, phrase: string): number {
  return text.split(phrase).length - 1
}

/** stdout's lines, without the newline that ends the last. */
function linesOf(stdout: string): string[] {
  return stdout.replace(/\n$/, '').split('\n')
}

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-screen-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

async function clusterRun(scenario: Scenario | string, args: string[] = [], faults: Fault[] = []) {
  const server = await startApiServer({scenario, faults})
  try {
    const kubeconfig = writeKubeconfig(mkdtempSync(join(workdir, 'cluster-')), server)
    return await runCli(['cluster', '--kubeconfig', kubeconfig, ...args])
  } finally {
    await server.close()
  }
}

describe('the example snapshot', () => {
  it('prints one screen by default: at most 50 lines of at most 100 columns, the verdict and the next command first', async () => {
    const {code, stdout, stderr} = await runCli(['cluster', '--snapshot', EXAMPLE])
    assert.equal(code, 5, stderr)
    const lines = linesOf(stdout)
    assert.ok(lines.length <= 50, `${lines.length} lines:\n${stdout}`)
    assert.deepEqual(wide(stdout), [])
    assert.match(lines[0], /^INCOMPLETE {2}/)
    assert.equal(lines[1], 'Next: kpx-check cluster --node-probe ssh --ssh-user USER --sudo')
    // Each rule that warns is one line; the 13 checks only a node shell answers are one cause.
    assert.equal(lines.filter((line) => line.startsWith('  ! cluster/')).length, 6)
    assert.equal(occurrences(stdout, 'need what only a node shell shows'), 1)
    assert.ok(lines.includes('  20. Roll back a node (or all of them) to ipvs mode [rollback]'), stdout)
    // No command of the plan but the next one: those are --details'.
    assert.equal(occurrences(stdout, 'kubectl '), 0)
  })

  it('prints the long form with --details: every finding with its fix, the plan with its commands', async () => {
    const {code, stdout} = await runCli(['cluster', '--snapshot', EXAMPLE, '--details'])
    assert.equal(code, 5)
    assert.ok(linesOf(stdout).length > 200, `${linesOf(stdout).length} lines`)
    assert.match(stdout, /^ {4}What to do:$/m)
    assert.match(stdout, /^ {5}\$ kubectl -n kube-system patch daemonset kube-proxy --type=merge -p '\{"spec":\{"updateStrategy":\{"type":"OnDelete"\}\}\}'$/m)
    assert.match(stdout, /^ {4}Deployment legacy\/billing-worker: 1 ping\(s\) of a Service's ClusterIP/m)
  })

  it('--details leaves JSON as it is', async () => {
    const [plain, detailed] = await Promise.all([runCli(['cluster', '--snapshot', EXAMPLE, '--json']), runCli(['cluster', '--snapshot', EXAMPLE, '--json', '--details'])])
    const withoutTime = (text: string) => text.replace(/"generatedAt": ?"[^"]+"/, '')
    assert.equal(withoutTime(detailed.stdout), withoutTime(plain.stdout))
  })
})

/** Old-kernel nodes named to sort after the ready ones: a table in name order would show none of them. */
function sixHundredNodes(): Scenario {
  const base = loadScenario('ipvs-metallb')
  const ready = base.objects['/api/v1/nodes'].find((node) => node.metadata!.name === 'node1.taikang1.local')!
  const old = loadScenario('kubeadm-rhel8').objects['/api/v1/nodes'].find((node) => node.metadata!.name === 'k8s-worker-01')!
  const copies = (template: KubeObject, from: string, prefix: string) =>
    Array.from({length: 300}, (_, index) => JSON.parse(JSON.stringify(template).replaceAll(from, `${prefix}-${String(index).padStart(3, '0')}`)) as KubeObject)
  return {...base, objects: {...base.objects, '/api/v1/nodes': [...copies(ready, 'node1.taikang1.local', 'worker-a'), ...copies(old, 'k8s-worker-01', 'worker-z')]}}
}

describe('a 600-node cluster, 300 of its nodes on a kernel too old', () => {
  it('prints at most 60 lines, its node groups no-go first', async () => {
    const {code, stdout, stderr} = await clusterRun(sixHundredNodes())
    assert.equal(code, 3, stderr)
    const lines = linesOf(stdout)
    assert.ok(lines.length <= 60, `${lines.length} lines:\n${stdout}`)
    assert.deepEqual(wide(stdout), [])
    assert.match(lines[0], /^NO-GO {2}/)
    const table = lines.findIndex((line) => line.startsWith('Nodes (600'))
    assert.ok(table > 0, stdout)
    assert.match(lines[table + 1], /^ {2}VERDICT +NODES +OS +KERNEL +RUNS +BLOCKERS +FOR EXAMPLE$/)
    assert.match(lines[table + 2], /^ {2}no-go +300 +rhel 8\.10 +4\.18\.0-553\.el8_10\.x86_64 +\? +node\/kernel-version +worker-z-000$/)
    assert.match(lines[table + 3], /^ {2}incomplete +300 +ubuntu 22\.04 +6\.5\.0-21-generic +\? +- +worker-a-000$/)
  })
})

describe('each cause once', () => {
  it('node --ssh to a host where nothing listens says why once', async () => {
    const closed = await freePort()
    const {code, stdout} = await runCli(['node', '--ssh', `root@127.0.0.1:${closed}`, '--timeout', '5'], {env: {HOME: workdir, SSH_AUTH_SOCK: ''}})
    assert.equal(code, 5)
    assert.equal(occurrences(stdout, 'connection refused'), 1, stdout)
    assert.match(stdout, /^ {2}\? Node 127\.0\.0\.1: refused: nothing listens on the port \(connection refused\)\n {4}→ check that sshd runs/m)
    assert.ok(linesOf(stdout).length <= 20, stdout)
  })

  it('a cluster whose Nodes are forbidden says the 403 once, and what to apply', async () => {
    const {code, stdout} = await clusterRun('ipvs-metallb', [], [{path: '/api/v1/nodes', kind: 'forbidden'}])
    assert.equal(code, 5)
    assert.equal(occurrences(stdout, 'forbidden'), 1, stdout)
    assert.match(stdout, /^ {2}\? Could not read nodes: nodes is forbidden: User "system:serviceaccount:default:kpx" cannot list\s+resource "nodes"/m)
    assert.match(stdout, /^Next: apply the read-only ClusterRole it needs: kpx-check rbac --user USER \| kubectl apply -f -$/m)
  })
})

describe('the Markdown plan', () => {
  it('opens with the change summary, has a box to tick per step, and sets a command in a block, whole', async () => {
    const {code, stdout} = await runCli(['cluster', '--snapshot', EXAMPLE, '--format', 'markdown'])
    assert.equal(code, 5)
    const headings = stdout.split('\n').filter((line) => line.startsWith('## '))
    assert.deepEqual(headings.slice(0, 2), ['## Change summary', '## Checklist'])
    const summary = stdout.slice(stdout.indexOf('## Change summary'), stdout.indexOf('## Checklist'))
    for (const item of ['Scope', 'Waves', 'Expected impact', 'How long', 'Rollback', 'Open preconditions']) assert.match(summary, new RegExp(String.raw`^- \*\*${item}:\*\* `, 'm'))
    assert.match(summary, /^- \*\*Scope:\*\* kube-proxy from \*\*ipvs\*\* to \*\*nftables\*\* mode on 3 Linux node\(s\) of cluster `kubespray-prod`/m)
    assert.match(summary, /^- \*\*Rollback:\*\* step 20, Roll back a node \(or all of them\) to ipvs mode\.$/m)
    assert.match(summary, /^- \*\*Open preconditions:\*\* 23 check\(s\) not known yet \(step 1\); /m)
    const boxes = stdout.split('\n').filter((line) => line.startsWith('- [ ] '))
    const steps = stdout.split('\n').filter((line) => /^### \d+\. /.test(line))
    assert.equal(boxes.length, 20)
    assert.equal(steps.length, 20)
    assert.equal(boxes[19], '- [ ] 20. Roll back a node (or all of them) to ipvs mode (*rollback*)')
    // The remediation's command, whole in a shell block, not partly set as code in a sentence.
    assert.ok(stdout.includes("- List them:\n\n```sh\nkubectl get services -A -o jsonpath='{range .items[?(@.spec.externalIPs)]}{.metadata.namespace}/{.metadata.name}: {.spec.externalIPs}{\"\\n\"}{end}'\n```"), stdout)
  })
})
