/**
 * --waivers and --baseline: read before any probing, so a mistake costs nothing. The waivers
 * reader (YAML, a JSON Schema) loads only when --waivers is given.
 */
import {readFile} from 'node:fs/promises'

import type {Severity} from '../contract/finding.js'
import {type Report, REPORT_SCHEMA_VERSION} from '../contract/report.js'
import {findingKey} from '../contract/subject.js'
import type {LoadedRule} from '../engine/rule-lint.js'
import type {Baseline} from '../planner/baseline.js'
import type {ReportInput} from '../planner/gate.js'
import type {GatePolicy} from '../planner/verdict.js'
import {UsageError} from '../util/errors.js'

/** What both checks take besides their sources: the rules, how to gate, and the gate's files. */
export interface CheckOptions {
  /** Extra rule files or folders (--rules). */
  rulePaths: string[]
  skip: string[]
  severity: Map<string, Severity>
  policy: GatePolicy
  gateFiles?: GateFiles
}

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

export async function readBaseline(path: string): Promise<Baseline> {
  let report: Partial<Report>
  try {
    report = JSON.parse(await readFile(path, 'utf8')) as Partial<Report>
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new UsageError(`--baseline ${path}: ${code === 'ENOENT' ? 'no such file' : (code ? (error as Error).message : `not JSON: ${(error as Error).message}`)}`, [
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
