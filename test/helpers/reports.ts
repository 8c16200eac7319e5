import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import type {AppliedWaiver, GatedFinding} from '../../src/contract/finding.js'
import type {Report} from '../../src/contract/report.js'
import {countFindings, type GatePolicy} from '../../src/planner/verdict.js'
import {evaluateSnapshot} from '../../src/services/cluster-evaluation.js'
import {runNodeCheck} from '../../src/services/node-check.js'
import {loadRecipes} from '../../src/services/recipe-catalog.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import type {ClusterSnapshot} from '../../src/sources/cluster/snapshot.js'
import {FIXTURES} from './paths.js'

const POLICY: GatePolicy = {failOn: 'blocker', allowIncomplete: false}

/**
 * `kpx-check cluster --snapshot` of the example kubespray cluster (IPVS, MetalLB, flannel), built-in
 * rules: warnings on a DaemonSet, Services and the cluster, info notes, unknown node checks, passes, skips.
 */
export async function exampleClusterReport(): Promise<Report> {
  const snapshot = JSON.parse(readFileSync(join(FIXTURES, 'snapshots', 'kubespray-ipvs-metallb.snapshot.json'), 'utf8')) as ClusterSnapshot
  return evaluateSnapshot(snapshot, await loadRuleCatalog([]), {policy: POLICY, severity: new Map(), skip: [], recipes: await loadRecipes()})
}

/** `kpx-check node --facts test/fixtures/bundles`: four nodes with failed blockers and warnings, unknowns, passes, skips. */
export function exampleNodeReport(): Promise<Report> {
  return runNodeCheck({factsPaths: [join(FIXTURES, 'bundles')], rulePaths: [], skip: [], severity: new Map(), policy: POLICY, timeoutSeconds: 10})
}

export const ACTIVE_WAIVER: AppliedWaiver = {
  reason: 'Kernel upgrade booked for the <Q3> window & tracked in "OPS-42"',
  expires: '2099-12-31',
  expired: false,
  source: 'waivers.yaml:3',
}
export const EXPIRED_WAIVER: AppliedWaiver = {reason: 'Accepted until the node pool rotation', expires: '2020-01-31', expired: true, source: 'waivers.yaml:9'}

/** Applies waivers as --waivers does: on the findings, in the report's waiver summary and in its counts. */
export function waive(report: Report, waivers: Array<[GatedFinding, AppliedWaiver]>): void {
  for (const [finding, waiver] of waivers) finding.waiver = waiver
  report.waivers = {
    file: 'waivers.yaml',
    applied: waivers.filter(([, waiver]) => !waiver.expired).length,
    expired: waivers.filter(([, waiver]) => waiver.expired).length,
    unused: [],
  }
  report.summary = countFindings(report.findings)
}

/** The first finding with this status (and severity) in the report: the tests pick real findings to mark. */
export function firstFinding(report: Report, status: GatedFinding['status'], severity?: GatedFinding['severity']): GatedFinding {
  const finding = report.findings.find((one) => one.status === status && (severity === undefined || one.severity === severity))
  if (!finding) throw new Error(`the example report has no ${status} ${severity ?? ''} finding`)
  return finding
}
