/**
 * The text report as it opens on a terminal or in a pipe: one screen. The verdict and what to run next,
 * each source that could not be checked said once with its one next step, a line per failed rule, the
 * nodes problem first (node groups past NODE_ROWS), and the plan's step titles. The long form, with every
 * finding's message, remediation and the plan's commands, is text.ts (--details).
 */
import {Chalk, type ChalkInstance} from 'chalk'
import {stripVTControlCharacters} from 'node:util'

import {type GatedFinding, groupByRule, isWaived} from '../contract/finding.js'
import type {NodeReport, PlanStep, Report, Verdict} from '../contract/report.js'
import {subjectName} from '../contract/subject.js'
import {someNames} from '../util/names.js'
import {printableReport} from './printable.js'
import {renderTable} from './table.js'
import {clusterLines, gateLines, nodeLabel, runningMode, type TextOptions, verdictSentence, wrapLine} from './text.js'
import {verifyHeadline} from './verify-headline.js'

/** Where nothing says how wide the screen is (a pipe, a file): the width the one screen is laid out for. */
const SCREEN_WIDTH = 100
/** Nodes listed one a row; more are shown as groups of nodes alike. */
const NODE_ROWS = 20
/** Groups of nodes listed before the rest are counted. */
const GROUP_ROWS = 12
/** Objects of one rule named on its line before the rest are counted. */
const SUBJECTS_NAMED = 3

/** Problem nodes first: a node that blocks, then one not known, then one ready. */
const VERDICT_ORDER: Record<Verdict, number> = {'no-go': 0, incomplete: 1, go: 2}

/** One cause of unknown checks, said once, with the one thing to do about it. */
interface Cause {
  what: string
  checks: number
  /** Unset where the next cause's step is this one's too (reads refused alike). */
  next?: string
}

export function renderScreen(untrusted: Report, options: TextOptions = {}): string {
  const report = printableReport(untrusted)
  const chalk = new Chalk({level: options.color ? 1 : 0})
  const width = options.width ?? SCREEN_WIDTH
  const fit = (text: string, room = width) => truncate(text, room)
  const verdictColor = {go: chalk.green, 'no-go': chalk.red, incomplete: chalk.yellow}[report.verdict]
  const causes = unknownCauses(report)
  const headline = report.verify && verifyHeadline(report, report.verify)
  const {summary} = report
  const next = nextStep(report, causes)
  const out: string[] = [
    headline ? `${verdictColor.bold(headline.word)}  ${fit(headline.sentence, width - headline.word.length - 2)}` : `${verdictColor.bold(report.verdict.toUpperCase())}  ${verdictSentence(report)}`,
    ...(next ? [`${chalk.bold('Next:')} ${next}`] : []),
    ...(headline ? [headline.counts] : []),
    ...(report.config?.lowers ? [chalk.yellow(`The configuration file ${report.config.file} lowers the bar: ${report.config.lowers.join(', ')}`)] : []),
    chalk.dim(
      `${summary.blockers} blocker(s) · ${summary.warnings} warning(s) · ${summary.unknown} unknown · ${summary.passed} passed` +
        `${summary.waived > 0 ? ` · ${summary.waived} waived` : ''} — ${report.nodes.length} node(s), ${report.rules.evaluated} rule(s)`,
    ),
    ...gateLines(report, chalk),
    ...clusterLines(report, chalk, {brief: true}).map((line) => fit(line)),
  ]

  if (causes.length > 0) {
    out.push('', chalk.bold(`Could not check (${causes.reduce((total, cause) => total + cause.checks, 0)} check(s))`))
    // A refused read names the permission it needs: said whole, over as many lines as it takes.
    for (const cause of causes) out.push(wrapLine(`  ${chalk.magenta('?')} ${cause.what}`, width), ...(cause.next ? [`    → ${cause.next}`] : []))
  }

  const groups: Array<[string, (finding: GatedFinding) => boolean, ChalkInstance, string]> = [
    ['Blockers', (f) => f.status === 'fail' && f.severity === 'blocker', chalk.red, '✗'],
    ['Warnings', (f) => f.status === 'fail' && f.severity === 'warning', chalk.yellow, '!'],
  ]
  const active = report.findings.filter((finding) => !isWaived(finding))
  for (const [title, belongs, color, mark] of groups) {
    const findings = active.filter((finding) => belongs(finding))
    if (findings.length === 0) continue
    out.push('', chalk.bold(`${title} (${findings.length})`))
    for (const [rule, ofRule] of groupByRule(findings)) {
      const lead = `  ${mark} ${rule}  `
      out.push(`  ${color(mark)} ${chalk.bold(rule)}  ${fit(findingLine(ofRule), width - lead.length)}`)
    }
  }

  // Notes change nothing to do: their rules on one line, their text with --details.
  const notes = [...groupByRule(active.filter((finding) => finding.status === 'fail' && finding.severity === 'info')).keys()]
  const waived = report.findings.filter((finding) => isWaived(finding)).length
  out.push(
    ...(notes.length > 0 ? [fit(`${chalk.cyan('i')} ${notes.length} note(s): ${notes.join(', ')}`)] : []),
    ...(waived > 0 ? [chalk.dim(`~ ${waived} waived finding(s): --details lists them`)] : []),
    ...nodeLines(report, chalk, width),
    ...planLines(report, chalk, width),
    '',
    chalk.dim(fit('More: --details (each finding, its fix, the commands) · --json · --format markdown (a change ticket)')),
  )
  return out.join('\n')
}

/** A rule's line: its title, and the objects it is about (kind by kind) when they are not the cluster itself. */
function findingLine(findings: GatedFinding[]): string {
  const byKind = new Map<string, string[]>()
  for (const {subject} of findings) {
    if (subject.kind === 'Cluster') continue
    const names = byKind.get(subject.kind)
    if (names) names.push(subjectName(subject))
    else byKind.set(subject.kind, [subjectName(subject)])
  }

  if (byKind.size === 0) return findings[0].title
  const subjects = [...byKind].map(([kind, names]) => (names.length === 1 ? `${kind} ${names[0]}` : `${names.length} ${kind}s (${someNames(names, SUBJECTS_NAMED)})`))
  return `${findings[0].title}: ${subjects.join(', ')}`
}

/**
 * The unknown checks by what kept them unknown, each cause once: an unreachable node (nodes that failed
 * alike share a line), a read the API server refused, facts only a node shell shows, and the rest by reason.
 */
function unknownCauses(report: Report): Cause[] {
  const unknown = report.findings.filter((finding) => finding.status === 'unknown' && !isWaived(finding))
  const causes: Cause[] = []
  const unreachable = report.nodes.filter((node) => !node.reachable && !node.windows)
  const byReason = new Map<string, NodeReport[]>()
  for (const node of unreachable) {
    const reason = node.reason ?? 'no reason given'
    const alike = byReason.get(reason)
    if (alike) alike.push(node)
    else byReason.set(reason, [node])
  }

  for (const [reason, nodes] of byReason) {
    const checks = nodes.reduce((total, node) => total + Object.values(node.checks).filter((check) => check.status === 'unknown' && !isWaived(check)).length, 0)
    causes.push({what: `${nodeList(nodes.map((node) => node.name))}: ${reason}`, checks, next: unreachableNext(reason, nodes[0].source)})
  }

  const rest = unknown.filter((finding) => finding.reason !== 'node-unreachable')
  const denied = rest.filter((finding) => finding.reason === 'permission-denied')
  const unreadable = report.cluster?.unreadable ?? []
  if (denied.length > 0 && unreadable.length > 0) {
    // Each read the API server refused, once; the checks it left unknown are counted on the first.
    for (const [index, read] of unreadable.entries()) {
      const last = index === unreadable.length - 1
      causes.push({what: `Could not read ${read}`, checks: index === 0 ? denied.length : 0, ...(last ? {next: 'apply the read-only ClusterRole it needs: kpx-check rbac --user USER | kubectl apply -f -'} : {})})
    }
  } else if (denied.length > 0) {
    causes.push({what: `${denied.length} check(s) need root on the node (permission-denied)`, checks: denied.length, next: 'run it as root: sudo kpx-check node, or kpx-check node --ssh USER@NODE --sudo'})
  }

  const shell = rest.filter((finding) => finding.reason === 'not-collected')
  if (shell.length > 0) {
    const probe = report.plan.steps.find((step) => step.id === 'prerequisites/probe-nodes')
    causes.push({
      what: `${groupByRule(shell).size} check(s) need what only a node shell shows (nft, kernel features, firewalls, IPVS users)`,
      checks: shell.length,
      next: (probe && firstCommand(probe)) ?? 'probe the nodes: --node-probe, or facts bundles (--facts)',
    })
  }

  const others = groupByRule(rest.filter((finding) => !['not-collected', 'permission-denied'].includes(finding.reason ?? '')))
  const reasons = new Map<string, number>()
  for (const ofRule of others.values()) for (const finding of ofRule) reasons.set(finding.reason ?? 'unknown', (reasons.get(finding.reason ?? 'unknown') ?? 0) + 1)
  for (const [reason, checks] of reasons) causes.push({what: `${checks} check(s) could not decide (${reason})`, checks, next: '--details shows each one and why'})
  return causes
}

/** What to try when a node could not be probed, by the kind of failure its reason starts with. */
function unreachableNext(reason: string, source: NodeReport['source']): string {
  const kind = /^([a-z-]+)(?: refused)?:/.exec(reason)?.[1]
  if (source === 'ssh') {
    switch (kind) {
      case 'refused': {
        return 'check that sshd runs on the node and listens on that port (ssh -p PORT USER@HOST true)'
      }

      case 'dns': {
        return 'check the host name (getent hosts HOST), or give the node\'s address'
      }

      case 'timeout': {
        return 'check the route and firewall to its SSH port, or go through a bastion (--jump USER@BASTION); a slow node: --timeout'
      }

      case 'auth': {
        return 'give a key the node accepts: --identity FILE, ssh-agent, or IdentityFile in ~/.ssh/config (and the login: USER@HOST)'
      }

      case 'host-key': {
        return 'check the host key\'s fingerprint with the node\'s owner, then add it to known_hosts (or --host-key-policy accept-new for new hosts)'
      }

      case 'sudo': {
        return 'let the login user run sudo without a password, or log in as root'
      }

      default: {
        return 'see where it fails: ssh -v -p PORT USER@HOST true; or collect on the node: kpx-check collect | ssh HOST sudo sh > HOST.facts'
      }
    }
  }

  return '--details shows each node\'s checks; kpx-check collect on the node, then --facts, reads it without this probe'
}

/** `Node a`, `3 nodes a, b, c`, `40 nodes a, b, c and 37 more`. */
function nodeList(names: string[]): string {
  return `${names.length === 1 ? 'Node' : `${names.length} nodes`} ${someNames(names, SUBJECTS_NAMED)}`
}

/** A step's first command (not a comment), without the comment after it. */
function firstCommand(step: PlanStep): string | undefined {
  const command = step.commands.find((line) => !line.startsWith('#'))
  return command?.split('\n', 1)[0].replace(/ {2,}# .*$/, '')
}

/**
 * What to run next, in the headline: for an incomplete answer, the first cause's next step; for a
 * no-go, the first step that fixes a failed blocker.
 */
function nextStep(report: Report, causes: Cause[]): string | undefined {
  if (report.verdict === 'incomplete') return causes.find((cause) => cause.next)?.next
  if (report.verdict !== 'no-go') return undefined
  const blocking = new Set(report.findings.filter((finding) => finding.status === 'fail' && finding.severity === 'blocker' && !isWaived(finding)).map((finding) => finding.rule))
  const index = report.plan.steps.findIndex((step) => step.rules.some((rule) => blocking.has(rule)))
  if (index === -1) return undefined
  const step = report.plan.steps[index]
  const command = firstCommand(step)
  return `step ${index + 1}, ${step.title}${command ? `: ${command}` : ''}`
}

/** The nodes, problem nodes first: a row each up to NODE_ROWS, groups of nodes alike past that. */
function nodeLines(report: Report, chalk: ChalkInstance, width: number): string[] {
  if (report.nodes.length === 0) return []
  const nodes = report.nodes.toSorted((a, b) => VERDICT_ORDER[a.verdict] - VERDICT_ORDER[b.verdict])
  const state = report.verify ? 'STATE' : 'VERDICT'
  if (nodes.length <= NODE_ROWS) {
    // NFT only where some node showed one: through the API alone, none does.
    const nft = nodes.some((node) => nftOf(node) !== '-')
    const rows = nodes.map((node) => [nodeLabel(node, chalk), node.kernelRelease ?? '?', osOf(node), ...(nft ? [nftOf(node)] : []), runningMode(node), node.state ?? node.verdict, counts(node)])
    const header = ['NAME', 'KERNEL', 'OS', ...(nft ? ['NFT'] : []), 'RUNS', state, 'BLOCK/WARN/UNKN']
    return ['', chalk.bold('Nodes'), fitTable(header, rows, width, [2, 1, 0])]
  }

  const groups = new Map<string, {nodes: NodeReport[]; row: string[]}>()
  for (const node of nodes) {
    const failing = Object.entries(node.checks).filter(([, check]) => check.status === 'fail' && check.severity === 'blocker' && !isWaived(check)).map(([rule]) => rule)
    const row = [node.state ?? node.verdict, osOf(node), node.kernelRelease ?? '?', runningMode(node), failing.length > 1 ? `${failing[0]} +${failing.length - 1}` : (failing[0] ?? '-')]
    const key = row.join('\u0000')
    const group = groups.get(key)
    if (group) group.nodes.push(node)
    else groups.set(key, {nodes: [node], row})
  }

  const sorted = [...groups.values()].toSorted((a, b) => VERDICT_ORDER[a.nodes[0].verdict] - VERDICT_ORDER[b.nodes[0].verdict] || b.nodes.length - a.nodes.length)
  const rows = sorted.slice(0, GROUP_ROWS).map(({nodes: members, row}) => [row[0], String(members.length), ...row.slice(1), members[0].name])
  return [
    '',
    chalk.bold(`Nodes (${nodes.length}, in ${groups.size} group(s) alike)`),
    fitTable([state, 'NODES', 'OS', 'KERNEL', 'RUNS', 'BLOCKERS', 'FOR EXAMPLE'], rows, width, [2, 3, 6, 5]),
    ...(groups.size > GROUP_ROWS ? [chalk.dim(`  … and ${groups.size - GROUP_ROWS} more group(s): --details`)] : []),
  ]
}

/** `rhel 8.10`: shorter than its pretty name (Red Hat Enterprise Linux 8.10 (Ootpa)), which --details shows. */
function osOf(node: NodeReport): string {
  const {id, versionId, prettyName} = node.os
  if (id && versionId) return `${id} ${versionId}`
  return prettyName ?? id ?? '?'
}

function nftOf(node: NodeReport): string {
  return node.nftVersion ?? (node.kubeProxyNftVersion === undefined ? '-' : `${node.kubeProxyNftVersion} (image)`)
}

/** `1/0/13`: a node's own failed blockers, failed warnings and unknown checks. */
function counts(node: NodeReport): string {
  const checks = Object.values(node.checks).filter((check) => !isWaived(check))
  const blockers = checks.filter((check) => check.status === 'fail' && check.severity === 'blocker').length
  const warnings = checks.filter((check) => check.status === 'fail' && check.severity === 'warning').length
  const unknown = checks.filter((check) => check.status === 'unknown').length
  return `${blockers}/${warnings}/${unknown}`
}

/**
 * A table that fits `width` columns: the cells of the `shrinkable` columns (in that order) are cut short,
 * with an ellipsis, until it does. No cell is ever broken over two lines.
 */
function fitTable(header: string[], rows: string[][], width: number, shrinkable: number[]): string {
  const cells = rows.map((row) => [...row])
  const indent = '  '
  const tableWidth = () => Math.max(...stripVTControlCharacters(renderTable(header, cells, indent)).split('\n').map((line) => line.length))
  for (const column of shrinkable) {
    const excess = tableWidth() - width
    if (excess <= 0) break
    const widest = Math.max(header[column].length, ...cells.map((row) => stripVTControlCharacters(row[column]).length))
    const room = Math.max(header[column].length, 8, widest - excess)
    for (const row of cells) row[column] = truncate(row[column], room)
  }

  return renderTable(header, cells, indent)
}

/** The plan: its summary and its steps' titles, numbered as --details and the Markdown number them. */
function planLines(report: Report, chalk: ChalkInstance, width: number): string[] {
  const {plan} = report
  if (report.cluster?.nothingToMigrate || plan.steps.length === 0) return []
  const lines = ['', `${chalk.bold('Plan')}  ${truncate(plan.summary, width - 6)}`]
  // Steps that each find out one rule's answer are said together: their cause is said once above.
  const findOut = plan.steps.flatMap((step, index) => (isFindOutStep(step) ? [index + 1] : []))
  for (const [index, step] of plan.steps.entries()) {
    const number = index + 1
    if (findOut.length > 1 && findOut.includes(number)) {
      if (number !== findOut[0]) continue
      const title = `Find out what ${findOut.length} checks could not see (Could not check, above)`
      lines.push(`  ${chalk.bold(`${numberRanges(findOut)}.`)} ${truncate(title, width - numberRanges(findOut).length - 4)}`)
      continue
    }

    const lead = `  ${number}. `
    lines.push(`  ${chalk.bold(`${number}.`)} ${truncate(`${step.title} [${step.phase}]`, width - lead.length)}`)
  }

  return lines
}

/** A step the planner made for one rule that could not decide: `Find out: <its title>`. */
function isFindOutStep(step: PlanStep): boolean {
  return step.rules.length === 1 && step.title.startsWith('Find out: ')
}

/** `2–5, 7, 9–10`. */
function numberRanges(numbers: number[]): string {
  const ranges: string[] = []
  let start = numbers[0]
  for (const [index, number] of numbers.entries()) {
    const following = numbers[index + 1]
    if (following === number + 1) continue
    ranges.push(start === number ? String(number) : `${start}–${number}`)
    start = following
  }

  return ranges.join(', ')
}

/**
 * Text cut to `room` characters with an ellipsis: the plain text is cut (never a colour code in half), by
 * code points (never a surrogate pair in half).
 */
function truncate(text: string, room: number): string {
  const visible = [...stripVTControlCharacters(text)]
  if (visible.length <= room) return text
  return `${visible.slice(0, Math.max(1, room - 1)).join('').trimEnd()}…`
}
