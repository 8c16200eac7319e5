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
import {parseMarkdown, shown} from '../helpers/markdown.js'
import {FIXTURES} from '../helpers/paths.js'
import {validateReport} from '../helpers/schemas.js'

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-faults-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

async function checkWith(faults: Fault[], options: {args?: string[]; scenario?: string} = {}): Promise<{code: null | number; ms: number; report: Report; stderr: string}> {
  const server = await startApiServer({scenario: options.scenario ?? 'kubeadm-calico', faults})
  try {
    const kubeconfig = writeKubeconfig(mkdtempSync(join(workdir, 'run-')), server)
    const started = performance.now()
    const {code, stdout, stderr} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--json', ...(options.args ?? [])])
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

/** The pre-switch rules of scope node (rules/node): each is unknown when the Nodes cannot be read. */
const NODE_RULES = 19

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
    const {ms, report} = await checkWith([{path: '/api/v1/services', kind: 'drip', bytesPerSecond: 10}], {args: ['--request-timeout', '2']})
    assert.ok(ms < 20_000, `took ${Math.round(ms)} ms`)
    assert.ok(unknownRules(report, 'failed').includes('cluster/service-count'))
    assert.match(report.cluster?.unreadable.join('\n') ?? '', /services: no answer within 2s/)
  })
})

describe('a read of one named ConfigMap refused (403) makes unknown only what is read from it', () => {
  const forbidden = (namespace: string, name: string): Fault[] => [{path: `/api/v1/namespaces/${namespace}/configmaps/${name}`, kind: 'forbidden'}]

  it("kube-flannel/kube-flannel-cfg: only flannel's dataplane, so only its CNI check; kube-proxy's mode and the platform stay known", async () => {
    const {code, report} = await checkWith(forbidden('kube-flannel', 'kube-flannel-cfg'), {scenario: 'ipvs-metallb'})
    assert.equal(code, 5)
    assert.deepEqual(unknownRules(report, 'permission-denied'), ['cluster/cni-version'])
    const flannel = report.findings.find((finding) => finding.rule === 'cluster/cni-version')!
    assert.deepEqual([flannel.subject, flannel.status, flannel.severity], [{kind: 'DaemonSet', namespace: 'kube-flannel', name: 'kube-flannel-ds'}, 'unknown', 'blocker'])
    assert.match(flannel.message, /configmaps "kube-flannel-cfg" is forbidden: User ".*" cannot get resource "configmaps" in API group "" in the namespace "kube-flannel" \(needs: get configmaps kube-flannel\/kube-flannel-cfg\)/)
    assert.deepEqual([report.cluster?.platform, report.cluster?.proxyMode], ['kubeadm', 'ipvs'])
    assert.deepEqual(statusOf(report, 'cluster/ipvs-scheduler'), ['pass'], 'what kube-system/kube-proxy says (scheduler rr) is still read')
    assert.deepEqual(report.cluster?.unreadable.map((line) => line.split(':', 1)[0]), ['configMaps kube-flannel/kube-flannel-cfg'])
  })

  it('kube-system/kube-proxy: its mode, settings and the platform (kubeadm) unknown, and so the rules that read them; the CNI check still decided', async () => {
    const {code, report} = await checkWith(forbidden('kube-system', 'kube-proxy'), {scenario: 'ipvs-metallb'})
    assert.equal(code, 5)
    assert.deepEqual(unknownRules(report, 'permission-denied'), [
      'cluster/config-carry-over',
      'cluster/ipvs-deprecation',
      'cluster/ipvs-scheduler',
      'cluster/ipvs-strict-arp',
      'cluster/k3s-nft-json',
      'cluster/kube-proxy-mode',
      'cluster/kube-proxy-mode-implicit',
      'cluster/nodeport-addresses',
      'cluster/platform-switch',
      'cluster/rollback-config',
    ])
    assert.deepEqual([report.cluster?.platform, report.cluster?.proxyMode, report.cluster?.nothingToMigrate], [null, 'unknown', false])
    assert.deepEqual(statusOf(report, 'cluster/cni-version'), ['fail'], "flannel's own ConfigMap is still read: iptables mode")
    assert.ok(report.findings.filter((finding) => finding.reason === 'permission-denied').every((finding) => finding.message.includes('get configmaps kube-system/kube-proxy')))
  })
})

describe('a 404 is a fact only for an optional API group', () => {
  const notFound = (path: string): Fault => ({path, kind: 'reject', status: 404, message: 'the server could not find the requested resource'})

  it('404 on /api/v1/nodes (a gateway in between): every node rule unknown (failed), the list named unreadable, never zero nodes', async () => {
    const {report} = await checkWith([notFound('/api/v1/nodes')])
    assert.equal(unknownRules(report, 'failed').filter((rule) => rule.startsWith('node/')).length, NODE_RULES)
    assert.match(report.cluster?.unreadable.join('\n') ?? '', /nodes: .*404 for a list every API server serves/)
  })

  it('404 on /apis/apps/v1/daemonsets: kube-proxy is unknown, not "no kube-proxy"', async () => {
    const {report} = await checkWith([notFound('/apis/apps/v1/daemonsets')], {scenario: 'ipvs-metallb'})
    assert.deepEqual(statusOf(report, 'cluster/kube-proxy-mode'), ['unknown'])
    assert.ok(unknownRules(report, 'failed').includes('cluster/kube-proxy-mode'))
    assert.match(report.cluster?.unreadable.join('\n') ?? '', /daemonSets: .*404/)
  })

  it('404 on a CRD group (monitoring.coreos.com): nothing installs it, which is a fact, not an unreadable list', async () => {
    const {report} = await checkWith([notFound('/apis/monitoring.coreos.com/v1/prometheusrules')], {scenario: 'ipvs-metallb'})
    assert.ok(!(report.cluster?.unreadable ?? []).some((line) => line.startsWith('prometheusRules')), JSON.stringify(report.cluster?.unreadable))
  })
})

describe('a 200 that is not the object asked for is no answer', () => {
  const KUBE_PROXY = '/api/v1/namespaces/kube-system/configmaps/kube-proxy'
  for (const [what, body] of [
    ['a Status body', '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"NotFound","code":404}'],
    ['an empty object', '{}'],
    ['another kind of the same name', '{"kind":"Secret","apiVersion":"v1","metadata":{"name":"kube-proxy","namespace":"kube-system"}}'],
    ['a ConfigMap of another name', '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"coredns","namespace":"kube-system"},"data":{"config.conf":"mode: nftables"}}'],
    ['a ConfigMap of the name in another namespace', '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"kube-proxy","namespace":"tenant"},"data":{"config.conf":"mode: nftables"}}'],
    ['a ConfigMap without metadata', '{"kind":"ConfigMap","apiVersion":"v1","data":{"config.conf":"mode: nftables"}}'],
  ] as const) {
    it(`configmaps/kube-proxy answered with ${what}: kube-proxy's mode unknown (malformed-response), never go`, async () => {
      const {report} = await checkWith([{path: KUBE_PROXY, kind: 'body', body}], {scenario: 'ipvs-metallb'})
      assert.ok(unknownRules(report, 'malformed-response').includes('cluster/kube-proxy-mode'), JSON.stringify(report.cluster?.unreadable))
      assert.equal(report.cluster?.proxyMode, 'unknown')
      assert.match(report.cluster?.unreadable.join('\n') ?? '', /configMaps kube-system\/kube-proxy: .*expected the ConfigMap kube-system\/kube-proxy, found/)
    })
  }

  it('a PodList for /api/v1/nodes: every node rule unknown (malformed-response)', async () => {
    const {report} = await checkWith([{path: '/api/v1/nodes', kind: 'body', body: '{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"p"}}]}'}])
    assert.equal(unknownRules(report, 'malformed-response').filter((rule) => rule.startsWith('node/')).length, NODE_RULES)
    assert.match(report.cluster?.unreadable.join('\n') ?? '', /nodes: .*expected a NodeList, found kind "PodList"/)
  })
})

describe('kpx-check cluster --snapshot with contents no read could give', () => {
  const snapshot = JSON.parse(readFileSync(join(FIXTURES, 'snapshots', 'kubespray-ipvs-metallb.snapshot.json'), 'utf8')) as {resources: Record<string, unknown>}

  for (const [path, value, message] of [
    ['nodes', {status: 'ok', items: null}, 'resources.nodes.items: not an array'],
    ['services', {status: 'ok', items: [{metadata: {name: 'a'}}, 'b']}, 'resources.services.items[1]: not an object with metadata'],
    ['daemonSets', {status: 'unknown'}, 'resources.daemonSets.status: expected ok'],
    ['configMaps', {status: 'forbidden'}, 'resources.configMaps.message: not a string'],
    ['configMaps', {status: 'ok', items: [], unreadable: [{name: 'kube-proxy', status: 'gone'}]}, 'resources.configMaps.unreadable[0].status: expected error, forbidden, malformed, unauthorized'],
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

describe('plan commands from hostile names', () => {
  it('a node named to run a command is kept out of every command, and the step says so', async () => {
    const text = readFileSync(join(FIXTURES, 'snapshots', 'kubespray-ipvs-metallb.snapshot.json'), 'utf8')
    const hostile = 'n1$(touch PWN);id'
    const file = join(workdir, 'hostile-names.snapshot.json')
    // Every node is renamed, so the canary is one of them; the kube-proxy DaemonSet's namespace too.
    writeFileSync(file, text.replaceAll('node1.taikang1.local', hostile).replaceAll('node2.taikang1.local', `${hostile}2`).replaceAll('master1.taikang1.local', `${hostile}3`))
    const {code, stdout} = await runCli(['cluster', '--snapshot', file, '--json'])
    assert.notEqual(code, 1)
    const report = JSON.parse(stdout) as Report
    const commands = report.plan.steps.flatMap((step) => [...step.commands, ...step.verify, ...step.undo])
    assert.ok(commands.length > 0)
    assert.deepEqual(commands.filter((command) => command.includes('touch') || command.includes('PWN')), [])
    // From the API alone no node is checked, so no wave has commands: the hostile name is only in the prose
    // that lists the nodes to probe first, which the renderers escape.
    const canary = report.plan.steps.find((step) => step.id === 'canary/canary-node')!
    assert.deepEqual(canary.commands, [])
    const waves = report.plan.steps.filter((step) => step.id.startsWith('rollout/'))
    assert.deepEqual(waves.flatMap((step) => step.commands), [])
    assert.ok(waves.some((step) => step.actions.some((action) => action.startsWith('Not checked, probe before this wave: ') && action.includes(hostile))), waves.flatMap((step) => step.actions).join('\n'))
  })
})

describe('text from the cluster, shown', () => {
  it('control characters in node fields and the context reach neither the terminal nor the Markdown raw', async () => {
    const snapshot = JSON.parse(readFileSync(join(FIXTURES, 'snapshots', 'kubespray-ipvs-metallb.snapshot.json'), 'utf8')) as {
      resources: {nodes: {items: Array<{status: {nodeInfo: {kernelVersion: string; osImage: string}}}>}}
      source: {context?: string}
    }
    const [node] = snapshot.resources.nodes.items
    node.status.nodeInfo.osImage = 'Ubuntu\u001B]0;owned\u0007\u001B[2J 22.04\nfake row'
    node.status.nodeInfo.kernelVersion = '5.15.0\u009B31m-evil\u202E'
    snapshot.source.context = 'prod\u001B]8;;https://example.invalid\u0007click\u001B]8;;\u0007'
    const file = join(workdir, 'control-characters.snapshot.json')
    writeFileSync(file, JSON.stringify(snapshot))
    // The one screen cuts the OS column short; the long form (--details) and the Markdown show the whole value.
    for (const [format, ...more] of [['text'], ['text', '--details'], ['markdown']]) {
      const {code, stdout} = await runCli(['cluster', '--snapshot', file, '--format', format, ...more])
      assert.ok(code === 3 || code === 5, `exit ${code}`)
      // eslint-disable-next-line no-control-regex -- looking for control characters is the point
      assert.deepEqual(stdout.match(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u202E]/gu), null, `${format} ${more}: a control character got through`)
      if (format === 'text' && more.length === 0) continue
      // The Markdown escapes the brackets and backslashes of the escapes: a reader sees them as the terminal shows them.
      const seen = format === 'markdown' ? shown(parseMarkdown(stdout)) : stdout
      assert.ok(seen.includes(String.raw`Ubuntu\x1B]0;owned\x07\x1B[2J 22.04\nfake row`), `${format} ${more}`)
    }
  })
})

describe('invisible and reordering characters from the cluster, in every format', () => {
  // C1 CSI, the bidi override and isolate, zero-width space and joiner, word joiner, soft hyphen, a tag character,
  // the line separator: each hides, reorders or breaks text where it is shown raw.
  const HIDDEN = ['\u009B', '\u202E', '\u2066', '\u200B', '\u200D', '\u2060', '\u00AD', '\u{E0041}', '\u2028']
  const RAW = /[\p{Cc}\p{Cf}\u2028\u2029]/gu

  it('text, Markdown, JSON, JUnit and SARIF show them as escapes; the JSON still parses to the same strings', async () => {
    const snapshot = JSON.parse(readFileSync(join(FIXTURES, 'snapshots', 'kubespray-ipvs-metallb.snapshot.json'), 'utf8')) as {
      resources: {nodes: {items: Array<{status: {nodeInfo: {kernelVersion: string; osImage: string}}}>}}
      source: {context?: string}
    }
    const osImage = `Ubuntu ${HIDDEN.join('x')} 22.04`
    for (const node of snapshot.resources.nodes.items) {
      node.status.nodeInfo.osImage = osImage
      node.status.nodeInfo.kernelVersion = `3.10.0${HIDDEN.join('')}`
    }

    snapshot.source.context = `prod${HIDDEN.join('')}`
    const file = join(workdir, 'invisible-characters.snapshot.json')
    writeFileSync(file, JSON.stringify(snapshot))
    for (const format of ['text', 'markdown', 'json', 'junit', 'sarif']) {
      const {code, stdout} = await runCli(['cluster', '--snapshot', file, '--format', format])
      assert.ok(code === 3 || code === 5, `${format}: exit ${code}`)
      const raw = [...stdout.matchAll(RAW)].map(([char]) => char).filter((char) => char !== '\n' && !(char === '\r' && format === 'junit'))
      assert.deepEqual(raw, [], `${format}: ${raw.map((char) => char.codePointAt(0)!.toString(16)).join(', ')} got through`)
      if (format === 'json') {
        const report = JSON.parse(stdout) as Report
        assert.equal(report.nodes[0].os?.prettyName, osImage, 'the data is intact, only written escaped')
        assert.equal(report.cluster?.context, snapshot.source.context)
      } else if (format !== 'sarif') {
        assert.ok(stdout.includes(String.raw`\u202E`) && stdout.includes(String.raw`\x9B`) && stdout.includes(String.raw`\u{E0041}`), format)
      }
    }
  })
})

describe('progress on stderr', () => {
  async function progressWith(faults: Fault[]): Promise<{code: null | number; stderr: string}> {
    const server = await startApiServer({scenario: 'kubeadm-calico', faults})
    try {
      const {code, stderr} = await runCli(['cluster', '--kubeconfig', writeKubeconfig(mkdtempSync(join(workdir, 'run-')), server)])
      return {code, stderr}
    } finally {
      await server.close()
    }
  }

  // The largest lists first (resources.ts), then the workloads whose templates are read for pings.
  const reading = /^❯ Read endpointslices, nodes, services, daemonsets, deployments, statefulsets, jobs, cronjobs, pods, configmaps, ingresses, prometheusrules\.monitoring\.coreos\.com, installations\.operator\.tigera\.io, felixconfigurations\.crd\.projectcalico\.org, networks\.config\.openshift\.io$/m

  it('names what it reads as kubectl does, and ticks a read that all succeeded', async () => {
    const {stderr} = await progressWith([])
    assert.match(stderr, reading)
    assert.match(stderr, /^✔ Read 15 resource kinds$/m)
  })

  it('a read refused takes the tick away, and the run goes on to the report', async () => {
    const {code, stderr} = await progressWith([{path: '/api/v1/nodes', kind: 'forbidden'}])
    assert.equal(code, 5)
    assert.match(stderr, reading)
    assert.match(stderr, /^✖ Read 15 resource kinds \[FAILED: 1 could not be read, see the report\]$/m)
    assert.doesNotMatch(stderr, /✔ Read 15/)
  })
})
