/**
 * The fleet's renderers on a fleet made by hand: the example cluster's real report (incomplete, exit 5), the
 * same report made no-go by hand, and two clusters not checked, one with a hostile context name. The expected
 * text, Markdown cells, JUnit counts and SARIF runs are written out here; JUnit is checked against junit-10.xsd
 * with xmllint, SARIF against the OASIS schema, JSON against the published fleet schema.
 */
import assert from 'node:assert/strict'
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it, type TestContext} from 'node:test'

import type {FleetCluster, FleetReport} from '../../src/contract/fleet.js'
import type {Report} from '../../src/contract/report.js'
import {fleetReport} from '../../src/planner/fleet.js'
import {renderFleet} from '../../src/report/fleet.js'
import {skipOutsideCi} from '../helpers/ci.js'
import {nodesOf, parseMarkdown, shown} from '../helpers/markdown.js'
import {exampleClusterReport} from '../helpers/reports.js'
import {JUNIT_XSD, validateFleet, validateSarif} from '../helpers/schemas.js'

/** A context name that would end a table row, start HTML and move the cursor if it were printed as it is. */
const HOSTILE = 'ops|<b>\u001B[2Jx'

let fleet: FleetReport
let workdir: string

before(async () => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-fleet-report-'))
  const incomplete = await exampleClusterReport()
  const noGo: Report = structuredClone(incomplete)
  const blocker = noGo.findings.find((finding) => finding.rule === 'node/nft-version')!
  blocker.status = 'fail'
  blocker.severity = 'blocker'
  delete blocker.reason
  noGo.summary = {...noGo.summary, blockers: 1, unknown: 7, unknownBlockers: 1}
  noGo.verdict = 'no-go'
  noGo.exitCode = 3
  noGo.cluster = {...noGo.cluster!, context: 'prod-b', platform: 'eks', kubernetesVersion: '1.33.5', kubeProxy: {workload: 'DaemonSet kube-system/kube-proxy', version: '1.33.0', replacedBy: null}, proxyMode: 'iptables'}
  const clusters: FleetCluster[] = [
    {context: 'kubespray-prod', verdict: 'incomplete', exitCode: 5, report: incomplete},
    {context: 'prod-b', verdict: 'no-go', exitCode: 3, report: noGo},
    {context: HOSTILE, verdict: 'incomplete', exitCode: 5, error: {reason: 'unreachable', message: 'cannot use the API server https://10.0.0.1:6443 (context ops): connection refused\nsecond line', suggestions: ['Check the server address.']}},
    {context: 'old', verdict: 'incomplete', exitCode: 5, error: {reason: 'unauthorized', message: 'Unauthorized', suggestions: []}},
  ]
  fleet = fleetReport(clusters, new Date('2026-12-01T10:00:00Z'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

describe('the fleet report', () => {
  it('worst verdict and exit code, and the counts', () => {
    assert.deepEqual(fleet.summary, {verdict: 'no-go', exitCode: 3, counts: {clusters: 4, go: 0, noGo: 1, incomplete: 1, notChecked: 2}})
    assert.equal(fleet.kind, 'fleet')
    assert.equal(fleet.generatedAt, '2026-12-01T10:00:00.000Z')
  })

  it('JSON: the fleet as it is, valid against `schema --fleet`', () => {
    const parsed = JSON.parse(renderFleet(fleet, 'json')) as FleetReport
    assert.ok(validateFleet(parsed), JSON.stringify(validateFleet.errors, null, 2))
    assert.deepEqual(parsed.summary, fleet.summary)
    assert.deepEqual(parsed.clusters.map((cluster) => [cluster.context, cluster.report?.findings.length ?? cluster.error?.reason]), [['kubespray-prod', 63], ['prod-b', 63], [HOSTILE, 'unreachable'], ['old', 'unauthorized']])
    // A cluster with neither a report nor an error is refused by the schema.
    const broken = {...parsed, clusters: [{context: 'x', verdict: 'go', exitCode: 0}]}
    assert.equal(validateFleet(broken), false)
  })
})

describe('renderFleet text', () => {
  it('one table, a row per cluster in order; the clusters not checked with their reasons; controls made visible', () => {
    const lines = renderFleet(fleet, 'text').split('\n')
    assert.deepEqual(lines.slice(0, 8), [
      'NO-GO  4 cluster(s): 1 no-go, 1 incomplete, 2 not checked — exit 3',
      '',
      '  CONTEXT          PLATFORM  KUBERNETES  KUBE-PROXY  MODE      VERDICT     BLOCKERS  WARNINGS  UNKNOWN  NOTE',
      '  kubespray-prod   kubeadm   1.32.5      1.32.5      ipvs      incomplete  0         10        23',
      '  prod-b           eks       1.33.5      1.33.0      iptables  no-go       1         10        7',
      String.raw`  ops|<b>\x1B[2Jx  ?         ?           ?           ?         incomplete  -         -         -        not checked: unreachable`,
      '  old              ?         ?           ?           ?         incomplete  -         -         -        not checked: unauthorized',
      '',
    ])
    assert.deepEqual(lines.slice(8, 14), [
      'Not checked (2)',
      String.raw`  ops|<b>\x1B[2Jx [unreachable]: cannot use the API server https://10.0.0.1:6443 (context ops): connection refused`,
      '    second line',
      '    → Check the server address.',
      '  old [unauthorized]: Unauthorized',
      '',
    ])
  })
})

describe('renderFleet text on a terminal 60 columns wide', () => {
  it('the table stays whole, read by column; the other lines wrap under their text', () => {
    const whole = renderFleet(fleet, 'text').split('\n')
    const table = whole.slice(2, 7)
    const lines = renderFleet(fleet, 'text', {width: 60}).split('\n')
    for (const row of table) assert.ok(lines.includes(row), row)
    assert.ok(lines.filter((line) => !table.includes(line)).every((line) => line.length <= 60), lines.join('\n'))
    assert.deepEqual(lines.slice(0, 2), ['NO-GO  4 cluster(s): 1 no-go, 1 incomplete, 2 not checked —', 'exit 3'])
  })
})

describe('renderFleet markdown', () => {
  it('the fleet table as GitHub reads it: a row per cluster, ten cells each, the hostile name as code', () => {
    const markdown = renderFleet(fleet, 'markdown')
    const tree = parseMarkdown(markdown)
    const tables = [...nodesOf(tree)].filter((node) => node.type === 'table')
    const [fleetTable] = tables
    assert.ok(fleetTable.type === 'table')
    const rows = fleetTable.children.map((row) => row.children.map((cell) => shown(cell)))
    assert.deepEqual(rows, [
      ['Context', 'Platform', 'Kubernetes', 'kube-proxy', 'Mode', 'Verdict', 'Blockers', 'Warnings', 'Unknown', 'Note'],
      ['kubespray-prod', 'kubeadm', '1.32.5', '1.32.5', 'ipvs', 'INCOMPLETE', '0', '10', '23', ''],
      ['prod-b', 'eks', '1.33.5', '1.33.0', 'iptables', 'NO-GO', '1', '10', '7', ''],
      [String.raw`ops|<b>\x1B[2Jx`, '?', '?', '?', '?', 'INCOMPLETE', '-', '-', '-', 'not checked: unreachable'],
      ['old', '?', '?', '?', '?', 'INCOMPLETE', '-', '-', '-', 'not checked: unauthorized'],
    ])
    // Nothing from a cluster became HTML, and the error's line break did not end its list item.
    assert.equal([...nodesOf(tree)].filter((node) => node.type === 'html').length, 0)
    assert.match(markdown, /^- `ops\|<b>\\x1B\[2Jx` \(unreachable\): cannot use the API server `https:\/\/10\.0\.0\.1:6443` \(context ops\): connection refused second line$/m)
    // A section per checked cluster, with its blockers and the blockers it could not check.
    const headings = [...nodesOf(tree)].filter((node) => node.type === 'heading').map((node) => shown(node))
    assert.deepEqual(headings, ['kpx-check fleet: NO-GO for kube-proxy nftables mode', 'Not checked (2)', 'kubespray-prod: INCOMPLETE (exit 5)', 'prod-b: NO-GO (exit 3)'])
    assert.equal(tables.length, 4, 'the fleet, kubespray-prod\'s blockers not checked, prod-b\'s blockers and blockers not checked')
    const prodBBlockers = tables[2]
    assert.ok(prodBBlockers.type === 'table')
    assert.deepEqual(prodBBlockers.children.slice(1).map(({children: [rule]}) => shown(rule)), ['node/nft-version'])
  })
})

const HAS_XMLLINT = spawnSync('xmllint', ['--version']).error === undefined

describe('renderFleet junit', () => {
  it('a test suite per cluster, valid against junit-10.xsd; a cluster not checked is one error', (t: TestContext) => {
    if (!HAS_XMLLINT) {
      skipOutsideCi(t, 'xmllint is not installed (apt-get install libxml2-utils)')
      return
    }

    const file = join(workdir, 'fleet.xml')
    writeFileSync(file, renderFleet(fleet, 'junit'))
    const validation = spawnSync('xmllint', ['--noout', '--schema', JUNIT_XSD, file], {encoding: 'utf8'})
    assert.equal(validation.status, 0, validation.stderr)
    const xpath = (expression: string) => execFileSync('xmllint', ['--xpath', expression, file], {encoding: 'utf8'}).trim()
    assert.equal(xpath('count(/testsuites/testsuite)'), '4')
    assert.equal(xpath('string(/testsuites/@name)'), 'kpx-check fleet')
    // The example report has 63 findings (one per object a rule fails on): a test case each; prod-b's nft-version is its one failure.
    assert.equal(xpath('string(/testsuites/testsuite[@name="kubespray-prod"]/@tests)'), '63')
    assert.equal(xpath('string(/testsuites/testsuite[@name="prod-b"]/@failures)'), String(10 + 1))
    assert.equal(xpath('string(/testsuites/testsuite[@name="prod-b"]/properties/property[@name="verdict"]/@value)'), 'no-go')
    assert.equal(xpath('string(/testsuites/testsuite[@name="old"]/testcase/error/@type)'), 'unauthorized')
    assert.equal(xpath('string(/testsuites/@errors)'), '2')
    assert.equal(xpath('string(/testsuites/testsuite[4]/properties/property[@name="exitCode"]/@value)'), '5')
  })
})

describe('renderFleet sarif', () => {
  it('a run per cluster, each with its own category; a cluster not checked is a run that did not execute', () => {
    const log = JSON.parse(renderFleet(fleet, 'sarif')) as {
      runs: Array<{automationDetails: {id: string}; invocations: Array<{executionSuccessful: boolean; exitCode: number; toolExecutionNotifications?: Array<{message: {text: string}}>}>; results: unknown[]; properties: {context: string; verdict: string}}>
    }
    assert.ok(validateSarif(log), JSON.stringify(validateSarif.errors, null, 2))
    assert.deepEqual(
      log.runs.map((run) => [run.automationDetails.id, run.properties.verdict, run.invocations[0].executionSuccessful, run.invocations[0].exitCode]),
      [
        ['kubespray-prod/', 'incomplete', true, 5],
        ['prod-b/', 'no-go', true, 3],
        [`${HOSTILE}/`, 'incomplete', false, 5],
        ['old/', 'incomplete', false, 5],
      ],
    )
    assert.equal(log.runs[3].results.length, 0)
    assert.equal(log.runs[3].invocations[0].toolExecutionNotifications?.[0].message.text, 'Unauthorized')
  })
})
