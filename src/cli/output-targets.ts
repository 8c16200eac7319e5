/** --output FORMAT=PATH: checked before anything is read, so a typo costs nothing. */
import {REPORT_FORMATS, type ReportFormat} from '../report/formats.js'
import {UsageError} from '../util/errors.js'
import {checkOutputFolder, checkWritesInside} from '../util/user-file.js'

export interface OutputTarget {
  format: ReportFormat
  path: string
}

/**
 * --sarif-location: a path relative to the repository root, as SARIF's artifactLocation.uri holds one
 * without a uriBaseId (§3.4.3), and only where a SARIF report is written.
 */
export function sarifLocation(value: string | undefined, stdout: ReportFormat, targets: readonly OutputTarget[]): string | undefined {
  if (value === undefined) return undefined
  if (stdout !== 'sarif' && !targets.some((target) => target.format === 'sarif')) {
    throw new UsageError(`--sarif-location ${value}: no SARIF report is written`, ['Add --format sarif or --output sarif=FILE, or drop --sarif-location.'])
  }

  const segments = value.split('/')
  if (!REPO_PATH.test(value) || segments.some((segment) => ['', '.', '..'].includes(segment))) {
    throw new UsageError(`--sarif-location ${value}: expected a file path relative to the repository root, such as .github/workflows/kpx-check.yml`, [
      'Use / between folders, no leading /, no . or .. and no URL scheme.',
    ])
  }

  return value
}

/** Characters a URI path keeps as they are (no `:`, so no scheme), up to 1,024 of them. */
const REPO_PATH = /^[\w.~@+/-]{1,1024}$/

/** A report format by the name -o and --output take it: md is markdown. */
function formatNamed(name: string | undefined): ReportFormat | undefined {
  const format = name === 'md' ? 'markdown' : name
  return (REPORT_FORMATS as readonly string[]).includes(format ?? '') ? (format as ReportFormat) : undefined
}

function badOutput(value: string): UsageError {
  return new UsageError(`--output ${value}: expected FORMAT=PATH with FORMAT one of ${REPORT_FORMATS.join(', ')} (a file), or FORMAT alone (what stdout carries; wide: the long text form)`, [
    'For example: -o json, or --output sarif=kpx.sarif --output junit=junit.xml',
  ])
}

/** -o wide: the text report's long form (what --details asks for), as kubectl's -o wide is its longer listing. */
const WIDE = 'wide'

/** Whether -o wide was given: the long form of the text report. */
export function wideAsked(values: readonly string[]): boolean {
  return values.includes(WIDE)
}

/**
 * -o FORMAT and --output FORMAT: what stdout carries, as kubectl's -o says it (wide: text, the long form); a value
 * with = names a file (FORMAT=PATH) instead, so the invocations written before -o existed keep their meaning.
 */
export function stdoutFormatsAsked(values: readonly string[]): ReportFormat[] {
  return values
    .filter((value) => !value.includes('='))
    .map((value) => {
      const format = value === WIDE ? 'text' : formatNamed(value)
      if (!format) throw badOutput(value)
      return format
    })
}

/** --output FORMAT=PATH values; md is accepted for markdown. Checked before any probing starts. */
export async function parseOutputs(values: readonly string[]): Promise<OutputTarget[]> {
  const targets: OutputTarget[] = []
  stdoutFormatsAsked(values)
  for (const value of values.filter((item) => item.includes('='))) {
    const match = /^([a-z]+)=(.+)$/.exec(value)
    const format = formatNamed(match?.[1])
    if (!match || !format) throw badOutput(value)

    const path = match[2]
    await checkOutputFolder(`--output ${value}`, path)
    checkWritesInside(`--output ${value}`, path)
    if (targets.some((target) => target.path === path)) throw new UsageError(`--output ${value}: ${path} is already an output of this run`)
    targets.push({format, path})
  }

  return targets
}
