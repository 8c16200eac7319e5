import type {GatedFinding} from '../contract/finding.js'
import type {BaselineSummary} from '../contract/report.js'
import {findingKey} from '../contract/subject.js'

/** The failed and unknown findings of an earlier report, by rule and subject. */
export interface Baseline {
  file: string
  generatedAt: string
  findings: Map<string, Pick<GatedFinding, 'rule' | 'subject'> & {status: 'fail' | 'unknown'}>
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
