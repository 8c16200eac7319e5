import {Chalk, type ChalkInstance} from 'chalk'

import {type Finding, groupByRule} from '../engine/evaluate.js'
import type {Report} from './report.js'
import {renderTable} from './table.js'

/** How many subjects of one rule to list before summarising the rest (fleets have hundreds). */
const SUBJECTS_SHOWN = 5
/** Rows of the node table before the rest is summarised. */
const NODES_SHOWN = 50

export interface TextOptions {
  color?: boolean
}

/** chalk decides colour from the terminal; NO_COLOR (no-color.org) always turns it off. */
export function defaultColor(): boolean {
  return !process.env.NO_COLOR && Boolean(process.stdout.isTTY)
}

export function renderText(report: Report, options: TextOptions = {}): string {
  const chalk = new Chalk({level: (options.color ?? defaultColor()) ? 1 : 0})
  const verdictColor = {go: chalk.green, 'no-go': chalk.red, incomplete: chalk.yellow}[report.verdict]
  const {summary} = report
  const out: string[] = [
    `${verdictColor.bold(report.verdict.toUpperCase())}  ${verdictSentence(report)}`,
    chalk.dim(
      `${summary.blockers} blocker(s) · ${summary.warnings} warning(s) · ${summary.unknown} unknown · ` +
        `${summary.passed} passed · ${summary.skipped} skipped — ${report.nodes.length} node(s), ${report.rules.evaluated} rule(s)`,
    ),
    ...clusterLines(report, chalk),
    '',
    chalk.bold('Nodes'),
    renderTable(
      ['NAME', 'SOURCE', 'KERNEL', 'OS', 'NFT', 'BLOCKERS', 'WARNINGS', 'UNKNOWN'],
      report.nodes.slice(0, NODES_SHOWN).map((node) => {
        const own = report.findings.filter((finding) => finding.subject.kind === 'Node' && finding.subject.name === node.name)
        const count = (predicate: (finding: Finding) => boolean) => String(own.filter(predicate).length)
        return [
          node.reachable ? node.name : `${node.name} ${chalk.red('(unreachable)')}`,
          node.source,
          node.kernelRelease ?? '?',
          node.os.prettyName ?? node.os.id ?? '?',
          node.nftVersion ?? '-',
          count((finding) => finding.status === 'fail' && finding.severity === 'blocker'),
          count((finding) => finding.status === 'fail' && finding.severity === 'warning'),
          count((finding) => finding.status === 'unknown'),
        ]
      }),
      '  ',
    ),
    ...(report.nodes.length > NODES_SHOWN ? [chalk.dim(`  … and ${report.nodes.length - NODES_SHOWN} more nodes (see --json)`)] : []),
  ]

  const groups: Array<[string, (finding: Finding) => boolean, ChalkInstance, string]> = [
    ['Blockers', (f) => f.status === 'fail' && f.severity === 'blocker', chalk.red, '✗'],
    ['Warnings', (f) => f.status === 'fail' && f.severity === 'warning', chalk.yellow, '!'],
    ['Unknown', (f) => f.status === 'unknown', chalk.magenta, '?'],
    ['Notes', (f) => f.status === 'fail' && f.severity === 'info', chalk.cyan, 'i'],
  ]
  for (const [title, belongs, color, mark] of groups) {
    const findings = report.findings.filter((finding) => belongs(finding))
    if (findings.length === 0) continue
    out.push('', chalk.bold(`${title} (${findings.length})`))
    for (const [rule, ofRule] of groupByRule(findings)) out.push(...renderRuleGroup(rule, ofRule, color, mark, chalk))
  }

  out.push('', chalk.dim('Details, evidence and every passed check: --json. Rules: kpx-check rules.'))
  return out.join('\n')
}

function clusterLines(report: Report, chalk: ChalkInstance): string[] {
  const {cluster} = report
  if (!cluster) return []
  const kubeProxy = cluster.kubeProxy.workload ? `${cluster.kubeProxy.workload}${cluster.kubeProxy.version ? ` v${cluster.kubeProxy.version}` : ''}` : 'not found'
  const lines = [
    '',
    chalk.bold('Cluster'),
    `  ${cluster.context ? `context ${cluster.context} · ` : ''}platform ${cluster.platform ?? '?'} · Kubernetes ${cluster.kubernetesVersion ?? '?'}`,
    `  kube-proxy mode ${chalk.bold(cluster.proxyMode)} · ${kubeProxy}${cluster.kubeProxy.replacedBy ? ` · Services handled by ${cluster.kubeProxy.replacedBy}` : ''}`,
  ]
  if (cluster.nothingToMigrate) {
    lines.push(
      chalk.green(
        cluster.proxyMode === 'nftables'
          ? '  Nothing to migrate: kube-proxy already runs in nftables mode.'
          : `  Nothing to migrate: this cluster runs no kube-proxy${cluster.kubeProxy.replacedBy ? ` (${cluster.kubeProxy.replacedBy} implements Services)` : ''}.`,
      ),
    )
  }

  for (const unreadable of cluster.unreadable) lines.push(chalk.yellow(`  Could not read ${unreadable}`))
  return lines
}

function verdictSentence(report: Report): string {
  switch (report.verdict) {
    case 'go': {
      return report.summary.warnings > 0
        ? 'Nothing blocks the switch to nftables mode; read the warnings first.'
        : 'Nothing blocks the switch to nftables mode.'
    }

    case 'no-go': {
      return 'Switching now would break Service traffic on some nodes: fix the blockers first.'
    }

    case 'incomplete': {
      return 'Some blocking checks could not run: the answer is not known yet.'
    }
  }
}

function renderRuleGroup(rule: string, findings: Finding[], color: ChalkInstance, mark: string, chalk: ChalkInstance): string[] {
  const lines = [`  ${color(mark)} ${chalk.bold(rule)}  ${findings[0].title}${findings.length > 1 ? chalk.dim(` — ${findings.length} subjects`) : ''}`]
  for (const finding of findings.slice(0, SUBJECTS_SHOWN)) {
    const reason = finding.reason ? chalk.dim(` [${finding.reason}]`) : ''
    lines.push(`    ${finding.subject.kind} ${finding.subject.name}${reason}: ${finding.message}`)
  }

  if (findings.length > SUBJECTS_SHOWN) lines.push(chalk.dim(`    … and ${findings.length - SUBJECTS_SHOWN} more (see --json)`))
  // Remediation is templated per subject (the distro upgrade differs by node): show each step once.
  const remediation = [...new Set(findings.flatMap((finding) => finding.remediation))]
  if (remediation.length > 0) {
    lines.push(`    ${chalk.dim('What to do:')}`)
    for (const step of remediation) lines.push(`      → ${step}`)
  }

  if (findings[0].confidence !== 'verified') lines.push(chalk.dim(`    (${findings[0].confidence}: a rule of thumb from the sources, not a hard check)`))
  return lines
}
