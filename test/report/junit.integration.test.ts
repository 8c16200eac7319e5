/**
 * The JUnit report, read back by a real XML parser: xmllint (Debian package libxml2-utils) checks it
 * against the Jenkins xUnit plugin's junit-10.xsd and answers the XPath queries the tests ask.
 */
import assert from 'node:assert/strict'
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it, type TestContext} from 'node:test'

import type {Finding} from '../../src/contract/finding.js'
import type {Report} from '../../src/contract/report.js'
import {subjectPath} from '../../src/contract/subject.js'
import {renderJunit} from '../../src/report/junit.js'
import {skipOutsideCi} from '../helpers/ci.js'
import {ACTIVE_WAIVER, exampleClusterReport, exampleNodeReport, EXPIRED_WAIVER, firstFinding, waive} from '../helpers/reports.js'
import {JUNIT_XSD} from '../helpers/schemas.js'

const HAS_XMLLINT = spawnSync('xmllint', ['--version']).error === undefined

let workdir: string
let rendered = 0
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-junit-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

/** xmllint may be missing on a developer machine, but never in CI. */
function requireXmllint(t: TestContext): boolean {
  if (HAS_XMLLINT) return true
  skipOutsideCi(t, 'xmllint is not installed (apt-get install libxml2-utils)')
  return false
}

type XPath = (expression: string) => string

/** Writes the report's JUnit XML, checks it against the XSD, and returns XPath over it. */
function render(report: Report): XPath {
  const file = join(workdir, `report-${++rendered}.xml`)
  writeFileSync(file, renderJunit(report))
  const validation = spawnSync('xmllint', ['--noout', '--schema', JUNIT_XSD, file], {encoding: 'utf8'})
  assert.equal(validation.status, 0, validation.stderr)
  // xmllint ends what it prints with a newline of its own.
  return (expression) => execFileSync('xmllint', ['--xpath', expression, file], {encoding: 'utf8'}).replace(/\n$/, '')
}

const count = (xpath: XPath, nodes: string) => Number(xpath(`count(${nodes})`))
const testCase = (finding: Finding) => `/testsuites/testsuite[@name="${finding.rule}"]/testcase[@classname="${finding.rule}" and @name="${subjectPath(finding.subject)}"]`

/** Several numbers in one xmllint run (each run reads the file anew). */
function numbers(xpath: XPath, expressions: Record<string, string>): Record<string, number> {
  const values = xpath(`concat(${Object.values(expressions).join(", '|', ")})`).split('|')
  return Object.fromEntries(Object.keys(expressions).map((name, index) => [name, Number(values[index])]))
}

/**
 * Consistency, not correctness: the counts on every element agree with the test cases under it, and
 * with the report's own summary (both come from the same run). assertFailures says which cases fail.
 */
function assertCountsConsistent(report: Report, xpath: XPath): void {
  const {summary} = report
  const rules = new Set(report.findings.map((finding) => finding.rule)).size
  const properties = `property[@name="verdict"]/@value = "${report.verdict}" and property[@name="exitCode"]/@value = "${report.exitCode}"`
  const disagreeing = '@tests != count(testcase) or @failures != count(testcase/failure) or @skipped != count(testcase/skipped) or @errors != 0'
  assert.deepEqual(
    numbers(xpath, {
      cases: 'count(//testcase)',
      failed: 'count(//testcase[failure])',
      skipped: 'count(//testcase[skipped])',
      passed: 'count(//testcase[not(failure) and not(skipped)])',
      errors: 'count(//error)',
      tests: '/testsuites/@tests',
      failures: '/testsuites/@failures',
      rootErrors: '/testsuites/@errors',
      suiteTests: 'sum(/testsuites/testsuite/@tests)',
      suites: 'count(/testsuites/testsuite)',
      disagreeing: `count(/testsuites/testsuite[${disagreeing}])`,
      stamped: `count(/testsuites/testsuite[@timestamp = "${report.generatedAt}"])`,
      withProperties: `count(/testsuites/testsuite[properties[${properties}]])`,
    }),
    {
      cases: report.findings.length,
      failed: summary.blockers + summary.warnings,
      skipped: summary.unknown + summary.skipped + summary.waived,
      passed: summary.passed + summary.info,
      errors: 0,
      tests: report.findings.length,
      failures: summary.blockers + summary.warnings,
      rootErrors: 0,
      suiteTests: report.findings.length,
      suites: rules,
      disagreeing: 0,
      stamped: rules,
      withProperties: rules,
    },
  )
  // Each finding is one test case: classname its rule, name its subject path, in its rule's suite.
  assert.equal(xpath(report.findings.map((finding) => `count(${testCase(finding)}) = 1`).join(' and ')), 'true')
}

/**
 * The failing test cases, written by hand from the fixtures: `rule subject-path type` each, and the
 * total number of test cases (a finding per rule and subject).
 */
function assertFailures(xpath: XPath, tests: number, failing: readonly string[]): void {
  assert.equal(xpath('string(/testsuites/@tests)'), String(tests))
  assert.equal(xpath('string(/testsuites/@failures)'), String(failing.length))
  assert.equal(count(xpath, '//testcase[failure]'), failing.length)
  for (const line of failing) {
    const [rule, subject, type] = line.split(' ')
    assert.equal(count(xpath, `//testcase[@classname="${rule}" and @name="${subject}"]/failure[@type="${type}"]`), 1, line)
  }
}

describe('renderJunit', () => {
  it('writes a cluster run as valid JUnit: a suite per rule, a case per finding, the failing cases of the snapshot', async (t) => {
    if (!requireXmllint(t)) return
    const xpath = render(await exampleClusterReport())
    // 55 rules (26 cluster, 19 node and 10 verify rules, which skip nodes not seen running nftables), one case
    // each for the cluster, and one for each object a rule fails on (two workloads ping a ClusterIP, one
    // Service sets externalIPs, two share a load-balancer address, three allocate NodePorts), beside a case
    // summing up the objects that pass: 63.
    assertFailures(xpath, 63, [
      'cluster/clusterip-ping deployment/legacy/billing-worker warning',
      'cluster/clusterip-ping cronjob/monitoring/dns-canary warning',
      'cluster/cni-version daemonset/kube-flannel/kube-flannel-ds warning',
      'cluster/external-ips service/legacy/billing-api warning',
      'cluster/ipvs-lb-hijack service/dns/coredns-external warning',
      'cluster/ipvs-lb-hijack service/ingress-nginx/ingress-nginx-controller warning',
      'cluster/kubernetes-version cluster warning',
      'cluster/nodeport-addresses service/dns/coredns-external warning',
      'cluster/nodeport-addresses service/ingress-nginx/ingress-nginx-controller warning',
      'cluster/nodeport-addresses service/monitoring/grafana warning',
    ])
    assert.equal(count(xpath, '/testsuites/testsuite'), 55)
    assert.equal(xpath('string(/testsuites/@name)'), 'kpx-check')

    const flannel = '//testcase[@classname="cluster/cni-version" and @name="daemonset/kube-flannel/kube-flannel-ds"]'
    assert.equal(xpath(`string(${flannel}/failure/@type)`), 'warning')
    assert.match(xpath(`string(${flannel}/failure/@message)`), /^\[warning\] flannel 0\.28\.9 runs in iptables mode/)
    // The Service fails two rules: its shared address and its NodePorts.
    assert.equal(count(xpath, '//testcase[@name="service/dns/coredns-external"]/failure[@type="warning"]'), 2)

    // A failed info finding is a note: the case passes and says it in its output.
    const mode = '//testcase[@classname="cluster/kube-proxy-mode" and @name="cluster"]'
    assert.equal(count(xpath, `${mode}[not(failure) and not(skipped)]`), 1)
    assert.match(xpath(`string(${mode}/system-out)`), /^kube-proxy \(DaemonSet kube-system\/kube-proxy\) runs in ipvs mode/)

    assert.match(
      xpath('string(//testcase[@classname="node/nf-tables-kernel" and @name="cluster"]/skipped/@message)'),
      /^unknown \(not-collected\): 3 node\(s\), e\.g\. master1\.taikang1\.local: Cannot tell whether the kernel has nf_tables/,
    )
    assert.match(xpath('string(//testcase[@classname="node/localhost-nodeports" and @name="cluster"]/skipped/@message)'), /^skip \(not-applicable\): 3 Node\(s\) do not apply/)
    assert.equal(count(xpath, '//testcase[@classname="cluster/ipvs-deprecation" and @name="cluster" and not(*)]'), 1)
  })

  it('fails failed blockers with what to do, the references and the evidence', async (t) => {
    if (!requireXmllint(t)) return
    const report = await exampleNodeReport()
    const xpath = render(report)
    // Four bundles, 19 node rules and 10 verify rules: 116 cases. Ubuntu 20.04 (5.4) and RHEL 8.10 (4.18) fail
    // the kernel and the OS check, the Debian 12 node pulls via localhost NodePorts; CBL-Mariner runs nftables
    // already (its /proxyMode), so the pre-switch checks skip it and the verify checks judge it: its
    // kube-proxy counted 17 failed nftables syncs.
    assertFailures(xpath, 116, [
      'verify/nftables-sync-failures node/aks-nodepool1-31718369-vmss000002 blocker',
      'node/kernel-version node/ip-10-0-1-23 blocker',
      'node/kernel-version node/rhel8-worker-07.corp.example blocker',
      'node/localhost-nodeports node/worker-bookworm-1 blocker',
      'node/host-firewall node/rhel8-worker-07.corp.example warning',
      'node/host-firewall node/worker-bookworm-1 warning',
      'node/ipvs-other-users node/ip-10-0-1-23 blocker',
      'node/nodeport-addresses node/ip-10-0-1-23 warning',
      'node/nodeport-addresses node/worker-bookworm-1 warning',
      'node/os-distro node/ip-10-0-1-23 warning',
      'node/os-distro node/rhel8-worker-07.corp.example warning',
    ])
    assert.equal(count(xpath, '/testsuites/testsuite'), 29)

    const kernel = report.findings.find((finding) => finding.rule === 'node/kernel-version' && finding.subject.name === 'ip-10-0-1-23')!
    assert.equal(xpath(`string(${testCase(kernel)}/failure/@type)`), 'blocker')
    assert.equal(xpath(`string(${testCase(kernel)}/failure/@message)`), kernel.message)
    const details = xpath(`string(${testCase(kernel)}/failure)`)
    assert.ok(details.startsWith(`${kernel.message}\nWhat to do:\n  Move to Ubuntu 22.04 or newer`), details)
    assert.match(details, /^References:\n {2}kube-proxy nftables mode requires kernel 5\.13 \(Virtual IPs and Service Proxies\): https:\/\/kubernetes\.io\//m)
    assert.match(details, /^Evidence:\n(?: {2}.*\n)* {2}kernel\.release = 5\.4\.0-204-generic$/m)
    assert.equal(xpath('string(/testsuites/testsuite[1]/properties/property[@name="verdict"]/@value)'), 'no-go')
  })

  it('consistency: every count agrees with the cases under it and with the report summary (cluster and node runs)', async (t) => {
    if (!requireXmllint(t)) return
    for (const report of [await exampleClusterReport(), await exampleNodeReport()]) assertCountsConsistent(report, render(report))
  })

  it('skips waived findings with the waiver; an expired waiver fails the finding again and says so', async (t) => {
    if (!requireXmllint(t)) return
    const report = await exampleNodeReport()
    const blocker = firstFinding(report, 'fail', 'blocker')
    const unknown = firstFinding(report, 'unknown')
    const [warning, openEnded] = report.findings.filter((finding) => finding.status === 'fail' && finding.severity === 'warning')
    waive(report, [
      [blocker, ACTIVE_WAIVER],
      [unknown, ACTIVE_WAIVER],
      [warning, EXPIRED_WAIVER],
      [openEnded, {reason: 'Second NIC is for storage only', expired: false, source: 'waivers.yaml:14'}],
    ])
    const xpath = render(report)
    assertCountsConsistent(report, xpath)
    assert.equal(report.summary.waived, 3)
    // Of the 11 failing cases, the waived blocker and the open-ended warning no longer fail; the expired one does.
    assert.equal(xpath('string(/testsuites/@failures)'), '9')
    assert.equal(count(xpath, '//testcase/skipped[starts-with(@message, "waived")]'), 3)

    const waived = 'waived until 2099-12-31: Kernel upgrade booked for the <Q3> window & tracked in "OPS-42"'
    assert.equal(xpath(`string(${testCase(blocker)}/skipped/@message)`), waived)
    assert.equal(xpath(`string(${testCase(unknown)}/skipped/@message)`), waived)
    assert.equal(xpath(`string(${testCase(openEnded)}/skipped/@message)`), 'waived: Second NIC is for storage only')
    assert.equal(count(xpath, `${testCase(warning)}/failure[@type="warning"]`), 1)
    assert.equal(
      xpath(`string(${testCase(warning)}/failure/@message)`),
      `[warning] ${warning.message} (waiver expired on 2020-01-31 (waivers.yaml:9): Accepted until the node pool rotation)`,
    )
  })

  it('escapes markup, shows control characters as escapes and replaces the characters XML 1.0 cannot carry', async (t) => {
    if (!requireXmllint(t)) return
    const report = await exampleNodeReport()
    const finding = firstFinding(report, 'fail', 'blocker')
    finding.subject = {kind: 'Node', name: 'node-<&>-1'}
    finding.message = 'Tag <b> & "quotes" \'apos\' ]]> nul\u0000 bell\u0007 \u001B[31mred\u001B[0m \uFFFE lone\uD83D pair😀\nline 2\ttab\r\nend'
    finding.remediation = ['Run <nft list ruleset> && check ]]>']
    finding.evidence = {'kernel.release': '5.4.0\u0001-custom'}
    const xpath = render(report)
    const path = testCase(finding)
    assert.match(path, /@name="node\/node-<&>-1"/)
    assert.equal(count(xpath, path), 1)
    // Attribute values keep their line breaks; other controls and a lone surrogate are shown as escapes, as in
    // every format; U+FFFE, which XML 1.0 cannot carry, becomes U+FFFD.
    assert.equal(
      xpath(`string(${path}/failure/@message)`),
      String.raw`Tag <b> & "quotes" 'apos' ]]> nul\x00 bell\x07 \x1B[31mred\x1B[0m � lone\uD83D pair😀` + '\n' + String.raw`line 2\ttab\r` + '\nend',
    )
    const details = xpath(`string(${path}/failure)`)
    assert.match(details, /^What to do:\n {2}Run <nft list ruleset> && check \]\]>$/m)
    assert.match(details, /^ {2}kernel\.release = 5\.4\.0\\x01-custom$/m)
  })
})
