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

/** --output FORMAT=PATH values; md is accepted for markdown. Checked before any probing starts. */
export async function parseOutputs(values: readonly string[]): Promise<OutputTarget[]> {
  const targets: OutputTarget[] = []
  for (const value of values) {
    const match = /^([a-z]+)=(.+)$/.exec(value)
    const format = match?.[1] === 'md' ? 'markdown' : match?.[1]
    if (!match || !(REPORT_FORMATS as readonly string[]).includes(format!)) {
      throw new UsageError(`--output ${value}: expected FORMAT=PATH with FORMAT one of ${REPORT_FORMATS.join(', ')}`, ['For example: --output sarif=kpx.sarif --output junit=junit.xml'])
    }

    const path = match[2]
    await checkOutputFolder(`--output ${value}`, path)
    checkWritesInside(`--output ${value}`, path)
    if (targets.some((target) => target.path === path)) throw new UsageError(`--output ${value}: ${path} is already an output of this run`)
    targets.push({format: format as ReportFormat, path})
  }

  return targets
}
