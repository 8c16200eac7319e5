import {type GatedFinding, groupByRule, isWaived, SEVERITIES, type Severity} from '../contract/finding.js'
import type {Report} from '../contract/report.js'
import {findingKey, subjectName, subjectPath} from '../contract/subject.js'
import {TOOL_HOMEPAGE} from '../util/version.js'
import {messageOf, statusWithReason} from './finding-notes.js'
import {link, md} from './markdown-safe.js'
import {jsonVisible} from './printable.js'

// SARIF 2.1.0, OASIS Standard with Errata 01; the § numbers below are its sections.

const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json'

/** The level of a failed finding (§3.27.10). */
const LEVELS = {blocker: 'error', warning: 'warning', info: 'note'} as const satisfies Record<Severity, string>

/** Code scanning matches results across runs by partial fingerprints (§3.27.17): ours is the finding's rule and subject. */
const FINGERPRINT = 'kpxFindingKey/v1'

/** The report as a SARIF log; with `location` (--sarif-location), every result is placed at that repository file as well. */
export function renderSarif(report: Report, location?: string): string {
  return sarifLog([sarifRun(report, location)])
}

/** A SARIF log of these runs (§3.13). */
export function sarifLog(runs: object[]): string {
  return jsonVisible(JSON.stringify({$schema: SARIF_SCHEMA, version: '2.1.0', runs}, null, 2))
}

/** The tool that made the runs (§3.18), with the rules that have results in one of them. */
export function sarifTool(report: Pick<Report, 'tool'>, rules: object[]) {
  return {
    driver: {
      name: report.tool.name,
      version: report.tool.version,
      ...(TOOL_HOMEPAGE ? {informationUri: TOOL_HOMEPAGE} : {}),
      rules,
    },
  }
}

/** A report as one SARIF run (§3.14): its failed and unknown findings, and its verdict. */
export function sarifRun(report: Report, location?: string) {
  // Passes and skips are not something to act on: only failed and unknown findings become results.
  const findings = report.findings.filter((finding) => finding.status === 'fail' || finding.status === 'unknown')
  const rules = [...groupByRule(findings)]
  const ruleIndex = new Map(rules.map(([rule], index) => [rule, index]))
  // §3.27.23: suppressions are on every result or on none. With --waivers, each result says whether one accepts it.
  const withSuppressions = report.waivers !== undefined
  return {
    tool: sarifTool(report, rules.map(([rule, ofRule]) => ruleDescriptor(rule, ofRule))),
    // The run finished and wrote its verdict: the exit code is the verdict, not a crash (§3.20.14).
    invocations: [{executionSuccessful: true, exitCode: report.exitCode, endTimeUtc: report.generatedAt}],
    results: findings.map((finding) => result(finding, ruleIndex.get(finding.rule)!, withSuppressions, location)),
    properties: {verdict: report.verdict, summary: report.summary},
  }
}

/** One reportingDescriptor (§3.49) per rule with results, described by what its findings carry. */
function ruleDescriptor(rule: string, findings: GatedFinding[]) {
  const [first] = findings
  // Outcomes can set their own severity: the rule's default level is that of its most severe result.
  const severity = SEVERITIES.find((one) => findings.some((finding) => finding.severity === one))!
  return {
    id: rule,
    name: pascalCase(rule.split('/').at(-1)!),
    shortDescription: {text: first.title},
    ...ruleHelp(findings),
    defaultConfiguration: {level: LEVELS[severity]},
    // Rule ids are `node/…` or `cluster/…`: the scope is a tag to filter by.
    properties: {tags: ['kube-proxy', 'nftables', rule.split('/', 1)[0]], confidence: first.confidence},
  }
}

/** `kernel-version` → `KernelVersion`: a readable name for the rule (§3.49.7). */
function pascalCase(kebab: string): string {
  return kebab
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')
}

/** What to do and where to read more, as text and Markdown (§3.49.13); the first reference is the help page (§3.49.12). */
function ruleHelp(findings: GatedFinding[]): {help?: {markdown: string; text: string}; helpUri?: string} {
  // Remediation is templated per subject (the distro upgrade differs by node): each step once.
  const steps = [...new Set(findings.flatMap((finding) => finding.remediation))]
  const {references} = findings[0]
  const sections = [
    ...(steps.length > 0 ? [{title: 'What to do', text: steps, markdown: steps}] : []),
    ...(references.length > 0
      ? [
          {
            title: 'References',
            text: references.map((reference) => `${reference.title}: ${reference.url}`),
            markdown: references.map((reference) => link(reference.title, reference.url)),
          },
        ]
      : []),
  ]
  if (sections.length === 0) return {}
  return {
    help: {
      text: sections.map((section) => [`${section.title}:`, ...section.text.map((line) => `- ${line}`)].join('\n')).join('\n\n'),
      markdown: sections.map((section) => [md`**${section.title}**`, md``, ...section.markdown.map((line) => md`- ${line}`)].join('\n')).join('\n\n'),
    },
    ...(references.length > 0 ? {helpUri: references[0].url} : {}),
  }
}

function result(finding: GatedFinding, ruleIndex: number, withSuppressions: boolean, location: string | undefined) {
  return {
    ruleId: finding.rule,
    ruleIndex,
    ...outcome(finding),
    message: {text: finding.status === 'unknown' ? `${statusWithReason(finding)}: ${messageOf(finding)}` : messageOf(finding)},
    locations: [
      {
        // §3.33.7 lists "resource" among the logical location kinds, for use wherever it fits: a Node, a Service, the cluster.
        logicalLocations: [{name: subjectName(finding.subject), fullyQualifiedName: subjectPath(finding.subject), kind: 'resource'}],
        // --sarif-location: viewers that show only files (GitHub code scanning) then show the result there.
        ...(location ? {physicalLocation: {artifactLocation: {uri: location}}} : {}),
      },
    ],
    partialFingerprints: {[FINGERPRINT]: findingKey(finding)},
    ...(withSuppressions ? {suppressions: isWaived(finding) ? [suppression(finding)] : []} : {}),
    // §3.27.24: new, or unchanged since the baseline report. --baseline marks every failed or unknown finding.
    ...(finding.baseline ? {baselineState: finding.baseline === 'new' ? 'new' : 'unchanged'} : {}),
    properties: {
      status: finding.status,
      severity: finding.severity,
      confidence: finding.confidence,
      ...(finding.reason ? {reason: finding.reason} : {}),
      evidence: finding.evidence,
      ...(finding.waiver ? {waiver: finding.waiver} : {}),
    },
  }
}

/**
 * A failed finding is a problem of its severity. An unknown one is kind "open": the rule ran and
 * could not decide whether there is a problem (§3.27.9). Any kind but "fail" must have level "none"
 * (§3.27.10), so the severity the finding would have is in its properties and its rule's level.
 */
function outcome(finding: GatedFinding) {
  return finding.status === 'unknown' ? ({kind: 'open', level: 'none'} as const) : ({kind: 'fail', level: LEVELS[finding.severity]} as const)
}

/** An accepted, external suppression (§3.35): the waiver lives in the --waivers file, not in the cluster. */
function suppression(finding: GatedFinding) {
  const waiver = finding.waiver!
  return {
    kind: 'external',
    status: 'accepted',
    justification: waiver.reason,
    properties: {source: waiver.source, ...(waiver.expires ? {expires: waiver.expires} : {})},
  }
}
