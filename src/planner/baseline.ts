import {readFile} from 'node:fs/promises'

import {UsageError} from '../util/errors.js'
import {type BaselineSummary, REPORT_SCHEMA_VERSION, type Report} from '../contract/report.js'
import {findingKey} from '../contract/subject.js'
import {type GatedFinding} from '../contract/finding.js'

/** The failed and unknown findings of an earlier report, by rule and subject. */
export interface Baseline {
  file: string
  generatedAt: string
  findings: Map<string, Pick<GatedFinding, 'rule' | 'subject'> & {status: 'fail' | 'unknown'}>
}

export async function readBaseline(path: string): Promise<Baseline> {
  let report: Partial<Report>
  try {
    report = JSON.parse(await readFile(path, 'utf8')) as Partial<Report>
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new UsageError(`--baseline ${path}: ${code === 'ENOENT' ? 'no such file' : code ? (error as Error).message : `not JSON: ${(error as Error).message}`}`, [
      'Pass a report written earlier with --json or --output json=FILE.',
    ])
  }

  if (report.schemaVersion !== REPORT_SCHEMA_VERSION || !Array.isArray(report.findings)) {
    throw new UsageError(`--baseline ${path}: not a kpx-check report (expected schemaVersion "${REPORT_SCHEMA_VERSION}" and findings)`, [
      'Pass a report written earlier with --json or --output json=FILE.',
    ])
  }

  const findings: Baseline['findings'] = new Map()
  for (const finding of report.findings) {
    if (finding.status === 'fail' || finding.status === 'unknown') findings.set(findingKey(finding), {rule: finding.rule, subject: finding.subject, status: finding.status})
  }

  return {file: path, generatedAt: String(report.generatedAt ?? ''), findings}
}

/**
 * Marks each failed or unknown finding new or existing (the baseline had it, with the same status),
 * and lists what the baseline had that is gone: the gate then looks at new findings only.
 */
export function compareWithBaseline(findings: GatedFinding[], baseline: Baseline): {findings: GatedFinding[]; summary: BaselineSummary} {
  const summary: BaselineSummary = {file: baseline.file, generatedAt: baseline.generatedAt, new: 0, existing: 0, fixed: []}
  const open = new Set<string>()
  const marked = findings.map((finding): GatedFinding => {
    if (finding.status !== 'fail' && finding.status !== 'unknown') return finding
    const key = findingKey(finding)
    open.add(key)
    const existing = baseline.findings.get(key)?.status === finding.status
    summary[existing ? 'existing' : 'new']++
    return {...finding, baseline: existing ? 'existing' : 'new'}
  })
  for (const [key, earlier] of baseline.findings) {
    if (!open.has(key)) summary.fixed.push({rule: earlier.rule, subject: earlier.subject, was: earlier.status})
  }

  return {findings: marked, summary}
}
