
import {JSON_SCHEMA_DRAFT_07} from '../contract/json-schema.js'
import {MIN_WAIVER_REASON_LENGTH, type Waiver} from '../planner/waivers.js'
import {UsageError} from '../util/errors.js'
import {MAX_FILE_BYTES, readUserFileSync} from '../util/user-file.js'
import {fileSchemaValidator, formatProblem, parseYamlFile} from '../util/yaml-file.js'

// Reading a --waivers file: YAML and a JSON Schema, loaded only when the flag is given.

const WAIVERS_FILE_SCHEMA = {
  $schema: JSON_SCHEMA_DRAFT_07,
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
          reason: {type: 'string', minLength: MIN_WAIVER_REASON_LENGTH, description: `Why the risk is accepted, for the next reader: a ticket, a name; at least ${MIN_WAIVER_REASON_LENGTH} characters.`},
          expires: {type: 'string', pattern: String.raw`^\d{4}-\d{2}-\d{2}$`, description: 'Last day the waiver holds (YYYY-MM-DD); after it, the finding counts again.'},
        },
      },
    },
  },
} as const

const validateWaiversFile = fileSchemaValidator(WAIVERS_FILE_SCHEMA)

interface WaiverEntry {
  rule: string
  subject?: string
  reason: string
  expires?: string
}

/** Reads a waivers file; any mistake (unknown rule, bad date, unknown field) is a usage error naming FILE:LINE. */
export async function readWaivers(path: string, ruleIds: ReadonlySet<string>): Promise<Waiver[]> {
  const text = readUserFileSync('--waivers', path, {maxBytes: MAX_FILE_BYTES.waivers})!
  const parsed = parseYamlFile<{waivers: WaiverEntry[]}>(text, path, validateWaiversFile(), 'waivers file')
  const problems = [...parsed.problems]
  const waivers: Waiver[] = []
  for (const [index, entry] of (parsed.file?.value.waivers ?? []).entries()) {
    const at = (field: string, message: string) => problems.push(parsed.file!.problemAt(['waivers', index, field], message))
    if (!ruleIds.has(entry.rule)) at('rule', `no rule "${entry.rule}"; kpx-check rules lists the rule ids`)
    if (entry.expires !== undefined && !isCalendarDate(entry.expires)) at('expires', `"${entry.expires}" is not a date`)
    if (entry.reason.trim().length < MIN_WAIVER_REASON_LENGTH) {
      at('reason', `"${entry.reason.trim()}" is too short: a reason has at least ${MIN_WAIVER_REASON_LENGTH} characters (a ticket, a name), so that the next reader can find out why the risk was accepted`)
    }
    const {line} = parsed.file!.problemAt(['waivers', index], '')
    waivers.push({rule: entry.rule, subject: entry.subject ?? '**', reason: entry.reason.trim(), ...(entry.expires ? {expires: entry.expires} : {}), source: `${path}:${line}`})
  }

  if (problems.length > 0) {
    throw new UsageError(`--waivers ${path} is not valid:\n${problems.map((problem) => `  ${formatProblem(problem)}`).join('\n')}`, [
      `Each waiver needs rule and reason (at least ${MIN_WAIVER_REASON_LENGTH} characters); subject and expires (YYYY-MM-DD) are optional. See docs/waivers-and-baselines.md.`,
    ])
  }

  return waivers
}

/** YYYY-MM-DD that names a real day (Date.parse takes 2027-02-30 and rolls it over). */
function isCalendarDate(text: string): boolean {
  const time = Date.parse(`${text}T00:00:00Z`)
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === text
}
