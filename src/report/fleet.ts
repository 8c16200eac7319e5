import {Chalk} from 'chalk'

import {groupByRule, isWaived} from '../contract/finding.js'
import type {FleetCluster, FleetReport} from '../contract/fleet.js'
import type {Report, Verdict} from '../contract/report.js'
import type {ReportFormat} from './formats.js'
import {jsonText} from './json.js'
import {findingCase, junitDocument, reportProperties, type TestSuite} from './junit.js'
import {code, type Markdown, md, prose, tableRow} from './markdown-safe.js'
import {clusterLines, findingRows, VERDICT_TITLE} from './markdown.js'
import {printable, printableLines} from './printable.js'
import type {RenderOptions} from './render.js'
import {sarifLog, sarifRun, sarifTool} from './sarif.js'
import {renderTable} from './table.js'
import {type TextOptions, wrapLine} from './text.js'

/** A fleet in every format a single report has; each cluster's part is rendered as its own report would be. */
export function renderFleet(fleet: FleetReport, format: ReportFormat, options: RenderOptions = {}): string {
  switch (format) {
    case 'text': {
      return `${renderFleetText(fleet, {color: options.color ?? false, width: options.width})}\n`
    }

    case 'json': {
      return jsonText(fleet, {pretty: true})
    }

    case 'markdown': {
      return renderFleetMarkdown(fleet)
    }

    case 'junit': {
      return renderFleetJunit(fleet)
    }

    case 'sarif': {
      return renderFleetSarif(fleet, options.sarifLocation)
    }
  }
}

/** What the fleet table shows of a cluster, as plain strings (not yet made printable). */
interface Row {
  context: string
  platform: string
  kubernetes: string
  kubeProxy: string
  mode: string
  verdict: Verdict
  blockers: string
  warnings: string
  unknown: string
  note: string
}

function rowOf(cluster: FleetCluster): Row {
  const {report, error} = cluster
  const summary = report?.cluster
  const counted = (figure: 'blockers' | 'unknown' | 'warnings') => (report ? String(report.summary[figure]) : '-')
  return {
    context: cluster.context,
    platform: summary?.platform ?? '?',
    kubernetes: summary?.kubernetesVersion ?? '?',
    kubeProxy: summary?.kubeProxy.version ?? (summary?.kubeProxy.replacedBy ? `replaced by ${summary.kubeProxy.replacedBy}` : (summary ? 'not found' : '?')),
    mode: summary?.proxyMode ?? '?',
    verdict: cluster.verdict,
    blockers: counted('blockers'),
    warnings: counted('warnings'),
    unknown: counted('unknown'),
    note: error ? `not checked: ${error.reason}` : (summary?.nothingToMigrate ? 'nothing to migrate' : ''),
  }
}

/** `3 cluster(s): 1 no-go, 1 incomplete, 1 go, 1 not checked` */
function countsSentence(fleet: FleetReport): string {
  const {counts} = fleet.summary
  const parts = [
    [counts.noGo, 'no-go'],
    [counts.incomplete, 'incomplete'],
    [counts.go, 'go'],
    [counts.notChecked, 'not checked'],
  ] as const
  const nonZero = parts.filter(([figure]) => figure > 0).map(([figure, label]) => `${figure} ${label}`)
  return `${counts.clusters} cluster(s): ${nonZero.join(', ') || 'none'}`
}

const unchecked = (fleet: FleetReport) => fleet.clusters.filter((cluster): cluster is FleetCluster & {error: NonNullable<FleetCluster['error']>} => cluster.error !== undefined)

/** The fleet as text: its verdict, the table (never wrapped), and the clusters not checked (wrapped to `width`, on a terminal). */
function renderFleetText(fleet: FleetReport, options: TextOptions = {}): string {
  const chalk = new Chalk({level: options.color ? 1 : 0})
  const verdictColor = {go: chalk.green, 'no-go': chalk.red, incomplete: chalk.yellow}
  const {summary} = fleet
  const rows = fleet.clusters.map((cluster) => rowOf(cluster))
  const table = renderTable(
    ['CONTEXT', 'PLATFORM', 'KUBERNETES', 'KUBE-PROXY', 'MODE', 'VERDICT', 'BLOCKERS', 'WARNINGS', 'UNKNOWN', 'NOTE'],
    rows.map((row) => [
      ...[row.context, row.platform, row.kubernetes, row.kubeProxy, row.mode].map((cell) => printable(cell)),
      verdictColor[row.verdict](row.verdict),
      row.blockers,
      row.warnings,
      row.unknown,
      row.note,
    ]),
    '  ',
  )
  const out = [`${verdictColor[summary.verdict].bold(summary.verdict.toUpperCase())}  ${countsSentence(fleet)} — exit ${summary.exitCode}`, '', table]
  const notChecked = unchecked(fleet)
  if (notChecked.length > 0) {
    out.push('', chalk.bold(`Not checked (${notChecked.length})`))
    for (const {context, error} of notChecked) {
      out.push(`  ${printable(context)} ${chalk.dim(`[${error.reason}]`)}: ${indented(error.message, ' '.repeat(4))}`, ...error.suggestions.map((line) => chalk.dim(`    → ${indented(line, ' '.repeat(6))}`)))
    }
  }

  out.push('', chalk.dim('Each cluster\'s findings and plan: --json (clusters[].report), or the cluster on its own with --context NAME; the fleet as a document: --format markdown.'))
  // The table is read by column: whole, however wide.
  const {width} = options
  return out.map((line) => (width && line !== table ? line.split('\n').map((each) => wrapLine(each, width)).join('\n') : line)).join('\n')
}

/** A message of several lines, its controls visible, its next lines indented under the first. */
function indented(text: string, indent: string): string {
  return printableLines(text).replaceAll('\n', `\n${indent}`)
}

function renderFleetMarkdown(fleet: FleetReport): string {
  const {summary} = fleet
  const verdict = VERDICT_TITLE[summary.verdict]
  const notChecked = unchecked(fleet)
  const checked = fleet.clusters.filter((cluster): cluster is FleetCluster & {report: Report} => cluster.report !== undefined)
  const out: Markdown[] = [
    md`# kpx-check fleet: ${verdict} for kube-proxy nftables mode`,
    md``,
    md`**${verdict}** (exit ${summary.exitCode}) · ${countsSentence(fleet)} · ${fleet.tool.name} ${fleet.tool.version}, ${fleet.generatedAt}`,
    md``,
    md`| Context | Platform | Kubernetes | kube-proxy | Mode | Verdict | Blockers | Warnings | Unknown | Note |`,
    md`|---|---|---|---|---|---|---|---|---|---|`,
    ...fleet.clusters.map((cluster) => {
      const row = rowOf(cluster)
      return tableRow([code(row.context), ...[row.platform, row.kubernetes, row.kubeProxy, row.mode].map((cell) => prose(cell)), md`**${VERDICT_TITLE[row.verdict]}**`, ...[row.blockers, row.warnings, row.unknown, row.note].map((cell) => prose(cell))])
    }),
    ...(notChecked.length > 0 ? [md``, md`## Not checked (${notChecked.length})`, md``, ...notChecked.map(({context, error}) => md`- ${code(context)} (${error.reason}): ${printableLines(error.message).replaceAll('\n', ' ')}`)] : []),
    ...checked.flatMap((cluster) => clusterSection(cluster.context, cluster.report)),
    md``,
    md`Each cluster's full plan: the JSON report (${code('clusters[].report')}), or the cluster on its own with ${code('--context NAME --format markdown')}.`,
    md``,
  ]
  return out.join('\n')
}

/** A checked cluster: its line, the plan's summary, and what blocks or could not be checked among the blockers. */
function clusterSection(context: string, report: Report): Markdown[] {
  const blocking = (status: 'fail' | 'unknown') => report.findings.filter((finding) => finding.status === status && finding.severity === 'blocker' && !isWaived(finding))
  const table = (title: string, findings: ReturnType<typeof blocking>) => (findings.length > 0 ? [md``, md`**${title} (${findings.length})**`, md``, ...findingRows(findings)] : [])
  return [
    md``,
    md`## ${code(context)}: ${VERDICT_TITLE[report.verdict]} (exit ${report.exitCode})`,
    ...clusterLines(report),
    md``,
    md`${report.plan.summary}`,
    ...table('Blockers', blocking('fail')),
    ...table('Blockers not checked', blocking('unknown')),
  ]
}

/** A test suite per cluster: its findings as a single report's test cases, or one error saying why it was not checked. */
function renderFleetJunit(fleet: FleetReport): string {
  const suites: TestSuite[] = fleet.clusters.map((cluster) => {
    const properties: TestSuite['properties'] = [['context', cluster.context]]
    if (!cluster.report) {
      const {reason, message} = cluster.error!
      return {
        name: cluster.context,
        cases: [{classname: 'kpx-check', name: 'cluster', result: {kind: 'error', type: reason, message}}],
        timestamp: fleet.generatedAt,
        properties: [...properties, ['verdict', cluster.verdict], ['exitCode', cluster.exitCode]],
      }
    }

    const {report} = cluster
    return {
      name: cluster.context,
      cases: [...groupByRule(report.findings)].flatMap(([, findings]) => findings.map((finding) => findingCase(finding))),
      timestamp: report.generatedAt,
      properties: [...properties, ...reportProperties(report)],
    }
  })
  return junitDocument('kpx-check fleet', suites)
}

/**
 * A SARIF run per cluster (§3.14), each with its own category (runAutomationDetails, §3.17), which code
 * scanning needs to keep several runs of one tool apart. A cluster not checked is a run that did not
 * execute, with the reason as its notification (§3.20.21).
 */
function renderFleetSarif(fleet: FleetReport, location?: string): string {
  return sarifLog(
    fleet.clusters.map((cluster) => {
      const automationDetails = {id: `${cluster.context}/`}
      if (cluster.report) {
        const run = sarifRun(cluster.report, location)
        return {...run, automationDetails, properties: {...run.properties, context: cluster.context}}
      }

      const {reason, message} = cluster.error!
      return {
        tool: sarifTool(fleet, []),
        automationDetails,
        invocations: [
          {
            executionSuccessful: false,
            exitCode: cluster.exitCode,
            endTimeUtc: fleet.generatedAt,
            toolExecutionNotifications: [{level: 'error', descriptor: {id: reason}, message: {text: message}}],
          },
        ],
        results: [],
        properties: {verdict: cluster.verdict, context: cluster.context, reason},
      }
    }),
  )
}
