import assert from 'node:assert/strict'
import {copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {hostname, release, tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {NodeReport, Report} from '../../src/contract/report.js'
import {runCli} from '../helpers/cli.js'
import {kernelVerdicts, writeCorpusBundles} from '../helpers/corpus.js'
import {NODE_RULES, SWITCH_CHECK_RULES} from '../helpers/node-rules.js'
import {FIXTURES} from '../helpers/paths.js'
import {validateReport} from '../helpers/schemas.js'


function assertValidReport(report: unknown): asserts report is Report {
  assert.ok(validateReport(report), JSON.stringify(validateReport.errors, null, 2))
}

const ruleFixture = (rule: string, file: string) => join(FIXTURES, 'rules', rule, file)

describe('kpx-check node', () => {
  let corpusDir: string
  let corpus: ReturnType<typeof writeCorpusBundles>
  before(() => {
    corpusDir = mkdtempSync(join(tmpdir(), 'kpx-corpus-'))
    corpus = writeCorpusBundles(corpusDir)
  })
  after(() => rmSync(corpusDir, {recursive: true, force: true}))

  it('probes this machine: its real kernel and OS, in a report that matches the schema', async () => {
    const {code, stdout} = await runCli(['node', '--json'])
    const report = JSON.parse(stdout)
    assertValidReport(report)
    assert.equal(report.exitCode, code)
    assert.equal(report.nodes.length, 1)
    const [node] = report.nodes
    assert.equal(node.source, 'local')
    assert.equal(node.name, hostname())
    assert.equal(node.kernelRelease, release())
    const osRelease = readFileSync('/etc/os-release', 'utf8')
    assert.equal(node.os.id, /^ID="?([^"\n]+)"?$/m.exec(osRelease)?.[1])
    assert.ok(report.findings.every((finding) => finding.subject.kind === 'Node' && finding.subject.name === hostname()))
  })

  it('evaluates a folder of hundreds of real-world bundles in one report', async () => {
    const {code, stdout, stderr} = await runCli(['node', '--facts', corpusDir, '--json'])
    assert.equal(stderr, '')
    const report = JSON.parse(stdout)
    assertValidReport(report)
    assert.equal(report.nodes.length, corpus.length)
    assert.ok(corpus.length >= 300)
    assert.equal(report.verdict, 'no-go')
    assert.equal(code, 3)
    assert.equal(report.exitCode, 3)

    // kernel-verdicts.tsv holds the expected outcome of every corpus kernel, written apart from the tool; a node
    // whose kube-proxy already runs nftables has nothing to migrate, and the rule does not apply there.
    const verdicts = kernelVerdicts()
    const switched = new Set(report.nodes.filter((node: NodeReport) => node.proxyMode?.running === 'nftables').map((node: NodeReport) => node.name))
    assert.ok(switched.size > 0 && switched.size < corpus.length)
    const kernelFindings = new Map(report.findings.filter((f) => f.rule === 'node/kernel-version').map((f) => [f.subject.name, f]))
    for (const node of corpus) {
      const finding = kernelFindings.get(node.name)
      assert.ok(finding, `no kernel finding for ${node.name}`)
      assert.equal(finding.status, switched.has(node.name) ? 'skip' : verdicts.get(node.kernelRelease), `${node.name} ${node.kernelRelease}`)
    }
  })

  it('reads a bundle from standard input and names the node by its hostname section', async () => {
    const bundle = readFileSync(ruleFixture('kernel-version', 'pass.ubuntu-22.04-azure-5.15.facts'), 'utf8')
    const {stdout} = await runCli(['node', '--facts', '-', '--json'], {input: bundle})
    const report = JSON.parse(stdout)
    assert.equal(report.nodes[0].name, 'aks-nodepool1-12345678-vmss000000')
    assert.equal(report.nodes[0].source, 'facts')
    assert.deepEqual(report.nodes[0].os, {id: 'ubuntu', versionId: '22.04', prettyName: 'Ubuntu 22.04.5 LTS'})
  })

  it('is no-go with exit 3 when a blocker fails, in text and JSON alike', async () => {
    const file = ruleFixture('kernel-version', 'fail.rhel-8.10-4.18.facts')
    const text = await runCli(['node', '--facts', file, '--details'])
    assert.equal(text.code, 3)
    assert.match(text.stdout, /^NO-GO/)
    assert.match(text.stdout, /node\/kernel-version/)
    assert.match(text.stdout, /RHEL 9/)
    const json = await runCli(['node', '--facts', file, '--json'])
    assert.equal(json.code, 3)
    assert.equal(JSON.parse(json.stdout).verdict, 'no-go')
  })

  it('is incomplete with exit 5 when a blocker cannot be checked, unless --allow-incomplete', async () => {
    const file = ruleFixture('kernel-version', 'unknown.no-kernel-release.facts')
    const strict = await runCli(['node', '--facts', file, '--json', '--skip', 'node/localhost-nodeports'])
    assert.equal(strict.code, 5)
    assert.equal(JSON.parse(strict.stdout).verdict, 'incomplete')
    const allowed = await runCli(['node', '--facts', file, '--json', '--allow-incomplete'])
    assert.equal(allowed.code, 0)
    assert.equal(JSON.parse(allowed.stdout).exitCode, 0)
  })

  it('exits 4 on warnings only with --fail-on warning', async () => {
    const file = ruleFixture('nodeport-addresses', 'fail.two-nics.facts')
    // The fixture shows no kube-proxy mode, so the checks after the switch cannot decide either: not blockers here.
    const onlyThese = [
      ...['node/kernel-version', 'node/nft-version', 'node/nf-tables-kernel', 'node/localhost-nodeports', 'node/ipvs-other-users', 'node/nft-json', ...SWITCH_CHECK_RULES].flatMap((rule) => ['--severity', `${rule}=info`]),
    ]
    const lenient = await runCli(['node', '--facts', file, ...onlyThese])
    assert.equal(lenient.code, 0, lenient.stdout)
    const strict = await runCli(['node', '--facts', file, '--fail-on', 'warning', ...onlyThese])
    assert.equal(strict.code, 4, strict.stdout)
  })

  // One node, incomplete (unknown blockers) with a failed warning: each flag decides its own exit code.
  const incompleteWithWarning: Array<[string[], number]> = [
    [['--fail-on', 'warning'], 5],
    [['--allow-incomplete'], 0],
    [['--allow-incomplete', '--fail-on', 'warning'], 4],
  ]
  for (const [flags, exit] of incompleteWithWarning) {
    it(`an incomplete run with a failed warning, ${flags.join(' ')}: exit ${exit}`, async () => {
      const {code, stdout} = await runCli(['node', '--facts', ruleFixture('nodeport-addresses', 'fail.two-nics.facts'), '--json', ...flags])
      const report = JSON.parse(stdout)
      assert.deepEqual([report.verdict, report.summary.warnings, report.exitCode, code], ['incomplete', 1, exit, exit])
    })
  }

  it('loads extra rules with --rules', async () => {
    const file = ruleFixture('kernel-version', 'pass.ubuntu-22.04-azure-5.15.facts')
    const {stdout} = await runCli(['node', '--facts', file, '--rules', join(FIXTURES, 'custom-rules'), '--json'])
    const finding = JSON.parse(stdout).findings.find((f: {rule: string}) => f.rule === 'node/company-kernel-floor')
    assert.equal(finding.status, 'fail')
    assert.equal(finding.severity, 'warning')
  })

  it('bundles that report the same hostname are each kept, named apart by their file; a file named twice is read once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kpx-clones-'))
    try {
      const [first, second] = [join(dir, 'a.facts'), join(dir, 'b.facts')]
      for (const file of [first, second]) copyFileSync(join(FIXTURES, 'bundles', 'debian-12-iptables-root.facts'), file)
      const {code, stdout} = await runCli(['node', '--facts', dir, '--facts', first, '--json'])
      const report = JSON.parse(stdout)
      assertValidReport(report)
      assert.equal(code, 3)
      assert.deepEqual(
        report.nodes.map((node) => [node.name, node.origin]),
        [
          [`worker-bookworm-1 (${first})`, first],
          [`worker-bookworm-1 (${second})`, second],
        ],
      )
      const subjects = new Set(report.findings.map((finding) => finding.subject.name))
      assert.deepEqual([...subjects].toSorted(), [`worker-bookworm-1 (${first})`, `worker-bookworm-1 (${second})`])
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  describe('a bundle cut short: flagged, and none of its facts believed', () => {
    const cutShort = (name: string) => join(FIXTURES, 'bundles', 'cut-short', `${name}.facts`)
    const cases = [
      ['in-the-middle-of-a-section', 'the bundle was cut short: it ends in the middle of a line of section "kernel-config", with no "### end" line'],
      // The sections before the cut came whole, but the `unavailable` list that says which of them failed never came.
      ['right-after-a-section', 'the bundle was cut short: it ends after section "nft-version", which may be cut too, with no "### end" line'],
      ['no-end-line', 'the bundle was cut short: it ends after section "unavailable", which may be cut too, with no "### end" line'],
    ]
    for (const [name, reason] of cases) {
      it(name, async () => {
        const {code, stdout} = await runCli(['node', '--facts', cutShort(name), '--json'])
        const report = JSON.parse(stdout)
        assertValidReport(report)
        assert.equal(code, 5)
        assert.equal(report.verdict, 'incomplete')
        assert.deepEqual(report.nodes.map((node) => [node.name, node.reachable, node.cutShort, node.reason]), [['worker-bookworm-1', true, true, reason]])
        // No check can decide, those after the switch neither: the node's mode is not believed either.
        const [afterSwitch, beforeSwitch] = [report.findings.filter((finding) => finding.rule.startsWith('verify/')), report.findings.filter((finding) => !finding.rule.startsWith('verify/'))]
        assert.deepEqual(
          afterSwitch.map((finding) => [finding.rule, finding.status, finding.reason]).toSorted(),
          SWITCH_CHECK_RULES.map((rule) => [rule, 'unknown', 'truncated']),
        )
        assert.equal(beforeSwitch.length, NODE_RULES.length)
        for (const finding of beforeSwitch) {
          assert.equal(finding.status, 'unknown', finding.rule)
          assert.equal(finding.reason, 'truncated', finding.rule)
          assert.ok(finding.message.includes(`(truncated: ${reason}; collect it again)`), finding.message)
        }
      })
    }

    it('the text report marks the node', async () => {
      const {code, stdout} = await runCli(['node', '--facts', cutShort('right-after-a-section')])
      assert.equal(code, 5)
      assert.match(stdout, /^ {2}worker-bookworm-1 \(cut short\) +\? +\? +\? +incomplete /m)
      const details = await runCli(['node', '--facts', cutShort('right-after-a-section'), '--details'])
      assert.match(details.stdout, /^ {2}worker-bookworm-1 \(cut short\) +facts /m)
    })
  })

  describe('bad input: a clear message and exit 2', () => {
    let dir: string
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'kpx-bad-'))
      writeFileSync(join(dir, 'not-a-bundle.facts'), 'Linux node-1 5.15.0 #1 SMP x86_64 GNU/Linux\n')
      const bundle = '# kpx-check node facts v1\n### hostname\nnode-1\n### end\n'
      writeFileSync(join(dir, 'two-bundles.facts'), bundle + bundle)
    })
    after(() => rmSync(dir, {recursive: true, force: true}))

    const cases: Array<[string, () => string[], RegExp]> = [
      ['an unknown flag', () => ['node', '--frobnicate'], /kpx-check node has no flag --frobnicate/],
      ['a malformed bundle', () => ['node', '--facts', join(dir, 'not-a-bundle.facts')], /not-a-bundle\.facts:1: not a kpx-check facts bundle: expected the first line to be "# kpx-check node facts v1"/],
      ['two bundles in one file', () => ['node', '--facts', join(dir, 'two-bundles.facts')], /two-bundles\.facts:5: not a kpx-check facts bundle: text after the "### end" line that ends the bundle/],
      ['a missing facts path', () => ['node', '--facts', join(dir, 'nope')], /--facts .*nope: no such file or folder/],
      ['a rule file with a typo', () => ['node', '--rules', join(FIXTURES, 'bad-rules', 'typo-field.yaml')], /typo-field\.yaml:3:1 rule: unknown field "severty"; did you mean "severity"\?/],
      ['an unknown rule in --skip', () => ['node', '--skip', 'node/kernal-version'], /--skip node\/kernal-version: no such rule/],
      ['a bad --severity', () => ['node', '--severity', 'node/kernel-version=fatal'], /expected RULE-ID=blocker\|warning\|info/],
    ]
    for (const [name, args, message] of cases) {
      it(`${name}, with and without --json`, async () => {
        const text = await runCli(args())
        assert.equal(text.code, 2, text.stderr)
        assert.match(text.stderr, message)
        const json = await runCli([...args(), '--json'])
        assert.equal(json.code, 2, json.stdout)
        const {error} = JSON.parse(json.stdout)
        assert.match(error.message, message)
        assert.equal(error.exitCode, 2)
      })
    }
  })
})
