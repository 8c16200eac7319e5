/**
 * Batching (src/engine/batching.ts) evaluates a rule once for each group of subjects whose inputs
 * are equal. That is only correct if every subject then gets what evaluating it alone would give:
 * checked here for every built-in rule over every fixture (facts bundles and cluster snapshots) and
 * the bundle corpus, each cluster's subjects evaluated together as a cluster run does, and all the
 * bundles together as a node run over a fleet does.
 */
import assert from 'node:assert/strict'
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {basename, join} from 'node:path'
import {after, describe, it} from 'node:test'

import {type Finding, type SubjectRef, toldOf} from '../../src/contract/finding.js'
import {subjectName, subjectPath} from '../../src/contract/subject.js'
import {deriveClusterModel} from '../../src/derive/cluster-facts.js'
import {clusterSubjects} from '../../src/derive/subjects.js'
import {evaluateRules, type Evaluation} from '../../src/engine/evaluate.js'
import {evaluateRule, subjectKindOf} from '../../src/engine/run-rule.js'
import type {Subject} from '../../src/facts/subject.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import type {ClusterSnapshot} from '../../src/sources/cluster/snapshot.js'
import {bundleFacts} from '../helpers/bundle-facts.js'
import {writeCorpusBundles} from '../helpers/corpus.js'
import {FIXTURES} from '../helpers/paths.js'

const rules = await loadRuleCatalog([])

/** Fixture files under test/fixtures with this extension, as paths. */
function fixtureFiles(extension: string): string[] {
  return readdirSync(FIXTURES, {recursive: true, withFileTypes: true})
    .filter((entry) => entry.isFile() && entry.name.endsWith(extension) && !entry.parentPath.includes('golden'))
    .map((entry) => join(entry.parentPath, entry.name))
    .toSorted()
}

/** A rule's finding on a subject, by kind and name (every Cluster subject's path is `cluster`, and several are evaluated together here). */
const keyOf = (rule: string, subject: SubjectRef) => `${rule} ${subject.kind}/${subjectName(subject)}`

/** Each subject's finding of each rule as the batched evaluation gives it. */
function batchedFindings(evaluation: Evaluation, subjects: readonly Subject[]): Map<string, Finding> {
  const found = new Map<string, Finding>()
  for (const finding of evaluation.findings) found.set(keyOf(finding.rule, finding.subject), finding)
  for (const {rule, subjects: grouped, groups} of evaluation.grouped) {
    for (const {finding, members} of groups) for (const index of members) found.set(keyOf(rule.rule, grouped[index]), toldOf(finding, grouped[index]))
  }

  assert.ok(found.size > 0 && subjects.length > 0)
  return found
}

/** Batched and alone agree on every rule and subject, in the findings and in each node's own checks. */
function assertEquivalent(subjects: readonly Subject[], kubernetesVersion?: string): number {
  const options = {kubernetesVersion, perSubject: new Set(['Node'])}
  const evaluation = evaluateRules(rules, subjects, options)
  const batched = batchedFindings(evaluation, subjects)
  let compared = 0
  for (const rule of rules) {
    for (const subject of subjects.filter(({family, kind}) => (family ?? kind) === subjectKindOf(rule))) {
      const alone = evaluateRule(rule, subject, options)
      const key = keyOf(rule.id, subject)
      assert.deepEqual(batched.get(key), alone, key)
      const own = evaluation.bySubject.get(subjectPath(subject))?.get(rule.id)
      if (subject.kind === 'Node') assert.deepEqual(own && toldOf(own, subject), alone, `${key}: the node's own check`)
      compared++
    }
  }

  return compared
}

describe('batching', () => {
  const corpusDir = mkdtempSync(join(tmpdir(), 'kpx-batching-corpus-'))
  after(() => rmSync(corpusDir, {recursive: true, force: true}))

  it('gives every node of a fleet of bundles (every fixture bundle and the corpus) what evaluating it alone gives', () => {
    const files = [...fixtureFiles('.facts'), ...writeCorpusBundles(corpusDir).map((entry) => entry.file)]
    // Named by their path: bundles of one hostname stay apart.
    const subjects = files.map((file) => ({kind: 'Node', name: file, facts: bundleFacts(readFileSync(file, 'utf8'), basename(file, '.facts'))}))
    assert.ok(subjects.length > 400, `${subjects.length} bundles`)
    assert.ok(assertEquivalent(subjects) > 400 * 14)
  })

  const snapshots = fixtureFiles('.json').filter((path) => /"kind": ?"ClusterSnapshot"/.test(readFileSync(path, 'utf8').slice(0, 200)))
  const modelOf = (file: string) => deriveClusterModel(JSON.parse(readFileSync(file, 'utf8')) as ClusterSnapshot)
  for (const file of snapshots) {
    it(`gives every subject of ${file.slice(FIXTURES.length + 1)} what evaluating it alone gives`, () => {
      const model = modelOf(file)
      assertEquivalent(clusterSubjects(model), String(model.cluster.get('cluster.version') ?? '') || undefined)
    })
  }

  it('gives every subject of every snapshot, evaluated all together, what evaluating it alone gives', () => {
    // Subjects over many parents, alike and not: Services of clusters in every mode, nodes of every pool.
    const subjects = snapshots.flatMap((file) => clusterSubjects(modelOf(file)).map((subject) => ({...subject, name: `${file.slice(FIXTURES.length + 1)}:${subject.name}`})))
    assert.ok(assertEquivalent(subjects, '1.33.0') > 1000)
    // Whichever subject comes first decides what is worked out for a group: in other orders too.
    for (const start of [1, 2, 3].map((quarter) => Math.floor((subjects.length * quarter) / 4))) {
      assertEquivalent([...subjects.slice(start), ...subjects.slice(0, start)], '1.33.0')
    }
  })
})
