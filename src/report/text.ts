import {Chalk, type ChalkInstance} from 'chalk'
import {stripVTControlCharacters} from 'node:util'

import {type GatedFinding, groupByRule, isWaived} from '../contract/finding.js'
import type {NodeCheck, PlanStep, Report} from '../contract/report.js'
import {subjectName} from '../contract/subject.js'
import {leftBehindSentence} from '../util/errors.js'
import {someNames} from '../util/names.js'
import {type FindingSection, findingSection, planConfidenceNote, stepFindingSection, waiverNote} from './finding-notes.js'
import {printableReport} from './printable.js'
import {objectsPast, sameFindings} from './same-findings.js'
import {renderTable} from './table.js'
import {verifyHeadline} from './verify-headline.js'

/** How many subjects of one rule to list before summarising the rest (fleets have hundreds). */
const SUBJECTS_SHOWN = 5
/** Rows of the node table before the rest is summarised. */
const NODES_SHOWN = 50

export interface TextOptions {
  color?: boolean
  /** The terminal's width: prose lines longer than it are broken at spaces (commands and tables never). */
  width?: number
}

export function renderText(untrusted: Report, options: TextOptions = {}): string {
  // Every string in the report may come from a cluster, a node or a file: shown with its controls visible.
  const report = printableReport(untrusted)
  const chalk = new Chalk({level: options.color ? 1 : 0})
  const verdictColor = {go: chalk.green, 'no-go': chalk.red, incomplete: chalk.yellow}[report.verdict]
  const {summary} = report
  // Lines a reader copies or reads by column stay whole, however wide: commands and the node table.
  const verbatim = new Set<string>()
  const nodeTable = renderTable(
    ['NAME', 'SOURCE', 'KERNEL', 'OS', 'NFT', 'RUNS', report.verify ? 'STATE' : 'VERDICT', 'BLOCKERS', 'WARNINGS', 'UNKNOWN'],
    report.nodes.slice(0, NODES_SHOWN).map((node) => {
      // From the node's own checks: a cluster run's findings sum passing and not-collected nodes up.
      const counted = Object.values(node.checks).filter((check) => !isWaived(check))
      const count = (predicate: (check: NodeCheck) => boolean) => String(counted.filter((check) => predicate(check)).length)
      return [
        nodeLabel(node, chalk),
        node.source,
        node.kernelRelease ?? '?',
        node.os.prettyName ?? node.os.id ?? '?',
        node.nftVersion ?? (node.kubeProxyNftVersion === undefined ? '-' : `${node.kubeProxyNftVersion} (image)`),
        runningMode(node),
        node.state ?? node.verdict,
        count((check) => check.status === 'fail' && check.severity === 'blocker'),
        count((check) => check.status === 'fail' && check.severity === 'warning'),
        count((check) => check.status === 'unknown'),
      ]
    }),
    '  ',
  )
  for (const line of nodeTable.split('\n')) verbatim.add(line)
  const headline = report.verify && verifyHeadline(report, report.verify)
  const out: string[] = [
    headline ? `${verdictColor.bold(headline.word)}  ${headline.sentence}` : `${verdictColor.bold(report.verdict.toUpperCase())}  ${verdictSentence(report)}`,
    ...(headline ? [headline.counts] : []),
    ...(report.config?.lowers ? [chalk.yellow(`The configuration file ${report.config.file} lowers the bar: ${report.config.lowers.join(', ')}`)] : []),
    chalk.dim(
      `${summary.blockers} blocker(s) · ${summary.warnings} warning(s) · ${summary.unknown} unknown · ` +
        `${summary.passed} passed · ${summary.skipped} skipped${summary.waived > 0 ? ` · ${summary.waived} waived` : ''} — ${report.nodes.length} node(s), ${report.rules.evaluated} rule(s)`,
    ),
    ...gateLines(report, chalk),
    ...clusterLines(report, chalk),
    '',
    chalk.bold('Nodes'),
    nodeTable,
    ...(report.nodes.length > NODES_SHOWN ? [chalk.dim(`  … and ${report.nodes.length - NODES_SHOWN} more nodes (see --json)`)] : []),
  ]

  const groups: Array<[FindingSection, ChalkInstance, string]> = [
    ['Blockers', chalk.red, '✗'],
    ['Warnings', chalk.yellow, '!'],
    ['Unknown', chalk.magenta, '?'],
    ['Notes', chalk.cyan, 'i'],
    ['Waived', chalk.dim, '~'],
  ]
  // A fix step's actions are its rule's remediation, each line said for the objects that call for it: said here, with the findings.
  const fixes = new Map(report.plan.steps.filter((step) => step.finding?.status === 'fail').map((step) => [step.finding!.rule, step.actions]))
  for (const [title, color, mark] of groups) {
    const findings = report.findings.filter((finding) => findingSection(finding) === title)
    if (findings.length === 0) continue
    out.push('', chalk.bold(`${title} (${findings.length})`))
    for (const [rule, ofRule] of groupByRule(findings)) out.push(...renderRuleGroup(rule, ofRule, {color, mark, fix: title === 'Blockers' || title === 'Warnings' ? fixes.get(rule) : undefined}, chalk))
  }

  out.push(...planLines(report, chalk, verbatim), '', chalk.dim('Details, evidence and every passed check: --json; the plan as a document: --format markdown.'))
  const lines = out.flatMap((line) => line.split('\n'))
  return (options.width ? lines.map((line) => (verbatim.has(line) ? line : wrapLine(line, options.width!))) : lines).join('\n')
}

/** The mode kube-proxy runs in on the node, as the node showed it: `?` when nothing did, `-` for a Windows node. */
export function runningMode(node: Report['nodes'][number]): string {
  if (!node.proxyMode) return '-'
  return node.proxyMode.running ?? '?'
}

/** A node's name in the table, with what went wrong with its facts. */
export function nodeLabel(node: Report['nodes'][number], chalk: ChalkInstance): string {
  if (!node.reachable) return `${node.name} ${chalk.red('(unreachable)')}`
  return node.cutShort ? `${node.name} ${chalk.red('(cut short)')}` : node.name
}

/** The plan closes the report: what to do, in order, with the commands. */
function planLines(report: Report, chalk: ChalkInstance, verbatim: Set<string>): string[] {
  const {plan} = report
  if (report.cluster?.nothingToMigrate) return []
  const note = planConfidenceNote(plan)
  const lines = ['', chalk.bold('Plan'), `  ${plan.summary}`, ...(note ? [chalk.yellow(`  ${note}`)] : []), ...(plan.deadline ? [chalk.yellow(`  Deadline: ${plan.deadline}`)] : []), ...waveLines(plan.waves)]
  const commands = (texts: string[], indent: number, prompt: string, paint: ChalkInstance) => {
    for (const line of texts.flatMap((command) => shellLines(command, indent, prompt)).map((each) => paint(each))) {
      verbatim.add(line)
      lines.push(line)
    }
  }

  for (const [index, step] of plan.steps.entries()) {
    lines.push('', `  ${chalk.bold(`${index + 1}.`)} ${chalk.bold(step.title)} ${chalk.dim(`[${step.phase}]`)}`)
    const section = step.finding && stepFindingSection(report.findings, step.finding)
    // A step made from findings says which, and where the report lists them: their message and fix are said there.
    if (section) lines.push(chalk.dim(`     ${findingReference(step, section)}`))
    else lines.push(chalk.dim(`     ${step.why}`), ...step.actions.map((action) => `     → ${action}`))
    commands(step.commands, 5, '$ ', chalk.cyan)
    for (const check of step.verify) lines.push(`     ${chalk.green('✓')} ${check}`)
    if (step.undo.length > 0) {
      lines.push(chalk.dim('     undo:'))
      commands(step.undo, 7, '', chalk.dim)
    }
  }

  return lines
}

/** `cluster/clusterip-ping on Deployment legacy/billing-worker: what it found and what to do are under Warnings above.` */
function findingReference(step: PlanStep, section: FindingSection): string {
  const what = step.finding?.status === 'fail' ? 'what it found and what to do are' : 'why it is not known is'
  return `${step.finding?.rule} on ${stepObjects(step)}: ${what} under ${section} above.`
}

/** A step's objects, its node groups' nodes as nodes. */
function stepObjects(step: PlanStep): string {
  return objectsByKind(step.subjects.map(({kind, name, members}) => (members ? {kind: 'Node', names: members} : {kind, names: [name]})), 'the cluster')
}

/** Objects by kind, a few named of each: `Node a, b`, `Service x, y, z and 3 more; DaemonSet d`, and the cluster as `cluster` says. */
function objectsByKind(objects: ReadonlyArray<{kind: string; names: string[]}>, cluster: string): string {
  const byKind = new Map<string, string[]>()
  for (const {kind, names} of objects) {
    const known = byKind.get(kind)
    if (known) known.push(...names)
    else byKind.set(kind, [...names])
  }

  return [...byKind].map(([kind, names]) => (kind === 'Cluster' ? cluster : `${kind} ${someNames(names)}`)).join('; ')
}

/** The waves in their order, each with its canary and how many of its nodes can switch now. */
function waveLines(waves: Report['plan']['waves']): string[] {
  if (waves.length === 0) return []
  return [
    '',
    '  Waves, in this order (a canary first in each):',
    ...waves.map((wave, index) => {
      const counts = [`${wave.ready.length} ready`, ...(wave.blocked.length > 0 ? [`${wave.blocked.length} blocked`] : []), ...(wave.undecided.length > 0 ? [`${wave.undecided.length} not checked`] : [])]
      return `    ${index + 1}. ${wave.name}: ${wave.nodes.length} node(s), ${counts.join(', ')}; canary ${wave.canary ?? 'none (no node is ready)'}`
    }),
  ]
}

/** A command as a prompt shows it: `$ ` before its first line (not before a comment), its other lines under it. */
function shellLines(command: string, indent: number, shellPrompt: string): string[] {
  const prompt = command.startsWith('#') ? '' : shellPrompt
  return command.split('\n').map((line, index) => `${' '.repeat(indent)}${index === 0 ? prompt : ' '.repeat(prompt.length)}${line}`)
}

/**
 * A line broken at spaces into lines of at most `width` columns (colour codes take none), each
 * continuation indented under the text after the line's indent and its mark (`→ `, `✓ `, `1. `). A word
 * longer than a line stays whole.
 */
export function wrapLine(line: string, width: number): string {
  const visible = stripVTControlCharacters(line)
  if (visible.length <= width) return line
  const lead = LEAD.exec(visible)![0].length
  const hang = ' '.repeat(lead < width / 2 ? lead : 0)
  const [first, ...words] = line.split(' ')
  const out: string[] = []
  let current = first
  for (const word of words) {
    const candidate = `${current} ${word}`
    // Never break inside the indent and mark: a continuation must have text before it.
    if (stripVTControlCharacters(current).length > lead && stripVTControlCharacters(candidate).length > width) {
      out.push(current)
      current = hang + word
    } else {
      current = candidate
    }
  }

  out.push(current)
  return out.join('\n')
}

/** A line's indent and the mark its text starts with, under which its continuations go. */
const LEAD = /^ *(?:[→✓✗!?i~] |\d+\. )?/

/** What --waivers and --baseline did to the counts and the exit code. */
export function gateLines(report: Report, chalk: ChalkInstance): string[] {
  const lines: string[] = []
  const {waivers, baseline} = report
  if (waivers) {
    lines.push(chalk.dim(`Waivers ${waivers.file}: ${waivers.applied} finding(s) waived, ${waivers.expired} with an expired waiver`))
    for (const unused of waivers.unused) lines.push(chalk.yellow(`  waiver ${unused.source} (${unused.rule} ${unused.subject}) matches nothing: fixed, or mistyped?`))
    for (const note of waivers.notes ?? []) lines.push(chalk.yellow(`  ${note}`))
  }

  if (baseline) {
    lines.push(
      chalk.dim(`Baseline ${baseline.file}: ${baseline.new} new, ${baseline.existing} already there, ${baseline.fixed.length} fixed; the exit code (${report.exitCode}) looks at the new ones only`),
      ...baseline.fixed.slice(0, SUBJECTS_SHOWN).map((fixed) => chalk.green(`  fixed: ${fixed.rule} on ${fixed.subject.kind} ${subjectName(fixed.subject)}`)),
      ...(baseline.notes ?? []).map((note) => chalk.yellow(`  ${note}`)),
    )
  }

  return lines
}

/**
 * What the run learnt of the cluster. Brief (one screen): one line, and what went wrong but the reads that
 * failed, which the screen's "Could not check" says.
 */
export function clusterLines(report: Report, chalk: ChalkInstance, {brief = false} = {}): string[] {
  const {cluster} = report
  if (!cluster) return []
  const kubeProxy = cluster.kubeProxy.workload ? `${cluster.kubeProxy.workload}${cluster.kubeProxy.version ? ` v${cluster.kubeProxy.version}` : ''}` : 'not found'
  if (brief) {
    return [
      `Cluster ${cluster.context ?? '?'} · ${cluster.platform ?? 'platform ?'} · Kubernetes ${cluster.kubernetesVersion ?? '?'} · kube-proxy ${chalk.bold(cluster.proxyMode)} (${kubeProxy})`,
      ...leftOverLines(cluster, chalk),
    ]
  }

  const lines = [
    '',
    chalk.bold('Cluster'),
    `  ${cluster.context ? `context ${cluster.context} · ` : ''}platform ${cluster.platform ?? '?'} · Kubernetes ${cluster.kubernetesVersion ?? '?'}`,
    `  kube-proxy mode ${chalk.bold(cluster.proxyMode)} · ${kubeProxy}${cluster.kubeProxy.replacedBy ? ` · Services handled by ${cluster.kubeProxy.replacedBy}` : ''}`,
    ...(cluster.rollout ? [`  Linux nodes seen running nftables ${cluster.rollout.nftables} · not switched ${cluster.rollout.notSwitched} · mode not seen ${cluster.rollout.unknown} (RUNS below)`] : []),
  ]
  // The plan says it, and has nothing else to say.
  if (cluster.nothingToMigrate) lines.push(chalk.green(`  ${report.plan.summary}`))

  for (const unreadable of cluster.unreadable) lines.push(chalk.yellow(`  Could not read ${unreadable}`))
  return [...lines, ...leftOverLines(cluster, chalk)]
}

/** Inventory hosts and bundles that matched no Node, and what a node probe could not delete. */
function leftOverLines(cluster: NonNullable<Report['cluster']>, chalk: ChalkInstance): string[] {
  return [
    ...(cluster.unmatchedInventory ?? []).map((host) => chalk.yellow(`  Inventory host that is no Node: ${host}`)),
    ...(cluster.unmatchedBundles ?? []).map((bundle) => chalk.yellow(`  Facts bundle for no Node (not used): ${bundle}`)),
    ...(cluster.probeLeftovers ? [chalk.red(`  The probe ${leftBehindSentence(cluster.probeLeftovers)}`)] : []),
  ]
}

export function verdictSentence(report: Report): string {
  switch (report.verdict) {
    case 'go': {
      if (report.nodes.length > 0 && report.nodes.every((node) => node.proxyMode?.running === 'nftables')) return 'Nothing to migrate: kube-proxy already runs in nftables mode on every node (RUNS below).'
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

/** How a section marks its findings, and the fix step's actions for the rule, which say its remediation per object. */
interface RuleGroupStyle {
  color: ChalkInstance
  mark: string
  fix?: string[]
}

function renderRuleGroup(rule: string, findings: GatedFinding[], {color, mark, fix}: RuleGroupStyle, chalk: ChalkInstance): string[] {
  const lines = [`  ${color(mark)} ${chalk.bold(rule)}  ${findings[0].title}${findings.length > 1 ? chalk.dim(` — ${findings.length} subjects`) : ''}`]
  // Each cause once: findings that say the same thing share a line naming their objects.
  const rows = sameFindings(findings, SUBJECTS_SHOWN)
  for (const {finding, subjects, said} of rows.slice(0, SUBJECTS_SHOWN)) {
    const reason = finding.reason ? chalk.dim(` [${finding.reason}]`) : ''
    const isNew = finding.baseline === 'new' ? chalk.bold(' new') : ''
    lines.push(`    ${objectsByKind(subjects.map((subject) => ({kind: subject.kind, names: [subjectName(subject)]})), 'Cluster cluster')}${reason}${isNew}: ${said}`)
    if (finding.waiver) lines.push(chalk.dim(`      ${waiverNote(finding.waiver)}`))
  }

  const hidden = objectsPast(rows, SUBJECTS_SHOWN)
  if (hidden > 0) lines.push(chalk.dim(`    … and ${hidden} more (see --json)`))
  // Remediation is templated per subject (the distro upgrade differs by node): show each step once.
  const remediation = fix ?? [...new Set(findings.flatMap((finding) => finding.remediation))]
  if (remediation.length > 0) {
    lines.push(`    ${chalk.dim('What to do:')}`)
    for (const step of remediation) lines.push(`      → ${step}`)
  }

  if (findings[0].confidence !== 'verified') lines.push(chalk.dim(`    (${findings[0].confidence}: a rule of thumb from the sources, not a hard check)`))
  return lines
}
