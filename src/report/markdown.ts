import type {GatedFinding} from '../contract/finding.js'
import type {PlanStep, Report} from '../contract/report.js'
import {isWaived} from '../planner/verdict.js'
import {planConfidenceNote, waiverNote} from './finding-notes.js'
import {printableReport} from './printable.js'

/** Table rows before the rest is summed up: a change ticket for 5,000 nodes must stay readable. */
const ROWS_SHOWN = 25

const VERDICT_TITLE = {go: 'GO', 'no-go': 'NO-GO', incomplete: 'INCOMPLETE'} as const

/**
 * The report as Markdown, for a change ticket, a pull request or a CI step summary: the verdict, what
 * blocks, the node groups, and the plan with its commands.
 */
export function renderMarkdown(untrusted: Report): string {
  const report = printableReport(untrusted)
  const {summary} = report
  const out = [
    `# kpx-check: ${VERDICT_TITLE[report.verdict]} for kube-proxy nftables mode`,
    '',
    `**${VERDICT_TITLE[report.verdict]}** (exit ${report.exitCode}) · ${summary.blockers} blocker(s) · ${summary.warnings} warning(s) · ` +
      `${summary.unknown} unknown · ${summary.passed} passed${summary.waived > 0 ? ` · ${summary.waived} waived` : ''} · ` +
      `${report.nodes.length} node(s) · ${report.tool.name} ${report.tool.version}, ${report.generatedAt}`,
    ...clusterLines(report),
    ...(report.plan.deadline ? ['', `> **Deadline:** ${report.plan.deadline}`] : []),
  ]

  const failed = (severity: GatedFinding['severity']) => report.findings.filter((finding) => finding.status === 'fail' && finding.severity === severity && !isWaived(finding))
  out.push(
    ...findingTable('Blockers', failed('blocker')),
    ...findingTable('Warnings', failed('warning')),
    ...findingTable('Unknown', report.findings.filter((finding) => finding.status === 'unknown' && !isWaived(finding))),
    ...findingTable('Waived', report.findings.filter((finding) => isWaived(finding))),
    ...baselineLines(report),
    ...nodeGroupTable(report),
    '',
    '## Plan',
    '',
    report.plan.summary,
    ...(planConfidenceNote(report.plan) ? ['', `> ${planConfidenceNote(report.plan)}`] : []),
    ...report.plan.steps.flatMap((step, index) => stepLines(step, index + 1)),
    ...(report.plan.references.length > 0 ? ['', '### Sources', '', ...report.plan.references.map((reference) => `- [${reference.title}](${reference.url})`)] : []),
    '',
  )
  return out.join('\n')
}

function clusterLines(report: Report): string[] {
  const {cluster} = report
  if (!cluster) return []
  const kubeProxy = cluster.kubeProxy.workload ? `${cluster.kubeProxy.workload}${cluster.kubeProxy.version ? ` v${cluster.kubeProxy.version}` : ''}` : 'not found'
  return [
    '',
    `Cluster ${code(cluster.context ?? '?')} · platform **${cluster.platform ?? '?'}** · Kubernetes ${cluster.kubernetesVersion ?? '?'} · ` +
      `kube-proxy mode **${cluster.proxyMode}** (${kubeProxy})`,
    ...cluster.unreadable.map((unreadable) => `- Could not read ${unreadable}`),
  ]
}

function findingTable(title: string, findings: GatedFinding[]): string[] {
  if (findings.length === 0) return []
  const rows = findings.slice(0, ROWS_SHOWN).map((finding) => {
    const notes = [
      finding.reason ? `(${finding.reason})` : '',
      finding.waiver ? waiverNote(finding.waiver) : '',
      finding.baseline === 'new' ? '**new**' : '',
    ].filter(Boolean)
    return `| ${code(finding.rule)} | ${cell(`${finding.subject.kind} ${finding.subject.name}`)} | ${cell([finding.message, ...notes].join(' '))} |`
  })
  return [
    '',
    `## ${title} (${findings.length})`,
    '',
    '| Rule | Subject | Finding |',
    '|---|---|---|',
    ...rows,
    ...(findings.length > ROWS_SHOWN ? [`| … | ${findings.length - ROWS_SHOWN} more | see the JSON report |`] : []),
  ]
}

function baselineLines(report: Report): string[] {
  const {baseline} = report
  if (!baseline) return []
  return [
    '',
    `## Since the baseline (${baseline.generatedAt || baseline.file})`,
    '',
    `${baseline.new} new, ${baseline.existing} already there, ${baseline.fixed.length} fixed. The exit code gates on the new ones only.`,
    ...baseline.fixed.slice(0, ROWS_SHOWN).map((fixed) => `- fixed: ${code(fixed.rule)} on ${fixed.subject.kind} ${fixed.subject.name} (was ${fixed.was})`),
  ]
}

function ruleList(rules: string[]): string {
  return rules.length > 0 ? rules.map((rule) => code(rule)).join(', ') : '–'
}

function nodeGroupTable(report: Report): string[] {
  const groups = report.plan.nodeGroups
  if (groups.length === 0) return []
  return [
    '',
    '## Node groups',
    '',
    '| OS, kernel | Nodes | Blockers | Warnings | Unknown |',
    '|---|---|---|---|---|',
    ...groups.slice(0, ROWS_SHOWN).map((group) => `| ${cell(group.name)} | ${cell(sample(group.nodes))} | ${ruleList(group.blockers)} | ${ruleList(group.warnings)} | ${ruleList(group.unknown)} |`),
    ...(groups.length > ROWS_SHOWN ? [`| … ${groups.length - ROWS_SHOWN} more groups | | | | |`] : []),
  ]
}

function stepLines(step: PlanStep, number: number): string[] {
  const subjects = step.subjects.map((subject) => (subject.members ? `${subject.name} (${sample(subject.members)})` : `${subject.kind} ${subject.name}`))
  return [
    '',
    `### ${number}. ${step.title}`,
    '',
    `*${step.phase}* · ${step.why}`,
    ...(step.rules.length > 0 ? ['', `Answers: ${step.rules.map((rule) => code(rule)).join(', ')}. Applies to: ${subjects.join('; ')}.`] : []),
    ...(step.actions.length > 0 ? ['', ...step.actions.map((action) => `- ${action}`)] : []),
    ...shellBlock(step.commands),
    ...(step.verify.length > 0 ? ['', '**Verify**', '', ...step.verify.map((line) => `- ${line}`)] : []),
    ...(step.undo.length > 0 ? ['', '**Undo**', ...shellBlock(step.undo)] : []),
  ]
}

function shellBlock(lines: string[]): string[] {
  return lines.length > 0 ? ['', '```sh', ...lines, '```'] : []
}

/** A few names and how many more. */
function sample(names: string[]): string {
  return names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`
}

/** Inline code that survives backticks in the text. */
function code(text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``
}

/** Table cells cannot hold pipes or line breaks. */
function cell(text: string): string {
  return text.replaceAll('|', String.raw`\|`).replaceAll(/\s*\n\s*/g, ' ')
}
