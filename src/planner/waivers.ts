import {Ajv} from 'ajv'
import {readFile} from 'node:fs/promises'

import type {Finding} from '../engine/evaluate.js'
import {UsageError} from '../errors.js'
import type {WaiverSummary} from '../report/report.js'
import {subjectPath} from '../report/subject.js'
import {formatProblem, parseYamlFile} from '../yaml-file.js'

/** One accepted risk: a rule's failures (or unknowns) on matching subjects, with why and until when. */
export interface Waiver {
  rule: string
  /** A pattern over subject paths (node/edge-*, service/default/*); * stops at /, ** does not. */
  subject: string
  reason: string
  /** The last day the waiver holds, YYYY-MM-DD (UTC). */
  expires?: string
  /** FILE:LINE, so a report points back at the entry. */
  source: string
}

export const WAIVERS_FILE_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'kpx-check waivers',
  type: 'object',
  additionalProperties: false,
  required: ['waivers'],
  properties: {
    waivers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['rule', 'reason'],
        properties: {
          rule: {type: 'string', description: 'The rule id (kpx-check rules lists them).'},
          subject: {type: 'string', minLength: 1, description: 'Subjects it covers: node/NAME, service/NS/NAME, daemonset/NS/NAME, cluster; * and ** as wildcards (default **).'},
          reason: {type: 'string', minLength: 8, description: 'Why the risk is accepted, for the next reader: a ticket, a name.'},
          expires: {type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'Last day the waiver holds (YYYY-MM-DD); after it, the finding counts again.'},
        },
      },
    },
  },
} as const

const validateWaiversFile = new Ajv({allErrors: true, strict: false, verbose: true}).compile(WAIVERS_FILE_SCHEMA)

interface WaiverEntry {
  rule: string
  subject?: string
  reason: string
  expires?: string
}

/** Reads a waivers file; any mistake (unknown rule, bad date, unknown field) is a usage error naming FILE:LINE. */
export async function readWaivers(path: string, ruleIds: ReadonlySet<string>): Promise<Waiver[]> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new UsageError(`--waivers ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`)
  }

  const parsed = parseYamlFile<{waivers: WaiverEntry[]}>(text, path, validateWaiversFile, 'waivers file')
  const problems = [...parsed.problems]
  const waivers: Waiver[] = []
  for (const [index, entry] of (parsed.file?.value.waivers ?? []).entries()) {
    const at = (field: string, message: string) => problems.push(parsed.file!.problemAt(['waivers', index, field], message))
    if (!ruleIds.has(entry.rule)) at('rule', `no rule "${entry.rule}"; kpx-check rules lists the rule ids`)
    if (entry.expires !== undefined && !isCalendarDate(entry.expires)) at('expires', `"${entry.expires}" is not a date`)
    const {line} = parsed.file!.problemAt(['waivers', index], '')
    waivers.push({rule: entry.rule, subject: entry.subject ?? '**', reason: entry.reason.trim(), ...(entry.expires ? {expires: entry.expires} : {}), source: `${path}:${line}`})
  }

  if (problems.length > 0) {
    throw new UsageError(`--waivers ${path} is not valid:\n${problems.map((problem) => `  ${formatProblem(problem)}`).join('\n')}`, [
      'Each waiver needs rule and reason; subject and expires (YYYY-MM-DD) are optional. See README, "Waivers".',
    ])
  }

  return waivers
}

/**
 * Marks failed and unknown findings that a waiver covers (the first matching waiver wins). A waiver
 * past its expiry day still marks the finding, as expired: the finding counts again and says why.
 */
export function applyWaivers(findings: Finding[], waivers: readonly Waiver[], file: string, now: Date): {findings: Finding[]; summary: WaiverSummary} {
  const today = now.toISOString().slice(0, 10)
  const matchers = waivers.map((waiver) => ({waiver, matches: subjectMatcher(waiver.subject)}))
  const used = new Set<Waiver>()
  const summary: WaiverSummary = {file, applied: 0, expired: 0, unused: []}
  const marked = findings.map((finding) => {
    if (finding.status !== 'fail' && finding.status !== 'unknown') return finding
    const path = subjectPath(finding.subject)
    const match = matchers.find(({waiver, matches}) => waiver.rule === finding.rule && matches(path))
    if (!match) return finding
    const {waiver} = match
    used.add(waiver)
    const expired = waiver.expires !== undefined && waiver.expires < today
    if (expired) summary.expired++
    else summary.applied++
    return {...finding, waiver: {reason: waiver.reason, ...(waiver.expires ? {expires: waiver.expires} : {}), expired, source: waiver.source}}
  })
  summary.unused = waivers.filter((waiver) => !used.has(waiver)).map(({rule, subject, source}) => ({rule, subject, source}))
  return {findings: marked, summary}
}

/** YYYY-MM-DD that names a real day (Date.parse takes 2027-02-30 and rolls it over). */
function isCalendarDate(text: string): boolean {
  const time = Date.parse(`${text}T00:00:00Z`)
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === text
}

/** node/edge-* → a test of subject paths: * matches within one path segment, ** across them. */
function subjectMatcher(pattern: string): (path: string) => boolean {
  const source = pattern
    .split('**')
    .map((part) => part.split('*').map((literal) => literal.replaceAll(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*'))
    .join('.*')
  const regex = new RegExp(`^${source}$`)
  return (path) => regex.test(path)
}
