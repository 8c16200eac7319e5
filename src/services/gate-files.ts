/**
 * --waivers and --baseline: read before any probing, so a mistake costs nothing. The waivers
 * reader (YAML, a JSON Schema) loads only when --waivers is given.
 */

import {type Report, REPORT_SCHEMA_VERSION} from '../contract/report.js'
import {findingKey} from '../contract/subject.js'
import type {LoadedRule} from '../engine/rule-lint.js'
import type {Baseline} from '../planner/baseline.js'
import type {ReportInput} from '../planner/gate.js'
import {UsageError} from '../util/errors.js'
import {readUserJson} from '../util/user-file.js'

/** --waivers and --baseline, as given on the command line. */
export interface GateFiles {
  waiversPath?: string
  baselinePath?: string
}

/** Reads --waivers (whose rules must exist) and --baseline. */
export async function readGateFiles(rules: readonly LoadedRule[], files: GateFiles): Promise<Pick<ReportInput, 'baseline' | 'waivers'>> {
  const {waiversPath, baselinePath} = files
  const waivers = waiversPath === undefined ? undefined : await import('./waivers-file.js').then(({readWaivers}) => readWaivers(waiversPath, new Set(rules.map((rule) => rule.id))))
  const baseline = baselinePath === undefined ? undefined : await readBaseline(baselinePath)
  return {...(waivers ? {waivers: {file: waiversPath!, entries: waivers}} : {}), ...(baseline ? {baseline} : {})}
}

const BASELINE_HINT = ['Pass a report written earlier with --json or --output json=FILE.']

export async function readBaseline(path: string): Promise<Baseline> {
  const report = (await readUserJson('--baseline', path, BASELINE_HINT)) as Partial<Report>

  if (report.schemaVersion !== REPORT_SCHEMA_VERSION || !Array.isArray(report.findings)) {
    throw new UsageError(`--baseline ${path}: not a kpx-check report (expected schemaVersion "${REPORT_SCHEMA_VERSION}" and findings)`, BASELINE_HINT)
  }

  const findings: Baseline['findings'] = new Map()
  for (const finding of report.findings) {
    if (finding.status === 'fail' || finding.status === 'unknown') findings.set(findingKey(finding), {rule: finding.rule, subject: finding.subject, status: finding.status})
  }

  return {file: path, generatedAt: String(report.generatedAt ?? ''), findings}
}
