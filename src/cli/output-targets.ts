/** --output FORMAT=PATH: checked before anything is read, so a typo costs nothing. */
import {REPORT_FORMATS, type ReportFormat} from '../report/formats.js'
import {UsageError} from '../util/errors.js'
import {checkOutputFolder} from '../util/user-file.js'

export interface OutputTarget {
  format: ReportFormat
  path: string
}

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
    if (targets.some((target) => target.path === path)) throw new UsageError(`--output ${value}: ${path} is already an output of this run`)
    targets.push({format: format as ReportFormat, path})
  }

  return targets
}
