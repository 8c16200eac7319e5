import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import type {GatedFinding} from '../../src/contract/finding.js'
import type {Report} from '../../src/contract/report.js'
import {findingKey, subjectPath} from '../../src/contract/subject.js'
import {renderSarif} from '../../src/report/sarif.js'
import {ACTIVE_WAIVER, exampleClusterReport, exampleNodeReport, EXPIRED_WAIVER, firstFinding, waive} from '../helpers/reports.js'
import {SARIF_SCHEMA, validateSarif} from '../helpers/schemas.js'

const FINGERPRINT = 'kpxFindingKey/v1'

/** The parts of a SARIF log the tests read back. */
interface SarifResult {
  ruleId: string
  ruleIndex: number
  kind: string
  level: string
  message: {text: string}
  locations: Array<{logicalLocations: Array<{fullyQualifiedName: string; kind: string; name: string}>}>
  partialFingerprints: Record<string, string>
  suppressions?: Array<{justification: string; kind: string; properties: Record<string, string>; status: string}>
  baselineState?: string
  properties: {confidence: string; evidence: Record<string, unknown>; reason?: string; severity: string; status: string}
}

interface SarifRule {
  id: string
  name: string
  shortDescription: {text: string}
  help?: {markdown: string; text: string}
  helpUri?: string
  defaultConfiguration: {level: string}
  properties: {confidence: string; tags: string[]}
}

interface SarifLog {
  $schema: string
  version: string
  runs: Array<{
    tool: {driver: {informationUri?: string; name: string; rules: SarifRule[]; version: string}}
    invocations: unknown[]
    results: SarifResult[]
    properties: {summary: unknown; verdict: string}
  }>
}

/** Renders the report and checks the log against the OASIS schema. */
function render(report: Report): SarifLog['runs'][number] {
  const log = JSON.parse(renderSarif(report)) as SarifLog
  assert.ok(validateSarif(log), JSON.stringify(validateSarif.errors, null, 2))
  assert.equal(log.$schema, 'https://json.schemastore.org/sarif-2.1.0.json')
  assert.equal(log.version, '2.1.0')
  assert.equal(log.runs.length, 1)
  return log.runs[0]
}

const problems = (report: Report) => report.findings.filter((finding) => finding.status === 'fail' || finding.status === 'unknown')
const location = (result: SarifResult) => result.locations[0].logicalLocations[0]

function resultAt(results: SarifResult[], rule: string, path: string): SarifResult {
  const result = results.find((one) => one.ruleId === rule && location(one).fullyQualifiedName === path)
  assert.ok(result, `no result for ${rule} at ${path}`)
  return result
}

function* objectsIn(value: unknown): Generator<Record<string, unknown>> {
  if (value === null || typeof value !== 'object') return
  if (!Array.isArray(value)) yield value as Record<string, unknown>
  for (const item of Object.values(value)) yield* objectsIn(item)
}

describe('renderSarif', () => {
  it('is checked against the OASIS schema as draft-04 reads it, and the check rejects what SARIF does not allow', async () => {
    // Changed or new after draft-04: a schema using them would validate differently here.
    const changed = new Set(['exclusiveMinimum', 'exclusiveMaximum', 'const', 'contains', 'propertyNames', 'if', 'then', 'else'])
    for (const object of objectsIn(SARIF_SCHEMA)) {
      assert.deepEqual(Object.keys(object).filter((key) => changed.has(key)), [])
      // The drafts ignore keywords beside $ref and ajv applies them: here there are only descriptions beside it.
      if ('$ref' in object) {
        assert.match(String(object.$ref), /^#\/definitions\//)
        assert.deepEqual(Object.keys(object).filter((key) => key !== '$ref' && key !== 'description'), [])
      }
    }

    const valid = JSON.parse(renderSarif(await exampleClusterReport())) as SarifLog
    assert.ok(validateSarif(valid))
    const breakers: Array<(run: SarifLog['runs'][number]) => void> = [
      (run) => (run.results[0].level = 'fatal'),
      (run) => (run.results[0].kind = 'unknown'),
      (run) => delete (run.tool.driver.rules[0] as Partial<SarifRule>).id,
      (run) => (run.results[0].suppressions = [{kind: 'waiver', status: 'accepted', justification: 'x', properties: {}}]),
    ]
    for (const breakIt of breakers) {
      const log = structuredClone(valid)
      breakIt(log.runs[0])
      assert.equal(validateSarif(log), false, String(breakIt))
    }
  })

  it('gives one result per failed or unknown finding of a cluster run, located at its subject path', async () => {
    const report = await exampleClusterReport()
    const run = render(report)
    const expected = problems(report)
    assert.ok(expected.length > 0 && expected.length < report.findings.length, 'the example has passes and skips too')
    assert.deepEqual(
      run.results.map((result) => [result.ruleId, location(result).fullyQualifiedName]),
      expected.map((finding) => [finding.rule, subjectPath(finding.subject)]),
    )

    assert.deepEqual(resultAt(run.results, 'cluster/cni-version', 'daemonset/kube-flannel/kube-flannel-ds').locations, [
      {logicalLocations: [{name: 'kube-flannel/kube-flannel-ds', fullyQualifiedName: 'daemonset/kube-flannel/kube-flannel-ds', kind: 'resource'}]},
    ])
    const hijack = resultAt(run.results, 'cluster/ipvs-lb-hijack', 'service/dns/coredns-external')
    assert.deepEqual([hijack.kind, hijack.level, location(hijack).name], ['fail', 'warning', 'dns/coredns-external'])
    const mode = resultAt(run.results, 'cluster/kube-proxy-mode', 'cluster')
    assert.deepEqual([mode.kind, mode.level, mode.properties.severity], ['fail', 'note', 'info'])

    // Unknown: the rule ran and could not decide. SARIF's kind "open" requires level "none".
    const nfTables = resultAt(run.results, 'node/nf-tables-kernel', 'cluster')
    assert.deepEqual([nfTables.kind, nfTables.level], ['open', 'none'])
    assert.match(nfTables.message.text, /^unknown \(not-collected\): 3 node\(s\), e\.g\. master1\.taikang1\.local: Cannot tell/)
    assert.deepEqual([nfTables.properties.status, nfTables.properties.severity, nfTables.properties.reason], ['unknown', 'blocker', 'not-collected'])

    const rules = run.tool.driver.rules.map((rule) => rule.id)
    assert.deepEqual(rules, [...new Set(expected.map((finding) => finding.rule))])
    assert.ok(!rules.includes('cluster/ipvs-deprecation'), 'a rule that only passed has no descriptor')
    for (const result of run.results) assert.equal(rules[result.ruleIndex], result.ruleId)

    assert.deepEqual(run.invocations, [{executionSuccessful: true, exitCode: 5, endTimeUtc: report.generatedAt}])
    assert.deepEqual(run.properties, {verdict: 'incomplete', summary: report.summary})
    assert.equal(run.tool.driver.name, 'kpx-check')
    assert.equal(run.tool.driver.version, report.tool.version)
    // Without --waivers and --baseline the run has no suppression or baseline information at all.
    assert.ok(run.results.every((result) => !('suppressions' in result) && !('baselineState' in result)))
  })

  it('makes failed blockers errors and warnings warnings on nodes; rules carry the help of their findings', async () => {
    const report = await exampleNodeReport()
    const run = render(report)
    const levels = {blocker: 'error', warning: 'warning', info: 'note'}
    for (const [index, finding] of problems(report).entries()) {
      const result = run.results[index]
      assert.equal(result.level, finding.status === 'fail' ? levels[finding.severity] : 'none', findingKey(finding))
      assert.equal(result.kind, finding.status === 'fail' ? 'fail' : 'open')
    }

    const kernel = resultAt(run.results, 'node/kernel-version', 'node/ip-10-0-1-23')
    assert.deepEqual([kernel.kind, kernel.level, location(kernel).name], ['fail', 'error', 'ip-10-0-1-23'])
    assert.match(kernel.message.text, /^Kernel 5\.4\.0-204-generic is older than 5\.13/)
    assert.equal(kernel.properties.evidence['kernel.release'], '5.4.0-204-generic')
    assert.deepEqual(kernel.partialFingerprints, {[FINGERPRINT]: 'node/kernel-version node/ip-10-0-1-23'})

    const rule = run.tool.driver.rules.find((one) => one.id === 'node/kernel-version')!
    assert.equal(rule.name, 'KernelVersion')
    assert.equal(rule.shortDescription.text, 'Kernel is 5.13 or newer')
    assert.equal(rule.defaultConfiguration.level, 'error')
    assert.equal(rule.helpUri, 'https://kubernetes.io/docs/reference/networking/virtual-ips/#proxy-mode-nftables')
    // The upgrade step is templated per node (Ubuntu and RHEL here): both are in the help, once each.
    assert.equal(rule.help?.text.match(/Move to Ubuntu 22\.04 or newer/g)?.length, 1)
    assert.match(rule.help?.text ?? '', /Move to RHEL 9 or newer/)
    assert.match(rule.help?.markdown ?? '', /^- \[KEP-3866: nftables kube-proxy\]\(<https:\/\/github\.com\/kubernetes\/enhancements\/issues\/3866>\)$/m)
    assert.deepEqual(rule.properties, {tags: ['kube-proxy', 'nftables', 'node'], confidence: 'verified'})

    // A rule whose only results are unknown still has its severity's level as the default.
    const backendMix = run.tool.driver.rules.find((one) => one.id === 'node/iptables-backend-mix')!
    assert.equal(backendMix.defaultConfiguration.level, 'warning')
    assert.ok(run.results.filter((result) => result.ruleId === 'node/iptables-backend-mix').every((result) => result.kind === 'open'))
    assert.deepEqual(run.properties.verdict, 'no-go')
  })

  it('writes remediation into the help Markdown as text: no HTML, link or line break from a template value', async () => {
    const report = await exampleNodeReport()
    const finding = firstFinding(report, 'fail', 'blocker')
    finding.remediation = ['Upgrade n1\n<img src=x onerror=alert(1)> [x](javascript:alert(1))']
    const rule = render(report).tool.driver.rules.find((one) => one.id === finding.rule)!
    assert.match(rule.help?.markdown ?? '', /^- Upgrade n1\\\\n\\<img src=x onerror=alert\(1\)\\> \\\[x\\\]\(javascript:alert\(1\)\)$/m)
  })

  it('fingerprints each result by rule and subject: unique in a run, the same in the next run', async () => {
    const fingerprints = async () => render(await exampleNodeReport()).results.map((result) => result.partialFingerprints[FINGERPRINT])
    const first = await fingerprints()
    assert.equal(new Set(first).size, first.length)
    assert.deepEqual(await fingerprints(), first)
  })

  it('suppresses findings an active waiver accepts, not those whose waiver expired; marks the baseline state', async () => {
    const report = await exampleNodeReport()
    const blocker = firstFinding(report, 'fail', 'blocker')
    const unknown = firstFinding(report, 'unknown')
    const warning = firstFinding(report, 'fail', 'warning')
    waive(report, [
      [blocker, ACTIVE_WAIVER],
      [unknown, ACTIVE_WAIVER],
      [warning, EXPIRED_WAIVER],
    ])
    const marked = problems(report)
    for (const [index, finding] of marked.entries()) finding.baseline = index % 3 === 0 ? 'new' : 'existing'
    const run = render(report)
    const resultOf = (finding: GatedFinding) => run.results.find((result) => result.partialFingerprints[FINGERPRINT] === findingKey(finding))!

    // A waiver hides nothing from SARIF: the waived findings are results, marked as suppressed.
    assert.equal(run.results.length, marked.length)
    const accepted = {kind: 'external', status: 'accepted', justification: ACTIVE_WAIVER.reason, properties: {source: 'waivers.yaml:3', expires: '2099-12-31'}}
    assert.deepEqual(resultOf(blocker).suppressions, [accepted])
    assert.deepEqual(resultOf(unknown).suppressions, [accepted])
    assert.deepEqual(resultOf(warning).suppressions, [])
    assert.match(resultOf(warning).message.text, / \(waiver expired on 2020-01-31 \(waivers\.yaml:9\): Accepted until the node pool rotation\)$/)
    // §3.27.23: with suppression information, every result has it.
    assert.ok(run.results.every((result) => Array.isArray(result.suppressions)))
    assert.equal(run.results.filter((result) => result.suppressions!.length > 0).length, 2)

    const states = {new: 'new', existing: 'unchanged'}
    assert.deepEqual(
      run.results.map((result) => result.baselineState),
      marked.map((finding) => states[finding.baseline!]),
    )
  })
})
