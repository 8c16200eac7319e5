/**
 * Never a false go from the API: whatever a server answers (malformed pages, cut connections, bodies
 * that drip, endless paging, refusals), `kpx-check cluster` ends with the rules that needed that read
 * `unknown` with its reason, exits 3 or 5 (never 0, never 1), and finishes within its bounds.
 */
import assert from 'node:assert/strict'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {type Fault, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {FIXTURES} from '../helpers/paths.js'
import {validateReport} from '../helpers/schemas.js'

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-faults-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

async function checkWith(faults: Fault[], args: string[] = []): Promise<{code: null | number; ms: number; report: Report; stderr: string}> {
  const server = await startApiServer({scenario: 'kubeadm-calico', faults})
  try {
    const kubeconfig = writeKubeconfig(mkdtempSync(join(workdir, 'run-')), server)
    const started = performance.now()
    const {code, stdout, stderr} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--json', ...args])
    const ms = performance.now() - started
    assert.notEqual(code, 1, `internal error: ${stderr}${stdout.slice(0, 2000)}`)
    const report = JSON.parse(stdout) as Report
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
    assert.equal(report.exitCode, code)
    assert.notEqual(report.verdict, 'go')
    return {code, ms, report, stderr}
  } finally {
    await server.close()
  }
}

const unknownRules = (report: Report, reason: string) => [...new Set(report.findings.filter((finding) => finding.status === 'unknown' && finding.reason === reason).map((finding) => finding.rule))].toSorted()
const statusOf = (report: Report, rule: string) => [...new Set(report.findings.filter((finding) => finding.rule === rule).map((finding) => finding.status))]

const NODE_RULES = 13

describe('kpx-check cluster against a server that misbehaves', () => {
  it('a DaemonSet list whose items are null makes the rules that read DaemonSets unknown (malformed-response), not a go', async () => {
    const {code, report} = await checkWith([{path: '/apis/apps/v1/daemonsets', kind: 'body', body: '{"kind":"List","metadata":{},"items":null}'}])
    assert.ok(code === 3 || code === 5)
    assert.deepEqual(statusOf(report, 'cluster/kube-proxy-mode'), ['unknown'])
    assert.ok(unknownRules(report, 'malformed-response').includes('cluster/kube-proxy-mode'))
    assert.ok(unknownRules(report, 'malformed-response').includes('cluster/cni-version'), 'the CNI DaemonSets could not be listed')
    assert.match(report.cluster?.unreadable.join('\n') ?? '', /daemonSets: .*"items" is null, not an array/)
  })

  it('a Node list whose items are null makes every node rule unknown, not skipped', async () => {
    const {report} = await checkWith([{path: '/api/v1/nodes', kind: 'body', body: '{"kind":"NodeList","metadata":{},"items":null}'}])
    const nodeRules = unknownRules(report, 'malformed-response').filter((rule) => rule.startsWith('node/'))
    assert.equal(nodeRules.length, NODE_RULES)
    assert.ok(!report.findings.some((finding) => finding.rule.startsWith('node/') && finding.status === 'skip'))
  })

  it('without list nodes, every node rule is unknown with reason permission-denied', async () => {
    const {code, report} = await checkWith([{path: '/api/v1/nodes', kind: 'forbidden'}])
    assert.equal(code, 5)
    assert.equal(unknownRules(report, 'permission-denied').filter((rule) => rule.startsWith('node/')).length, NODE_RULES)
  })

  for (const [what, body] of [
    ['items that are not objects', '{"kind":"ServiceList","metadata":{},"items":["a",1,null]}'],
    ['a continue token that is not a string', '{"kind":"ServiceList","metadata":{"continue":7},"items":[]}'],
    ['a JSON string', '"hello"'],
    ['text that is not JSON', '<html>proxy error</html>'],
    ['the same continue token on every page', '{"kind":"ServiceList","metadata":{"continue":"again"},"items":[]}'],
  ] as const) {
    it(`a Service list of ${what} makes the Service rules unknown`, async () => {
      const {report} = await checkWith([{path: '/api/v1/services', kind: 'body', body}])
      assert.ok(unknownRules(report, 'malformed-response').includes('cluster/service-count'), JSON.stringify(report.cluster?.unreadable))
    })
  }

  it('a connection cut in the middle of a body makes that resource unreadable', async () => {
    const {report} = await checkWith([{path: '/api/v1/services', kind: 'reset'}])
    assert.ok(unknownRules(report, 'failed').includes('cluster/service-count'))
    assert.match(report.cluster?.unreadable.join('\n') ?? '', /services: .*the connection broke before the answer was complete/)
  })

  it('a body that drips a byte at a time ends at --request-timeout for the whole answer', async () => {
    const {ms, report} = await checkWith([{path: '/api/v1/services', kind: 'drip', bytesPerSecond: 10}], ['--request-timeout', '2'])
    assert.ok(ms < 20_000, `took ${Math.round(ms)} ms`)
    assert.ok(unknownRules(report, 'failed').includes('cluster/service-count'))
    assert.match(report.cluster?.unreadable.join('\n') ?? '', /services: no answer within 2s/)
  })
})

describe('kpx-check cluster --snapshot with contents no read could give', () => {
  const snapshot = JSON.parse(readFileSync(join(FIXTURES, 'snapshots', 'kubespray-ipvs-metallb.snapshot.json'), 'utf8')) as {resources: Record<string, unknown>}

  for (const [path, value, message] of [
    ['nodes', {status: 'ok', items: null}, 'resources.nodes.items: not an array'],
    ['services', {status: 'ok', items: [{metadata: {name: 'a'}}, 'b']}, 'resources.services.items[1]: not an object with metadata'],
    ['daemonSets', {status: 'unknown'}, 'resources.daemonSets.status: expected ok'],
    ['configMaps', {status: 'forbidden'}, 'resources.configMaps.message: not a string'],
  ] as const) {
    it(`refuses ${message} (exit 2, naming the file and the path)`, async () => {
      const file = join(workdir, `${path}.snapshot.json`)
      writeFileSync(file, JSON.stringify({...snapshot, resources: {...snapshot.resources, [path]: value}}))
      const {code, stderr} = await runCli(['cluster', '--snapshot', file])
      assert.equal(code, 2)
      assert.ok(stderr.includes(`--snapshot ${file}: ${message}`), stderr)
    })
  }
})
