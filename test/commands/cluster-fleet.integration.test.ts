/**
 * Fleets through the real CLI: `cluster --all-contexts` and a repeated `--context` against several test API
 * servers through one kubeconfig, one of them a closed loopback port and one refusing the token (401). Each
 * cluster is checked; one that cannot be used is incomplete with its reason, and the fleet exits with the
 * worst of its clusters' codes. The expected verdicts are those of the scenarios (see cluster.test.ts).
 */
import assert from 'node:assert/strict'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {parse as parseYaml, stringify as stringifyYaml} from 'yaml'

import type {FleetReport} from '../../src/contract/fleet.js'
import type {Report} from '../../src/contract/report.js'
import {type ApiServer, type KubeconfigContext, startApiServer, writeContexts} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {FIXTURES} from '../helpers/paths.js'
import {validateFleet, validateReport, validateSarif} from '../helpers/schemas.js'

let workdir: string
/** cilium-kpr: kube-proxy replaced, nothing to migrate (go, 0). */
let go: ApiServer
/** aks: node-shell checks unknown from the API (incomplete, 5). */
let incomplete: ApiServer
/** eks-old-vpc-cni: the VPC CNI is too old (no-go, 3). */
let noGo: ApiServer
/** A loopback port nothing listens on any more. */
let closedUrl: string

before(async () => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-fleet-'))
  ;[go, incomplete, noGo] = await Promise.all([startApiServer({scenario: 'cilium-kpr'}), startApiServer({scenario: 'aks'}), startApiServer({scenario: 'eks-old-vpc-cni'})])
  const closed = await startApiServer()
  closedUrl = closed.url
  await closed.close()
})
after(async () => {
  await Promise.all([go, incomplete, noGo].map((server) => server.close()))
  rmSync(workdir, {recursive: true, force: true})
})

const context = (name: string, server: ApiServer, token = server.token): KubeconfigContext => ({name, server, token})

/** A kubeconfig of these contexts, in this order, in a folder of its own. */
function kubeconfig(...contexts: KubeconfigContext[]): string {
  return writeContexts(mkdtempSync(join(workdir, 'kubeconfig-')), contexts)
}

/** The three of the issue: a go cluster, an incomplete one, and one whose port is closed. */
const threeClusters = () => kubeconfig(context('prod-cilium', go), context('prod-aks', incomplete), {name: 'gone', server: {url: closedUrl, ca: go.ca}, token: 't'})

/** Runs `cluster --json` with these arguments: the exit code and the fleet report, checked against its schema. */
async function fleetJson(args: string[]): Promise<{code: null | number; fleet: FleetReport}> {
  const {code, stdout, stderr} = await runCli(['cluster', '--json', ...args])
  assert.equal(stderr, '')
  const fleet = JSON.parse(stdout) as FleetReport
  assert.ok(validateFleet(fleet), JSON.stringify(validateFleet.errors, null, 2))
  return {code, fleet}
}

/** What each cluster came to: context, verdict, exit code, and the error's reason for one not checked. */
const outcomes = (fleet: FleetReport) => fleet.clusters.map((cluster) => [cluster.context, cluster.verdict, cluster.exitCode, cluster.error?.reason ?? 'checked'])

describe('kpx-check cluster --all-contexts: three test API servers, one unreachable', () => {
  it('one table, a row per context in the kubeconfig\'s order; exit 5, the worst', async () => {
    const {code, stdout, stderr} = await runCli(['cluster', '--kubeconfig', threeClusters(), '--all-contexts'])
    assert.equal(code, 5, stderr)
    const lines = stdout.split('\n')
    assert.equal(lines[0], 'INCOMPLETE  3 cluster(s): 1 incomplete, 1 go, 1 not checked — exit 5')
    assert.equal(lines.filter((line) => line.trimStart().startsWith('CONTEXT')).length, 1, stdout)
    const header = lines.findIndex((line) => line.trimStart().startsWith('CONTEXT'))
    assert.match(lines[header], /^ {2}CONTEXT +PLATFORM +KUBERNETES +KUBE-PROXY +MODE +VERDICT +BLOCKERS +WARNINGS +UNKNOWN +NOTE$/)
    const rows = lines.slice(header + 1, header + 4).map((line) => line.trim().split(/ {2,}/))
    assert.deepEqual(rows[0].slice(0, 2), ['prod-cilium', 'unknown'])
    assert.deepEqual(rows[0].slice(4), ['none', 'go', '0', '0', '0', 'nothing to migrate'])
    assert.deepEqual(rows[1].slice(0, 6), ['prod-aks', 'aks', '1.33.2', '1.33.2', 'iptables', 'incomplete'])
    assert.deepEqual(rows[2], ['gone', '?', '?', '?', '?', 'incomplete', '-', '-', '-', 'not checked: unreachable'])
    assert.equal(lines[header + 4], '')
    assert.match(stdout, /^ {2}gone \[unreachable\]: cannot use the API server https:\/\/127\.0\.0\.1:\d+ \(context gone\): connection refused$/m)
    // Progress on stderr says which cluster could not be checked, without a tick of success.
    assert.match(stderr, /gone: not checked \(unreachable\)/)
    assert.doesNotMatch(stderr, /✔ Checked 3 clusters/)
  })

  it('--json: three entries, two full reports and the unreachable one\'s reason; the summary is the worst', async () => {
    const {code, fleet} = await fleetJson(['--kubeconfig', threeClusters(), '--all-contexts'])
    assert.equal(code, 5)
    assert.deepEqual(outcomes(fleet), [
      ['prod-cilium', 'go', 0, 'checked'],
      ['prod-aks', 'incomplete', 5, 'checked'],
      ['gone', 'incomplete', 5, 'unreachable'],
    ])
    assert.deepEqual(fleet.summary, {verdict: 'incomplete', exitCode: 5, counts: {clusters: 3, go: 1, noGo: 0, incomplete: 1, notChecked: 1}})
    const [cilium, aks, gone] = fleet.clusters
    for (const report of [cilium.report!, aks.report!]) assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
    assert.equal(cilium.report!.cluster?.context, 'prod-cilium')
    assert.equal(cilium.report!.cluster?.nothingToMigrate, true)
    assert.equal(aks.report!.cluster?.platform, 'aks')
    assert.ok(aks.report!.findings.length > 0 && aks.report!.plan.steps.length > 0, 'the full report, findings and plan')
    assert.equal(gone.report, undefined)
    assert.match(gone.error!.message, /connection refused/)
    assert.deepEqual(gone.error!.suggestions, ['Check the server address, the network path, and the CA in the kubeconfig.'])
  })
})

describe('kpx-check cluster with --context given several times', () => {
  it('the contexts named, in that order; a no-go cluster makes the fleet exit 3, whatever else fails', async () => {
    const file = kubeconfig(context('prod-cilium', go), context('prod-eks', noGo), context('expired', incomplete, 'an-old-token'), context('prod-aks', incomplete))
    const {code, fleet} = await fleetJson(['--kubeconfig', file, '--context', 'expired', '--context', 'prod-eks', '--context', 'prod-cilium'])
    assert.equal(code, 3)
    assert.deepEqual(outcomes(fleet), [
      ['expired', 'incomplete', 5, 'unauthorized'],
      ['prod-eks', 'no-go', 3, 'checked'],
      ['prod-cilium', 'go', 0, 'checked'],
    ])
    assert.match(fleet.clusters[0].error!.message, /^cannot use the API server https:\/\/127\.0\.0\.1:\d+ \(context expired\): Unauthorized$/)
    assert.deepEqual(fleet.summary.counts, {clusters: 3, go: 1, noGo: 1, incomplete: 0, notChecked: 1})
    assert.equal(fleet.clusters[1].report!.cluster?.platform, 'eks')
  })

  it('an untrusted certificate is reason TLS; --allow-incomplete lets clusters not checked exit 0, as incomplete ones', async () => {
    // Without the test CA in the kubeconfig, the server's certificate is checked against the system's CAs.
    const file = kubeconfig(context('prod-cilium', go), {name: 'no-ca', server: {url: go.url}, token: go.token}, {name: 'gone', server: {url: closedUrl, ca: go.ca}, token: 't'})
    const {code, fleet} = await fleetJson(['--kubeconfig', file, '--all-contexts', '--allow-incomplete', '--cluster-concurrency', '1'])
    assert.equal(code, 0)
    assert.deepEqual(outcomes(fleet), [
      ['prod-cilium', 'go', 0, 'checked'],
      ['no-ca', 'incomplete', 0, 'TLS'],
      ['gone', 'incomplete', 0, 'unreachable'],
    ])
    assert.match(fleet.clusters[1].error!.message, /certificate is not trusted/)
    assert.equal(fleet.summary.verdict, 'incomplete')
  })

  it('an API server that refuses the version (403) is reason forbidden; one that never answers, timeout', async () => {
    const [refusing, hanging] = await Promise.all([startApiServer({faults: [{path: '/version', kind: 'forbidden'}]}), startApiServer({faults: [{path: '/version', kind: 'hang'}]})])
    try {
      const file = kubeconfig(context('refusing', refusing), context('hanging', hanging), context('prod-cilium', go))
      const {code, fleet} = await fleetJson(['--kubeconfig', file, '--all-contexts', '--request-timeout', '1'])
      assert.equal(code, 5)
      assert.deepEqual(outcomes(fleet), [
        ['refusing', 'incomplete', 5, 'forbidden'],
        ['hanging', 'incomplete', 5, 'timeout'],
        ['prod-cilium', 'go', 0, 'checked'],
      ])
      assert.match(fleet.clusters[1].error!.message, /no answer within 1s \(--request-timeout\)$/)
    } finally {
      await Promise.all([refusing.close(), hanging.close()])
    }
  })

  it('a broken context entry is that cluster\'s (reason kubeconfig); the others are checked', async () => {
    const file = kubeconfig(context('prod-cilium', go), {name: 'plain-http', server: {url: 'http://127.0.0.1:1'}, token: 't'})
    const {code, fleet} = await fleetJson(['--kubeconfig', file, '--all-contexts'])
    assert.equal(code, 5)
    assert.deepEqual(outcomes(fleet), [
      ['prod-cilium', 'go', 0, 'checked'],
      ['plain-http', 'incomplete', 5, 'kubeconfig'],
    ])
    assert.equal(fleet.clusters[1].error!.message, `kubeconfig ${file}: cluster "plain-http" (of context "plain-http"): server "http://127.0.0.1:1" is not an https:// URL; kpx-check reads the API over HTTPS only`)
  })

  it('a --target-version older than one cluster is that cluster\'s usage error', async () => {
    // aks runs 1.33.2, cilium-kpr 1.31.1.
    const file = kubeconfig(context('prod-aks', incomplete), context('prod-cilium', go))
    const {code, fleet} = await fleetJson(['--kubeconfig', file, '--all-contexts', '--target-version', '1.32'])
    assert.equal(code, 5)
    assert.deepEqual(outcomes(fleet), [
      ['prod-aks', 'incomplete', 5, 'usage'],
      ['prod-cilium', 'go', 0, 'checked'],
    ])
    assert.equal(fleet.clusters[0].error!.message, '--target-version 1.32 is older than the cluster\'s own Kubernetes 1.33.2 (context prod-aks)')
  })

  it('--node-probe exec probes each cluster\'s nodes in its kube-proxy pods: aks, incomplete from the API, is go', async () => {
    const file = kubeconfig(context('prod-aks', incomplete), {name: 'gone', server: {url: closedUrl, ca: go.ca}, token: 't'})
    const {code, fleet} = await fleetJson(['--kubeconfig', file, '--all-contexts', '--node-probe', 'exec'])
    assert.equal(code, 5)
    assert.deepEqual(outcomes(fleet), [
      ['prod-aks', 'go', 0, 'checked'],
      ['gone', 'incomplete', 5, 'unreachable'],
    ])
    assert.deepEqual([...new Set(fleet.clusters[0].report!.nodes.map((node) => node.source))], ['exec'])
  })

  it('a configuration file\'s flags hold for the whole fleet, and the fleet report names the file', async () => {
    const cwd = mkdtempSync(join(workdir, 'config-'))
    writeFileSync(join(cwd, 'kpx.yaml'), 'cluster:\n  cluster-concurrency: 1\n  all-contexts: true\n')
    const {code, stdout, stderr} = await runCli(['cluster', '--json', '--config', 'kpx.yaml', '--kubeconfig', threeClusters()], {cwd})
    assert.equal(code, 5, stderr)
    const fleet = JSON.parse(stdout) as FleetReport
    assert.ok(validateFleet(fleet), JSON.stringify(validateFleet.errors, null, 2))
    assert.deepEqual(fleet.config, {file: 'kpx.yaml', flags: ['all-contexts', 'cluster-concurrency']})
    assert.deepEqual(Object.keys(fleet).slice(0, 5), ['schemaVersion', 'kind', 'tool', 'generatedAt', 'config'])
    assert.deepEqual(outcomes(fleet).map(([name]) => name), ['prod-cilium', 'prod-aks', 'gone'])
  })

  it('--context given once is one cluster\'s report, as before', async () => {
    const {code, stdout} = await runCli(['cluster', '--json', '--kubeconfig', threeClusters(), '--context', 'prod-aks'])
    assert.equal(code, 5)
    const report = JSON.parse(stdout) as Report
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
    assert.equal(report.cluster?.context, 'prod-aks')
    const twice = await runCli(['cluster', '--json', '--kubeconfig', threeClusters(), '--context', 'gone', '--context', 'gone'])
    assert.equal(twice.code, 2, 'one context named twice is one cluster: its error is exit 2')
    assert.match(JSON.parse(twice.stdout).error.message, /connection refused/)
  })
})

describe('kpx-check cluster: a fleet\'s --output files', () => {
  it('every format, from the same run; the JSON is the fleet report, the SARIF a run per cluster', async () => {
    const dir = mkdtempSync(join(workdir, 'outputs-'))
    const path = (name: string) => join(dir, name)
    const summary = path('step-summary.md')
    const {code, stdout} = await runCli([
      'cluster', '--kubeconfig', threeClusters(), '--all-contexts', '--format', 'markdown',
      '--output', `json=${path('fleet.json')}`, '--output', `md=${path('fleet.md')}`, '--output', `junit=${path('fleet.xml')}`, '--output', `sarif=${path('fleet.sarif')}`, '--output', `text=${path('fleet.txt')}`,
      '--sarif-location', '.github/workflows/kpx-check.yml',
    ], {env: {GITHUB_STEP_SUMMARY: summary}})
    assert.equal(code, 5)
    // stdout (--format markdown), the md file and the step summary are the same document, but for its time.
    const undated = (markdown: string) => markdown.replace(/, \d{4}-\d\d-\d\dT[\d:.]+Z$/m, '')
    assert.equal(undated(readFileSync(path('fleet.md'), 'utf8')), undated(stdout))
    assert.equal(undated(readFileSync(summary, 'utf8')), `${undated(stdout)}\n`)
    const fleet = JSON.parse(readFileSync(path('fleet.json'), 'utf8')) as FleetReport
    assert.ok(validateFleet(fleet), JSON.stringify(validateFleet.errors, null, 2))
    assert.deepEqual(fleet.clusters.map((cluster) => cluster.context), ['prod-cilium', 'prod-aks', 'gone'])
    assert.match(readFileSync(path('fleet.md'), 'utf8'), /^# kpx-check fleet: INCOMPLETE for kube-proxy nftables mode$/m)
    assert.match(readFileSync(path('fleet.txt'), 'utf8'), /^INCOMPLETE {2}3 cluster\(s\)/)
    const sarif = JSON.parse(readFileSync(path('fleet.sarif'), 'utf8')) as {
      runs: Array<{automationDetails: {id: string}; invocations: Array<{executionSuccessful: boolean}>; results: Array<{locations: Array<{physicalLocation?: {artifactLocation: {uri: string}}}>}>}>
    }
    assert.ok(validateSarif(sarif), JSON.stringify(validateSarif.errors, null, 2))
    // --sarif-location places every result of every cluster at that file (prod-aks has unknowns to place).
    const placed = sarif.runs.flatMap((run) => run.results.map((result) => result.locations[0].physicalLocation?.artifactLocation.uri))
    assert.ok(placed.length > 0)
    assert.ok(placed.every((uri) => uri === '.github/workflows/kpx-check.yml'))
    assert.deepEqual(sarif.runs.map((run) => [run.automationDetails.id, run.invocations[0].executionSuccessful]), [
      ['prod-cilium/', true],
      ['prod-aks/', true],
      ['gone/', false],
    ])
    assert.match(readFileSync(path('fleet.xml'), 'utf8'), /<testsuite name="gone" tests="1" failures="0" errors="1"/)
  })
})

describe('kpx-check cluster: what a fleet refuses (exit 2, before any cluster is read)', () => {
  /** Expects exit 2 with this message, and no request to any server. */
  async function refused(args: string[], message: RegExp): Promise<void> {
    const before = [go, incomplete].map((server) => server.requests.length)
    const {code, stdout} = await runCli(['cluster', '--json', '--kubeconfig', threeClusters(), ...args])
    assert.equal(code, 2, stdout)
    assert.match(JSON.parse(stdout).error.message, message)
    assert.deepEqual([go, incomplete].map((server) => server.requests.length), before, 'no cluster was read')
  }

  it('flags for one cluster: --snapshot, --baseline, --facts, --inventory', async () => {
    const snapshot = join(FIXTURES, 'snapshots', 'kubespray-ipvs-metallb.snapshot.json')
    await refused(['--all-contexts', '--snapshot', snapshot], /^--snapshot cannot go with --all-contexts: a snapshot is one cluster/)
    await refused(['--context', 'prod-aks', '--context', 'prod-cilium', '--baseline', snapshot], /^--baseline cannot go with several --context: a baseline is one cluster's report/)
    await refused(['--all-contexts', '--facts', join(FIXTURES, 'bundles')], /^--facts cannot go with --all-contexts/)
    await refused(['--all-contexts', '--node-probe', 'ssh', '--inventory', 'hosts.ini'], /^--inventory cannot go with --all-contexts/)
  })

  it('a context the kubeconfig does not have, --cluster-concurrency for one cluster, --all-contexts with --context', async () => {
    await refused(['--context', 'prod-aks', '--context', 'prod-typo'], /^--context prod-typo: no such context in .*kubeconfig$/)
    await refused(['--context', 'prod-aks', '--cluster-concurrency', '2'], /^--cluster-concurrency only applies with --all-contexts or several --context$/)
    await refused(['--all-contexts', '--context', 'prod-aks'], /--context=prod-aks cannot also be provided when using --all-contexts/)
  })

  it('--all-contexts with a kubeconfig of no contexts', async () => {
    const empty = join(mkdtempSync(join(workdir, 'empty-')), 'kubeconfig')
    writeFileSync(empty, 'apiVersion: v1\nkind: Config\nclusters: []\n')
    const {code, stdout} = await runCli(['cluster', '--json', '--kubeconfig', empty, '--all-contexts'])
    assert.equal(code, 2)
    assert.deepEqual(JSON.parse(stdout).error, {name: 'UsageError', message: `--all-contexts: no contexts in ${empty}`, exitCode: 2, suggestions: ['Pass --kubeconfig FILE, or set KUBECONFIG, to a kubeconfig with contexts (kubectl config get-contexts lists them).']})
  })

  it('a rule file that does not load: exit 2 for the fleet, no cluster contacted', async () => {
    await refused(['--all-contexts', '--rules', join(FIXTURES, 'bad-rules', 'typo-field.yaml')], /typo-field\.yaml:3:1 rule: unknown field "severty"/)
  })
})

describe('a kubeconfig exec plugin that never answers (a device-code login nobody completes)', () => {
  /** A plugin that starts a helper of its own and then waits forever; both write their pids to `pids`. */
  function hangingPlugin(dir: string): {kubeconfig: (file: string) => void; pids: () => number[]} {
    const plugin = join(dir, 'never-answers.mjs')
    const pids = join(dir, 'pids')
    writeFileSync(
      plugin,
      [
        "import {spawn} from 'node:child_process'",
        "import {appendFileSync} from 'node:fs'",
        `const helper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {stdio: 'ignore'})`,
        `appendFileSync(${JSON.stringify(pids)}, \`\${process.pid} \${helper.pid} \`)`,
        "process.stderr.write('To sign in, open https://microsoft.com/devicelogin and enter the code ABCD-EFGH')",
        'setInterval(() => {}, 1000)',
        '',
      ].join('\n'),
    )
    return {
      kubeconfig(file: string) {
        const config = parseYaml(readFileSync(file, 'utf8')) as {users: Array<{name: string; user: unknown}>}
        config.users[0].user = {exec: {apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: [plugin], interactiveMode: 'Never'}}
        writeFileSync(file, stringifyYaml(config))
      },
      pids: () => readFileSync(pids, 'utf8').trim().split(' ').map(Number),
    }
  }

  /** The pids still running (not gone, not a zombie waiting to be reaped), after a moment to die in. */
  async function running(pids: number[]): Promise<number[]> {
    const state = (pid: number) => /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1]
    const isRunning = (pid: number) => existsSync(`/proc/${pid}`) && state(pid) !== 'Z'
    for (let tries = 0; tries < 50 && pids.some((pid) => isRunning(pid)); tries++) await new Promise((resolve) => setTimeout(resolve, 100))
    return pids.filter((pid) => isRunning(pid))
  }

  // Before the deadline the run waited for the plugin forever: the tests' own timeout ends them then.
  it('alone: exit 2 at --request-timeout, reason timeout, the plugin and its helper killed', {timeout: 60_000}, async () => {
    const dir = mkdtempSync(join(workdir, 'plugin-'))
    const plugin = hangingPlugin(dir)
    const file = kubeconfig(context('device-code', go))
    plugin.kubeconfig(file)
    const started = performance.now()
    const {code, stdout} = await runCli(['cluster', '--kubeconfig', file, '--request-timeout', '2', '--json'])
    assert.ok(performance.now() - started < 15_000, `${performance.now() - started} ms`)
    assert.equal(code, 2, stdout)
    assert.match(JSON.parse(stdout).error.message, /the credential plugin did not answer within 2s \(--request-timeout\); it was stopped/)
    assert.deepEqual(await running(plugin.pids()), [], 'no process of the plugin is left')
  })

  it('in a fleet: that cluster is not checked (timeout), the others are, and nothing of the plugin is left', {timeout: 60_000}, async () => {
    const dir = mkdtempSync(join(workdir, 'plugin-fleet-'))
    const plugin = hangingPlugin(dir)
    const file = kubeconfig(context('device-code', go), context('prod-aks', incomplete))
    plugin.kubeconfig(file)
    const started = performance.now()
    const {fleet} = await fleetJson(['--kubeconfig', file, '--all-contexts', '--request-timeout', '2'])
    assert.ok(performance.now() - started < 30_000, `${performance.now() - started} ms`)
    assert.deepEqual(outcomes(fleet), [
      ['device-code', 'incomplete', 5, 'timeout'],
      ['prod-aks', 'incomplete', 5, 'checked'],
    ])
    assert.deepEqual(await running(plugin.pids()), [], 'no process of the plugin is left')
  })
})
