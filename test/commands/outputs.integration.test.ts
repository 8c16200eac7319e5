/**
 * One run, every output: JSON, JUnit, SARIF and Markdown written by --output (and the GitHub step
 * summary) render the same result, so they agree on the verdict, the failures and the plan.
 */
import assert from 'node:assert/strict'
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {findingKey, subjectPath} from '../../src/contract/subject.js'
import {startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {parseMarkdown, shown} from '../helpers/markdown.js'
import {FIXTURES, RUN_JS} from '../helpers/paths.js'
import {JUNIT_XSD, validateReport, validateSarif} from '../helpers/schemas.js'

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-outputs-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

interface Outputs {
  code: null | number
  stdout: string
  report: Report
  sarif: {runs: Array<{invocations: Array<{exitCode: number}>; properties: {verdict: string}; results: Array<{kind: string; level: string; locations: Array<{logicalLocations: Array<{fullyQualifiedName: string}>}>; partialFingerprints: Record<string, string>; ruleId: string}>}>}
  junit: (xpath: string) => string
  markdown: string
  stepSummary: string
}

/** Runs `kpx-check cluster` once against a scenario, with every --output and a GitHub step summary. */
async function runWithEveryOutput(scenario: string): Promise<Outputs> {
  const server = await startApiServer({scenario})
  try {
    const dir = mkdtempSync(join(workdir, `${scenario}-`))
    const file = (name: string) => join(dir, name)
    const kubeconfig = writeKubeconfig(dir, server)
    const {code, stdout, stderr} = await runCli(
      ['cluster', '--kubeconfig', kubeconfig, '--format', 'markdown', '--output', `json=${file('report.json')}`, '--output', `junit=${file('junit.xml')}`,
        '--output', `sarif=${file('kpx.sarif')}`, '--output', `md=${file('plan.md')}`],
      {env: {GITHUB_STEP_SUMMARY: file('summary.md')}},
    )
    assert.ok(stdout.startsWith('# kpx-check'), stderr)
    const validation = spawnSync('xmllint', ['--noout', '--schema', JUNIT_XSD, file('junit.xml')], {encoding: 'utf8'})
    assert.equal(validation.status, 0, validation.stderr)
    return {
      code,
      stdout,
      report: JSON.parse(readFileSync(file('report.json'), 'utf8')) as Report,
      sarif: JSON.parse(readFileSync(file('kpx.sarif'), 'utf8')) as Outputs['sarif'],
      junit: (xpath) => execFileSync('xmllint', ['--xpath', xpath, file('junit.xml')], {encoding: 'utf8'}).trim(),
      markdown: readFileSync(file('plan.md'), 'utf8'),
      stepSummary: readFileSync(file('summary.md'), 'utf8'),
    }
  } finally {
    await server.close()
  }
}

/**
 * Consistency, not correctness: the four outputs of one run agree (exit code and verdict, one SARIF
 * result and one JUnit case per problem). Each test adds what its scenario must show.
 */
function assertOutputsConsistent(outputs: Outputs): void {
  const {report, sarif, junit} = outputs
  assert.ok(validateReport(report), JSON.stringify(validateReport.errors))
  assert.ok(validateSarif(sarif), JSON.stringify(validateSarif.errors))
  assert.equal(outputs.code, report.exitCode)
  assert.equal(sarif.runs[0].invocations[0].exitCode, report.exitCode)
  assert.equal(sarif.runs[0].properties.verdict, report.verdict)

  const problems = report.findings.filter((finding) => finding.status === 'fail' || finding.status === 'unknown')
  assert.deepEqual(
    sarif.runs[0].results.map((result) => result.partialFingerprints['kpxFindingKey/v1']).toSorted(),
    problems.map((finding) => findingKey(finding)).toSorted(),
  )
  const failing = report.findings.filter((finding) => finding.status === 'fail' && finding.severity !== 'info')
  assert.equal(Number(junit('count(//testcase[failure])')), failing.length)
  assert.equal(Number(junit('count(//testcase)')), report.findings.length)
  assert.equal(Number(junit('count(//testcase/failure[@type="blocker"])')), report.summary.blockers)

  assert.equal(outputs.stdout, outputs.markdown, '--format markdown prints what --output md writes')
  assert.ok(outputs.stepSummary.includes(outputs.markdown), 'the step summary gets the Markdown report')
  assert.match(outputs.markdown, new RegExp(String.raw`\*\*${report.verdict.toUpperCase()}\*\* \(exit ${report.exitCode}\)`))
  const headings = parseMarkdown(outputs.markdown).children.filter((node) => node.type === 'heading' && node.depth === 3)
  assert.deepEqual(
    headings.map((heading) => shown(heading)).filter((title) => title !== 'Sources'),
    report.plan.steps.map((step, index) => `${index + 1}. ${step.title}`),
    'every step is a heading that reads as its title',
  )
}

describe('kpx-check cluster: one run, JSON, JUnit, SARIF and Markdown that agree', () => {
  it('EKS in IPVS mode with an old VPC CNI', async () => {
    const outputs = await runWithEveryOutput('eks-ipvs-old-vpc-cni')
    assertOutputsConsistent(outputs)
    assert.equal(outputs.code, 3)
    // The old VPC CNI is the one blocker.
    assert.equal(outputs.junit('count(//testcase/failure[@type="blocker"])'), '1')
    const cni = outputs.sarif.runs[0].results.find((result) => result.ruleId === 'cluster/cni-version')!
    assert.equal(cni.level, 'error')
    assert.equal(cni.locations[0].logicalLocations[0].fullyQualifiedName, 'daemonset/kube-system/aws-node')
    assert.equal(outputs.junit('string(//testsuite[@name="cluster/cni-version"]/testcase[failure]/@name)'), 'daemonset/kube-system/aws-node')
    const {markdown} = outputs
    assert.match(markdown, /\| <a id="blockers-cluster-cni-version"><\/a>`cluster\/cni-version` \| `-n kube-system daemonset\/aws-node` \| .*1\.23\.0/, 'the blockers table names the DaemonSet as kubectl does, under the anchor its plan step links to')
    // The add-on restarts kube-proxy on every node at once, and no node is checked from the API alone: the switch is withheld.
    assert.ok(markdown.includes('Not yet: this restarts kube-proxy on every node at once, and ip-10-0-10-170.ec2.internal, ip-10-0-11-23.ec2.internal, ip-10-0-12-88.ec2.internal are blocked or not checked'))
    assert.ok(!markdown.includes(`'{"mode":"nftables"}'`), 'no switch command while nodes are not checked')
    assert.ok(markdown.includes('kpx-check verify cluster --node-probe exec'), 'verification')
    assert.ok(markdown.includes(`--configuration-values '{"mode":"ipvs"}'`), 'rollback to the old mode')
  })

  it('kubeadm with RHEL 8 nodes', async () => {
    const outputs = await runWithEveryOutput('kubeadm-rhel8')
    assertOutputsConsistent(outputs)
    assert.equal(outputs.code, 3)
    // The blockers are the three RHEL 8 kernels.
    assert.equal(outputs.junit('count(//testcase/failure[@type="blocker"])'), '3')
    const kernel = outputs.report.findings.filter((finding) => finding.rule === 'node/kernel-version' && finding.status === 'fail')
    assert.deepEqual(kernel.map((finding) => finding.subject.name), ['k8s-cp-01', 'k8s-worker-01', 'k8s-worker-02'])
    assert.deepEqual(
      outputs.sarif.runs[0].results.filter((result) => result.ruleId === 'node/kernel-version').map((result) => result.locations[0].logicalLocations[0].fullyQualifiedName),
      kernel.map((finding) => subjectPath(finding.subject)),
    )
    const {markdown} = outputs
    assert.match(markdown, /\| Red Hat Enterprise Linux 8\.10 \(Ootpa\), kernel 4\.18\.0-553\.el8\\_10\.x86\\_64 \| k8s-cp-01, k8s-worker-01, k8s-worker-02 \| `node\/kernel-version`/)
    assert.ok(markdown.includes('kubectl -n kube-system edit configmap kube-proxy'), 'the kubeadm switch')
    assert.ok(markdown.includes('kubectl replace -f kube-proxy-configmap.backup.yaml'), 'rollback')
    assert.ok(markdown.includes('kpx-check verify cluster --node-probe exec'), 'verification')
  })
})

describe('--output and --format mistakes', () => {
  const snapshot = join(FIXTURES, 'snapshots', 'kubespray-ipvs-metallb.snapshot.json')

  it('an unknown format or a missing folder is a usage error before anything is read', async () => {
    const unknown = await runCli(['cluster', '--snapshot', snapshot, '--output', 'html=report.html'])
    assert.equal(unknown.code, 2)
    assert.match(unknown.stderr, /--output html=report\.html: expected FORMAT=PATH with FORMAT one of text, json, markdown, junit, sarif/)
    const missing = await runCli(['cluster', '--snapshot', snapshot, '--output', `json=${join(workdir, 'no', 'such', 'r.json')}`])
    assert.equal(missing.code, 2)
    assert.match(missing.stderr, /the folder .*no\/such does not exist/)
  })

  it('an --output that cannot be written: the report is still printed, the failure said, and exit 2 wins', async () => {
    const folder = mkdtempSync(join(workdir, 'taken-'))
    for (const args of [['--format', 'text'], ['--json']]) {
      // The path is a folder: the write fails after the checks before the run passed.
      const {code, stdout, stderr} = await runCli(['cluster', '--snapshot', snapshot, '--output', `junit=${folder}`, ...args])
      assert.equal(code, 2)
      assert.match(stderr, /could not write --output junit=/)
      assert.ok(args[0] === '--json' ? (JSON.parse(stdout) as Report).verdict === 'incomplete' : stdout.startsWith('INCOMPLETE'), stdout.slice(0, 200))
    }
  })

  it('--format json prints the same report as --json, and --format sarif prints SARIF', async () => {
    const json = await runCli(['cluster', '--snapshot', snapshot, '--format', 'json'])
    const viaFlag = await runCli(['cluster', '--snapshot', snapshot, '--json'])
    const strip = (text: string) => text.replace(/"generatedAt":"[^"]+"/, '')
    assert.equal(strip(json.stdout), strip(viaFlag.stdout))
    assert.equal(json.code, viaFlag.code)
    const sarif = await runCli(['cluster', '--snapshot', snapshot, '--format', 'sarif'])
    assert.ok(validateSarif(JSON.parse(sarif.stdout)))
  })

  it('--json on a terminal is indented as JSON.stringify(report, null, 2), in a pipe it is that report on one line, and --output json=FILE is indented', async () => {
    const file = join(workdir, 'indented.json')
    const piped = await runCli(['cluster', '--snapshot', snapshot, '--json', '--output', `json=${file}`])
    assert.equal(piped.stdout.split('\n').length, 2, 'one line and its newline')
    const report = JSON.parse(piped.stdout) as Report
    assert.equal(readFileSync(file, 'utf8'), `${JSON.stringify(report, null, 2)}\n`)
    // script(1) gives the command a real terminal; the terminal ends its lines with CR LF.
    const command = [process.execPath, RUN_JS, 'cluster', '--snapshot', snapshot, '--json'].map((word) => `'${word}'`).join(' ')
    const terminal = spawnSync('script', ['--quiet', '--return', '--command', command, '/dev/null'], {encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}})
    const onTerminal = JSON.parse(terminal.stdout) as Report
    assert.equal(terminal.stdout.replaceAll('\r\n', '\n'), `${JSON.stringify(onTerminal, null, 2)}\n`)
    assert.deepEqual({...onTerminal, generatedAt: ''}, {...report, generatedAt: ''})
  })

  it('--sarif-location places every SARIF result at that repository file too, as GitHub code scanning needs; a path outside the repository or no SARIF output is exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kpx-sarif-'))
    const placed = await runCli(['cluster', '--snapshot', snapshot, '--format', 'sarif', '--output', `sarif=${join(dir, 'kpx.sarif')}`, '--sarif-location', '.github/workflows/kpx-check.yml'])
    for (const text of [placed.stdout, readFileSync(join(dir, 'kpx.sarif'), 'utf8')]) {
      const log = JSON.parse(text) as {runs: Array<{results: Array<{locations: Array<{logicalLocations: unknown[]; physicalLocation?: {artifactLocation: {uri: string}}}>}>}>}
      assert.ok(validateSarif(log), JSON.stringify(validateSarif.errors))
      const uris = log.runs[0].results.map((result) => result.locations[0].physicalLocation?.artifactLocation.uri)
      assert.ok(uris.length > 0)
      assert.deepEqual(new Set(uris), new Set(['.github/workflows/kpx-check.yml']))
    }

    for (const [location, expected] of [
      ['/etc/passwd', /--sarif-location \/etc\/passwd: expected a file path relative to the repository root/],
      ['../outside.yml', /--sarif-location \.\.\/outside\.yml: expected a file path relative to the repository root/],
      ['https://evil.example/x', /--sarif-location https:\/\/evil\.example\/x: expected a file path relative/],
    ] as const) {
      const refused = await runCli(['cluster', '--snapshot', snapshot, '--format', 'sarif', '--sarif-location', location])
      assert.equal(refused.code, 2, location)
      assert.match(refused.stderr, expected)
    }

    const noSarif = await runCli(['cluster', '--snapshot', snapshot, '--sarif-location', 'kpx.yml'])
    assert.equal(noSarif.code, 2)
    assert.match(noSarif.stderr, /--sarif-location kpx\.yml: no SARIF report is written/)
    rmSync(dir, {recursive: true, force: true})
  })

  it('--json with another --format is refused with exit 2 naming both; --json --format json is the same as --json', async () => {
    for (const [command, input, format] of [['cluster', ['--snapshot', snapshot], 'markdown'], ['node', ['--facts', join(FIXTURES, 'bundles', 'debian-12-iptables-root.facts')], 'text']] as const) {
      const {code, stdout} = await runCli([command, ...input, '--json', '--format', format])
      assert.equal(code, 2, `${command} --json --format ${format}`)
      const {error} = JSON.parse(stdout) as {error: {message: string; suggestions: string[]}}
      assert.equal(error.message, `--json and --format ${format} ask for different outputs on stdout`)
      assert.match(error.suggestions[0], /^Keep one of them \(--json is the same as -o json and --format json\)/)
    }

    const agreeing = await runCli(['cluster', '--snapshot', snapshot, '--json', '--format', 'json'])
    assert.equal(agreeing.code, 5, agreeing.stdout.slice(0, 300))
    assert.equal((JSON.parse(agreeing.stdout) as Report).verdict, 'incomplete')
  })
})

describe('--output through a symlink out of the checkout', () => {
  it('a file or a folder of the checkout linked outside it: exit 2 before anything is read, the file outside untouched; a link inside it is written', async () => {
    const checkout = mkdtempSync(join(workdir, 'checkout-'))
    const outside = mkdtempSync(join(workdir, 'outside-'))
    const victim = join(outside, 'victim')
    writeFileSync(victim, 'keep\n')
    symlinkSync(victim, join(checkout, 'report.json'))
    symlinkSync(join(outside, 'missing'), join(checkout, 'dangling.xml'))
    mkdirSync(join(checkout, 'reports'))
    symlinkSync(outside, join(checkout, 'reports', 'out'))
    symlinkSync(join(checkout, 'reports'), join(checkout, 'inside'))
    const bundle = join(FIXTURES, 'bundles', 'debian-12-iptables-root.facts')
    for (const output of ['json=report.json', 'junit=dangling.xml', 'sarif=reports/out/x.sarif', `md=${join(checkout, 'reports', 'out', 'y.md')}`]) {
      const {code, stderr} = await runCli(['node', '--facts', bundle, '--output', output], {cwd: checkout})
      assert.equal(code, 2, `${output}: ${stderr}`)
      assert.match(stderr, /leads out of the working directory .*through a symlink/, output)
    }

    assert.equal(readFileSync(victim, 'utf8'), 'keep\n')
    assert.deepEqual(execFileSync('ls', ['-A', outside], {encoding: 'utf8'}), 'victim\n')
    const {code} = await runCli(['node', '--facts', bundle, '--output', 'json=inside/r.json'], {cwd: checkout})
    assert.notEqual(code, 2)
    assert.ok((JSON.parse(readFileSync(join(checkout, 'reports', 'r.json'), 'utf8')) as Report).verdict)
  })
})
