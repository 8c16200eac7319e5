/**
 * Golden reports of the fixture files (snapshots, bundles, rule fixtures), run through the same services as
 * the CLI but in-process, which is as exact and a hundred times faster; the cluster scenarios run through the
 * real CLI in cluster-scenarios.integration.test.ts. A change that moves code keeps them; a change that means
 * to alter a report re-records them (KPX_UPDATE_GOLDEN=1 node --test dist/test/golden/*.test.js after a build)
 * and the diff of test/fixtures/golden/ shows what it altered.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {evaluateRules} from '../../src/engine/evaluate.js'
import type {GatePolicy} from '../../src/planner/verdict.js'
import {evaluateSnapshot} from '../../src/services/cluster-evaluation.js'
import {runNodeCheck} from '../../src/services/node-check.js'
import {loadRecipes} from '../../src/services/recipe-catalog.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import type {ClusterSnapshot} from '../../src/sources/cluster/snapshot.js'
import {reported} from '../helpers/evaluation.js'
import {compareGolden as compare, outputsOf} from '../helpers/golden.js'
import {FIXTURES} from '../helpers/paths.js'
import {fixtureExtension, ruleFixtures, ruleName} from '../helpers/rule-fixtures.js'

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

describe('golden reports', () => {
  describe('cluster snapshots', () => {
    it('the example snapshot', () => compare('snapshot-kubespray-ipvs-metallb', outputsOf(snapshotReport(join(FIXTURES, 'snapshots', 'kubespray-ipvs-metallb.snapshot.json')))))
  })

  describe('node bundles', () => {
    it('the example bundles together', async () => compare('node-bundles', outputsOf(await nodeReport([join(FIXTURES, 'bundles')]))))
  })

  // kube-linter's --include: each rule alone on its own fixtures, its findings as the report lists them, no
  // planner; a change to one rule's wording re-records that rule's files only.
  describe('each rule on its fixtures, alone', () => {
    for (const rule of rules) {
      for (const {file, options, subjects} of ruleFixtures(rule)) {
        const name = `rules/${ruleName(rule)}/${file.slice(0, -fixtureExtension(rule).length)}`
        it(name, () => compare(name, {json: `${JSON.stringify(reported(evaluateRules([rule], subjects, options)), undefined, 2)}\n`}))
      }
    }
  })
})
