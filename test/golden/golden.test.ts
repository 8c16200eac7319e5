/**
 * Golden reports of the fixture files (snapshots, bundles, rule fixtures), run through the same services as
 * the CLI but in-process, which is as exact and a hundred times faster; the cluster scenarios run through the
 * real CLI in cluster-scenarios.integration.test.ts. A change that moves code keeps them; a change that means
 * to alter a report re-records them (KPX_UPDATE_GOLDEN=1 node --test dist/test/golden/*.test.js after a build)
 * and the diff of test/fixtures/golden/ shows what it altered.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {basename, join} from 'node:path'
import {describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import type {GatePolicy} from '../../src/planner/verdict.js'
import {evaluateSnapshot} from '../../src/services/cluster-evaluation.js'
import {runNodeCheck} from '../../src/services/node-check.js'
import {loadRecipes} from '../../src/services/recipe-catalog.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import type {ClusterSnapshot} from '../../src/sources/cluster/snapshot.js'
import {compareGolden as compare, outputsOf} from '../helpers/golden.js'
import {FIXTURES} from '../helpers/paths.js'

const POLICY: GatePolicy = {failOn: 'blocker', allowIncomplete: false}

const rules = await loadRuleCatalog([])
const recipes = await loadRecipes()

function snapshotReport(file: string): Report {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as ClusterSnapshot
  return evaluateSnapshot(snapshot, rules, {policy: POLICY, severity: new Map(), skip: [], recipes})
}

function nodeReport(paths: string[]): Promise<Report> {
  return runNodeCheck({factsPaths: paths, rulePaths: [], skip: [], severity: new Map(), policy: POLICY, timeoutSeconds: 10})
}

const RULE_FIXTURES = join(FIXTURES, 'rules')
const ruleFixtureFiles = (extension: string) =>
  readdirSync(RULE_FIXTURES)
    .toSorted()
    .flatMap((rule) =>
      readdirSync(join(RULE_FIXTURES, rule))
        .filter((file) => file.endsWith(extension))
        .toSorted()
        .map((file) => ({name: `rule-${rule}-${basename(file, extension)}`, path: join(RULE_FIXTURES, rule, file)})),
    )

describe('golden reports', () => {
  describe('cluster snapshots', () => {
    it('the example snapshot', () => compare('snapshot-kubespray-ipvs-metallb', outputsOf(snapshotReport(join(FIXTURES, 'snapshots', 'kubespray-ipvs-metallb.snapshot.json')))))
    for (const fixture of ruleFixtureFiles('.json')) {
      it(fixture.name, () => compare(fixture.name, outputsOf(snapshotReport(fixture.path))))
    }
  })

  describe('node bundles', () => {
    it('the example bundles together', async () => compare('node-bundles', outputsOf(await nodeReport([join(FIXTURES, 'bundles')]))))
    for (const fixture of ruleFixtureFiles('.facts')) {
      it(fixture.name, async () => compare(fixture.name, outputsOf(await nodeReport([fixture.path]))))
    }
  })
})
