import {type GatedFinding, groupByRule, type SubjectRef} from '../contract/finding.js'
import type {PlanStep, Report, StepFinding} from '../contract/report.js'
import {type FindingSection, findingSection, planConfidenceNote, stepFindingSection, waiverNote} from './finding-notes.js'
import {anchor, anchorLink, code, codeBlock, joined, link, type Markdown, md, prose, proseWithCode, tableRow} from './markdown-safe.js'
import {objectsPast, type SameFindings, sameFindings} from './same-findings.js'
import {verifyHeadline} from './verify-headline.js'

/** Table rows before the rest is summed up: a change ticket for 5,000 nodes must stay readable. */
const ROWS_SHOWN = 25
/** Objects of one rule listed before the rest are counted (a rule can fail on thousands of Services). */
const SUBJECTS_SHOWN = 5

export const VERDICT_TITLE = {go: 'GO', 'no-go': 'NO-GO', incomplete: 'INCOMPLETE'} as const

/**
 * The report as Markdown, for a change ticket, a pull request or a CI step summary: the verdict, what
 * blocks, the node groups, and the plan with its commands. Every string of the report may come from a
 * cluster, a node or a file: it enters the document only through markdown-safe.ts, as plain text.
 */
export function renderMarkdown(report: Report): string {
  const {summary} = report
  const verdict = VERDICT_TITLE[report.verdict]
  const note = planConfidenceNote(report.plan)
  const waived = summary.waived > 0 ? md` · ${summary.waived} waived` : md``
  const headline = report.verify && verifyHeadline(report, report.verify)
  // Where each rule's findings are listed (`Warnings cluster/x`), for the plan steps that point there.
  const anchors = new Set<string>()
  const out: Markdown[] = [
    headline ? md`# kpx-check verify: ${headline.word}` : md`# kpx-check: ${verdict} for kube-proxy nftables mode`,
    md``,
    ...(headline ? [md`${headline.sentence} ${headline.counts}.`, md``] : []),
    md`**${verdict}** (exit ${report.exitCode}) · ${summary.blockers} blocker(s) · ${summary.warnings} warning(s) · ${summary.unknown} unknown · ${summary.passed} passed${waived} · ${report.nodes.length} node(s) · ${report.tool.name} ${report.tool.version}, ${report.generatedAt}`,
    ...(report.config?.lowers ? [md``, md`> **The configuration file ${code(report.config.file)} lowers the bar:** ${report.config.lowers.join(', ')}`] : []),
    ...changeSummary(report),
    ...checklist(report.plan.steps),
    ...clusterLines(report),
    ...(report.plan.deadline ? [md``, md`> **Deadline:** ${report.plan.deadline}`] : []),
    ...(['Blockers', 'Warnings', 'Unknown', 'Waived'] as const).flatMap((section) => findingTable(section, report.findings, anchors)),
    ...baselineLines(report),
    ...runningModeTable(report),
    ...nodeGroupTable(report),
    ...waveTable(report),
    md``,
    md`## Plan`,
    md``,
    proseWithCode(report.plan.summary),
    ...(note ? [md``, md`> ${note}`] : []),
    ...report.plan.steps.flatMap((step, index) => stepLines(step, index + 1, findingPlace(report, step, anchors), anchors)),
    ...(report.plan.references.length > 0 ? [md``, md`### Sources`, md``, ...report.plan.references.map((reference) => md`- ${link(reference.title, reference.url)}`)] : []),
    md``,
  ]
  return out.join('\n')
}

/**
 * What a change board reads first: what changes where, in how many waves, what it does to traffic, what
 * it takes, how to go back, and what is still open. Each line from the report and the plan; a step is
 * named by its number, as the checklist and the plan below number it.
 */
function changeSummary(report: Report): Markdown[] {
  const {plan, cluster, summary} = report
  if (cluster?.nothingToMigrate) return []
  const stepOf = (phase: PlanStep['phase']) => plan.steps.findIndex((step) => step.phase === phase)
  const linux = report.nodes.filter((node) => !node.windows)
  const mode = cluster ? md`kube-proxy from **${cluster.proxyMode}** to **nftables** mode` : md`kube-proxy to **nftables** mode`
  const where = cluster ? md`cluster ${code(cluster.context ?? '?')} (${cluster.platform ?? 'platform unknown'}, Kubernetes ${cluster.kubernetesVersion ?? '?'})` : md`the nodes checked here`
  const waves = plan.waves.map((wave) => md`${wave.name} (${wave.nodes.length} node(s), ${wave.ready.length} ready)`)
  const canary = stepOf('canary')
  const rollback = stepOf('rollback')
  const restarts = plan.waves.reduce((total, wave) => total + wave.nodes.length - wave.switched.length, 0)
  const fixes = plan.steps.flatMap((step, index) => (step.rules.some((rule) => failingBlocker(report, rule)) ? [index + 1] : []))
  const findOut = plan.steps.flatMap((step, index) => (step.title.startsWith('Find out') ? [index + 1] : []))
  const open = [
    ...(summary.blockers > 0 ? [md`${summary.blockers} blocker(s) to fix (${stepList(fixes)})`] : []),
    ...(summary.unknown > 0 ? [md`${summary.unknown} check(s) not known yet${findOut.length > 0 ? md` (${stepList(findOut)})` : md``}`] : []),
    ...(summary.warnings > 0 ? [md`${summary.warnings} warning(s) to read: they change behaviour after the switch`] : []),
  ]
  return [
    md``,
    md`## Change summary`,
    md``,
    md`- **Scope:** ${mode} on ${linux.length} Linux node(s) of ${where}.`,
    md`- **Waves:** ${waves.length > 0 ? md`${waves.length}, a canary first in each: ${joined(waves, md`; `)}.` : md`none in this plan: ${cluster ? md`no node can switch yet` : md`${code('kpx-check cluster')} plans them`}.`}`,
    md`- **Expected impact:** ${restarts > 0 ? md`kube-proxy restarts on one node at a time (${restarts} restart(s)), which rebuilds that node's Service rules; the other nodes are untouched meanwhile.` : md`no restart is planned yet.`}${summary.warnings > 0 ? md` ${summary.warnings} warning(s) below change behaviour after the switch.` : md``}`,
    md`- **How long:** ${plan.steps.length} step(s); the rollout waits for each node's kube-proxy to be Ready again${canary === -1 ? md`` : md`, after the canary (step ${canary + 1}) has held`}.`,
    md`- **Rollback:** ${rollback === -1 ? md`none in this plan.` : md`step ${rollback + 1}, ${plan.steps[rollback].title}.`}`,
    md`- **Open preconditions:** ${open.length > 0 ? joined(open, md`; `) : md`none`}.`,
  ]
}

/** Whether a failed, unwaived blocker of this rule is in the report. */
function failingBlocker(report: Report, rule: string): boolean {
  return report.findings.some((finding) => finding.rule === rule && findingSection(finding) === 'Blockers')
}

/** `step 3`, `steps 2, 4, 5`. */
function stepList(numbers: number[]): Markdown {
  return numbers.length === 1 ? md`step ${numbers[0]}` : md`steps ${numbers.join(', ')}`
}

/** A box to tick per step of the plan, in its order: the steps themselves, with their commands, follow. */
function checklist(steps: PlanStep[]): Markdown[] {
  if (steps.length === 0) return []
  return [md``, md`## Checklist`, md``, ...steps.map((step, index) => md`- [ ] ${index + 1}. ${step.title} (*${step.phase}*)`)]
}

/** The cluster's line (context, platform, versions, mode) and the reads that failed; nothing for node runs. */
export function clusterLines(report: Report): Markdown[] {
  const {cluster} = report
  if (!cluster) return []
  const kubeProxy = cluster.kubeProxy.workload ? `${cluster.kubeProxy.workload}${cluster.kubeProxy.version ? ` v${cluster.kubeProxy.version}` : ''}` : 'not found'
  return [
    md``,
    md`Cluster ${code(cluster.context ?? '?')} · platform **${cluster.platform ?? '?'}** · Kubernetes ${cluster.kubernetesVersion ?? '?'} · kube-proxy mode **${cluster.proxyMode}** (${kubeProxy})`,
    ...(cluster.rollout
      ? [md``, md`Linux nodes seen running nftables: ${cluster.rollout.nftables} · not switched: ${cluster.rollout.notSwitched} · mode not seen: ${cluster.rollout.unknown}`]
      : []),
    ...cluster.unreadable.map((unreadable) => md`- Could not read ${unreadable}`),
  ]
}

/** The findings a section of the report lists (findingSection, as the text report and the plan steps' links have it). */
function findingTable(title: FindingSection, all: readonly GatedFinding[], anchors: Set<string>): Markdown[] {
  const findings = all.filter((finding) => findingSection(finding) === title)
  if (findings.length === 0) return []
  return [md``, md`## ${title} (${findings.length})`, md``, ...findingRows(findings, {section: title, anchors})]
}

/** Where a findings table marks each rule's first row, and the anchors it made there. */
interface RowAnchors {
  section: FindingSection
  anchors: Set<string>
}

/** What a plan step made from findings points to: the table that lists them, when its rule's row is shown. */
interface FindingPlace {
  section: FindingSection
  rule: string
  status: StepFinding['status']
}

function findingPlace(report: Report, step: PlanStep, anchors: ReadonlySet<string>): FindingPlace | undefined {
  const section = step.finding && stepFindingSection(report.findings, step.finding)
  return section && anchors.has(`${section} ${step.finding!.rule}`) ? {section, ...step.finding!} : undefined
}

/**
 * A table of findings, rule by rule, each cause once: findings of a rule that say the same thing (message
 * and notes) share one row naming their objects, SUBJECTS_SHOWN of them and how many more, and the sentences
 * all of a rule's rows end with are said in its first row only (see same-findings.ts); a rule's first
 * SUBJECTS_SHOWN rows, then how many more (a rule can fail on thousands of Services); the first ROWS_SHOWN rows.
 */
export function findingRows(findings: GatedFinding[], marked?: RowAnchors): Markdown[] {
  const shown: FindingRow[] = []
  for (const [rule, ofRule] of groupByRule(findings)) {
    const rows = sameFindings(ofRule, SUBJECTS_SHOWN)
    shown.push(...rows.slice(0, SUBJECTS_SHOWN))
    const hidden = objectsPast(rows, SUBJECTS_SHOWN)
    if (hidden > 0) shown.push({rule, more: hidden})
  }

  const rows = shown.slice(0, ROWS_SHOWN).map((row) => {
    if ('more' in row) return tableRow([code(row.rule), prose(`… ${row.more} more`), md`see the JSON report`])
    return tableRow([ruleCell(row.finding.rule, marked), joined(someOf(row.subjects, SUBJECTS_SHOWN, subjectName), md`, `), findingText(row.finding, row.said)])
  })
  return [
    md`| Rule | Subject | Finding |`,
    md`|---|---|---|`,
    ...rows,
    ...(shown.length > ROWS_SHOWN ? [md`| … | ${findings.length - countShown(shown.slice(0, ROWS_SHOWN))} more | see the JSON report |`] : []),
  ]
}

/** The rule's id; on its first row, an anchor the plan steps made from its findings link to. */
function ruleCell(rule: string, marked: RowAnchors | undefined): Markdown {
  const place = marked && `${marked.section} ${rule}`
  if (!place || marked.anchors.has(place)) return code(rule)
  marked.anchors.add(place)
  return md`${anchor(place)}${code(rule)}`
}

/** A row of the findings table: findings that say the same thing, or how many more a rule has. */
type FindingRow = SameFindings | {rule: string; more: number}

/** What a finding says (`said`: its message, or the part of it its rule's first row does not say) and its notes; a command's output is left to the JSON report. */
function findingText(finding: GatedFinding, said: string): Markdown {
  const notes = [
    ...(finding.reason ? [md`(${finding.reason})`] : []),
    ...(finding.waiver ? [prose(waiverNote(finding.waiver))] : []),
    ...(finding.baseline === 'new' ? [md`**new**`] : []),
  ]
  const {head, output} = splitOutput(said)
  return joined([proseWithCode(head), ...(output.length > 0 ? [md`(output in the JSON report)`] : []), ...notes], md` `)
}

function baselineLines(report: Report): Markdown[] {
  const {baseline} = report
  if (!baseline) return []
  return [
    md``,
    md`## Since the baseline (${baseline.generatedAt || baseline.file})`,
    md``,
    md`${baseline.new} new, ${baseline.existing} already there, ${baseline.fixed.length} fixed. The exit code gates on the new ones only.`,
    ...baseline.fixed.slice(0, ROWS_SHOWN).map((fixed) => md`- fixed: ${code(fixed.rule)} on ${subjectName(fixed.subject)} (was ${fixed.was})`),
    ...(baseline.notes ?? []).map((note) => md`- note: ${prose(note)}`),
  ]
}

/** The mode kube-proxy runs in on each node, as the node showed it, and what showed it. */
function runningModeTable(report: Report): Markdown[] {
  const nodes = report.nodes.filter((node) => node.proxyMode)
  if (nodes.length === 0) return []
  const rows = nodes.slice(0, ROWS_SHOWN).map((node) => tableRow([prose(node.name), prose(node.proxyMode!.running ?? 'not seen'), prose(node.proxyMode!.evidence)]))
  return [
    md``,
    md`## kube-proxy on the nodes`,
    md``,
    md`| Node | Runs | Seen from |`,
    md`|---|---|---|`,
    ...rows,
    ...(nodes.length > ROWS_SHOWN ? [md`| … | ${nodes.length - ROWS_SHOWN} more | see the JSON report |`] : []),
  ]
}

/** A rule a step not made from its findings answers (the probe step, rollback readiness), linked to their row where a findings table has one. */
function linkedRule(rule: string, anchors: ReadonlySet<string>): Markdown {
  const section = (['Blockers', 'Warnings', 'Unknown'] as const).find((each) => anchors.has(`${each} ${rule}`))
  return section ? anchorLink(code(rule), `${section} ${rule}`) : code(rule)
}

function ruleList(rules: string[]): Markdown {
  return rules.length > 0 ? joined(rules.map((rule) => code(rule)), md`, `) : md`–`
}

function nodeGroupTable(report: Report): Markdown[] {
  const groups = report.plan.nodeGroups
  if (groups.length === 0) return []
  return [
    md``,
    md`## Node groups`,
    md``,
    md`| OS, kernel | Nodes | Blockers | Warnings | Unknown |`,
    md`|---|---|---|---|---|`,
    ...groups.slice(0, ROWS_SHOWN).map((group) => tableRow([prose(group.name), sample(group.nodes), ruleList(group.blockers), ruleList(group.warnings), ruleList(group.unknown)])),
    ...(groups.length > ROWS_SHOWN ? [md`| … ${groups.length - ROWS_SHOWN} more groups | | | | |`] : []),
  ]
}

function waveTable(report: Report): Markdown[] {
  const {waves} = report.plan
  if (waves.length === 0) return []
  const nodesOf = (entries: Array<{node: string}>) => (entries.length > 0 ? sample(entries.map(({node}) => node)) : md`–`)
  return [
    md``,
    md`## Waves`,
    md``,
    md`Nodes switch pool by pool, in this order, each pool's canary first.`,
    md``,
    md`| # | Wave | Nodes | Canary | Ready | Blocked | Not checked |`,
    md`|---|---|---|---|---|---|---|`,
    ...waves
      .slice(0, ROWS_SHOWN)
      .map((wave, index) => tableRow([prose(String(index + 1)), prose(wave.name), prose(String(wave.nodes.length)), wave.canary ? code(wave.canary) : md`none: no node is ready`, prose(String(wave.ready.length)), nodesOf(wave.blocked), nodesOf(wave.undecided)])),
    ...(waves.length > ROWS_SHOWN ? [md`| | … ${waves.length - ROWS_SHOWN} more waves | | | | | |`] : []),
  ]
}

/**
 * A step of the plan. One made from findings links to them for what they found, rather than saying it again;
 * a fix keeps its actions (the rule's remediation, each line for the objects that call for it), so that the
 * change ticket has what to do in the step; a way to find out has none but the finding's message.
 */
function stepLines(step: PlanStep, number: number, found: FindingPlace | undefined, anchors: ReadonlySet<string>): Markdown[] {
  const subjects = someOf(step.subjects, SUBJECTS_SHOWN, (subject) => (subject.members ? md`${subject.name} (${sample(subject.members)})` : subjectName(subject)))
  const actions = found?.status === 'unknown' ? [] : step.actions
  return [
    md``,
    md`### ${number}. ${step.title}`,
    md``,
    ...(found
      ? [md`*${step.phase}* · ${found.status === 'fail' ? 'What it found' : 'Why it is not known'}: ${anchorLink(md`${found.section}, ${code(found.rule)}`, `${found.section} ${found.rule}`)}.`]
      : withOutput(step.why, (head) => md`*${step.phase}* · ${head}`)),
    ...(step.rules.length > 0 ? [md``, md`Answers: ${found ? ruleList(step.rules) : joined(step.rules.map((rule) => linkedRule(rule, anchors)), md`, `)}. Applies to: ${joined(subjects, md`; `)}.`] : []),
    ...(actions.length > 0 ? [md``, ...actions.flatMap((action) => actionLines(action))] : []),
    ...shellBlock(step.commands),
    ...(step.verify.length > 0 ? [md``, md`**Verify**`, md``, ...step.verify.map((line) => md`- ${verifyLine(line)}`)] : []),
    ...(step.undo.length > 0 ? [md``, md`**Undo**`, ...shellBlock(step.undo)] : []),
  ]
}

/**
 * An action in words; one that ends in a command not set between backticks (`List them: kubectl get …`) has
 * the command in a block of its own, whole, rather than the words of it GitHub would set as code.
 */
function actionLines(action: string): Markdown[] {
  const command = TRAILING_COMMAND.exec(action)
  if (!command || action.includes('`') || action.includes('\n')) return withOutput(action, (head) => md`- ${head}`)
  return [md`- ${proseWithCode(command[1])}`, md``, codeBlock([command[2]], 'sh')]
}

/** Words, a colon, then a command of the tools the rules' remediation names. */
const TRAILING_COMMAND = /^(.*?:) ((?:sudo )?(?:kubectl|kpx-check|kubeadm|nft|iptables|ip6tables|ipvsadm|ipset|ip|curl|systemctl|sysctl|modprobe|helm|aws|az|gcloud) .+)$/

/** A check to run, `command   # what it prints` as the recipes write it, is code to paste; any other is a sentence. */
function verifyLine(line: string): Markdown {
  return COMMAND_WITH_EXPECTATION.test(line) ? code(line) : proseWithCode(line)
}

const COMMAND_WITH_EXPECTATION = /^[^`]*\S {2,}# /

function shellBlock(lines: string[]): Markdown[] {
  return lines.length > 0 ? [md``, codeBlock(lines, 'sh')] : []
}

/**
 * A subject as kubectl names it, ready to paste after `kubectl get`: `node/worker-1`,
 * `-n kube-system daemonset/calico-node`. Cluster-wide findings are about the cluster itself.
 */
function subjectName(subject: SubjectRef): Markdown {
  if (subject.kind === 'Cluster') return md`the cluster`
  const kind = subject.kind.toLowerCase()
  if (subject.namespace !== undefined) return code(`-n ${subject.namespace} ${kind}/${subject.name}`)
  // A plan step names an object by its namespaced name.
  const slash = subject.name.indexOf('/')
  return slash === -1 ? code(`${kind}/${subject.name}`) : code(`-n ${subject.name.slice(0, slash)} ${kind}/${subject.name.slice(slash + 1)}`)
}

/** Text whose first line is a sentence (set by `line`) and whose other lines, if any, a command's output, in a block after it. */
function withOutput(text: string, line: (head: Markdown) => Markdown): Markdown[] {
  const {head, output} = splitOutput(text)
  return [line(proseWithCode(head)), ...(output.length > 0 ? [md``, codeBlock(output, 'text')] : [])]
}

/**
 * Text with a command's output in it (nft -c's error, with its tabs and its `^^^` under the rule): the
 * first line reads as a sentence, the lines after it are the output, kept as lines for a code block.
 */
function splitOutput(text: string): {head: string; output: string[]} {
  const [head, ...output] = text.split('\n')
  return {head, output: dedent(output.map((line) => expandTabs(line)))}
}

/** Tabs as the terminal showed them (stops every 8 columns), so a `^^^` stays under what it marks. */
function expandTabs(line: string): string {
  let out = ''
  for (const char of line) out += char === '\t' ? ' '.repeat(8 - (out.length % 8)) : char
  return out
}

/** The indentation every non-blank line shares, taken off. */
function dedent(lines: string[]): string[] {
  const indents = lines.filter((line) => line.trim() !== '').map((line) => line.length - line.trimStart().length)
  const common = indents.length > 0 ? Math.min(...indents) : 0
  return lines.map((line) => line.slice(common))
}

/** The first `shown` items, rendered, then how many more as a part of its own. */
function someOf<T>(items: readonly T[], shown: number, render: (item: T) => Markdown): Markdown[] {
  const parts = items.slice(0, shown).map((item) => render(item))
  return items.length > shown ? [...parts, prose(`and ${items.length - shown} more`)] : parts
}

/** How many findings rows stand for: a row its objects, and a rule's "N more" for N. */
function countShown(rows: readonly FindingRow[]): number {
  return rows.reduce((count, row) => count + ('more' in row ? row.more : row.subjects.length), 0)
}

/** A few names and how many more. */
function sample(names: string[]): Markdown {
  const shown = joined(names.slice(0, 3).map((name) => prose(name)), md`, `)
  return names.length <= 3 ? shown : md`${shown} and ${names.length - 3} more`
}
