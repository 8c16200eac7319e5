/**
 * Golden reports: what every scenario, snapshot and bundle fixture the tests have gives in JSON,
 * text and Markdown, recorded before a refactoring and compared byte for byte after it. A change
 * that moves code keeps them; a change that means to alter a report re-records them
 * (KPX_UPDATE_GOLDEN=1 npm test) and the diff of test/fixtures/golden/ shows what it altered.
 *
 * Cluster scenarios run the real CLI against the HTTPS test API server; fixture files run the
 * same services in-process, which is as exact and a hundred times faster.
 */
import assert from 'node:assert/strict'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {basename, join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import type {GatePolicy} from '../../src/planner/verdict.js'
import {renderReport} from '../../src/report/render.js'
import {evaluateSnapshot} from '../../src/services/cluster-evaluation.js'
import {runNodeCheck} from '../../src/services/node-check.js'
import {loadRecipes} from '../../src/services/recipe-catalog.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import type {ClusterSnapshot} from '../../src/sources/cluster/snapshot.js'
import {PACKAGE_ROOT} from '../../src/util/paths.js'
import {CLUSTERS_DIR} from '../helpers/apiserver-scenario.js'
import {type Fault, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {FIXTURES} from '../helpers/paths.js'

const GOLDEN = join(FIXTURES, 'golden')
const UPDATE = process.env.KPX_UPDATE_GOLDEN === '1'
const POLICY: GatePolicy = {failOn: 'blocker', allowIncomplete: false}

interface Outputs {
  json: string
  txt: string
  md: string
}

/** The parts of a run that differ from one run or checkout to the next: the time, the test server's port, where the fixtures are. */
function stable(text: string, generatedAt: string): string {
  return text.replaceAll(generatedAt, '<generatedAt>').replaceAll(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>').replaceAll(PACKAGE_ROOT, '<root>')
}

function outputsOf(report: Report): Outputs {
  const {generatedAt} = report
  return {
    json: stable(renderReport(report, 'json'), generatedAt),
    txt: stable(renderReport(report, 'text'), generatedAt),
    md: stable(renderReport(report, 'markdown'), generatedAt),
  }
}

function compare(name: string, outputs: Outputs): void {
  for (const [extension, actual] of Object.entries(outputs)) {
    const file = join(GOLDEN, `${name}.${extension}`)
    if (UPDATE) {
      mkdirSync(GOLDEN, {recursive: true})
      writeFileSync(file, actual)
      continue
    }

    assert.ok(existsSync(file), `${file} is missing: record it with KPX_UPDATE_GOLDEN=1`)
    assert.equal(actual, readFileSync(file, 'utf8'), `${name}.${extension} differs from its golden file`)
  }
}

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-golden-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

/** `kpx-check cluster` against a scenario served over HTTPS: stdout in text, JSON and Markdown written beside it. */
async function clusterRun(scenario: string, faults: Fault[] = []): Promise<Outputs> {
  const server = await startApiServer({scenario, faults})
  try {
    const dir = mkdtempSync(join(workdir, `${scenario}-`))
    const kubeconfig = writeKubeconfig(dir, server)
    const [json, md] = [join(dir, 'report.json'), join(dir, 'report.md')]
    const {stdout} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--format', 'text', '--output', `json=${json}`, '--output', `markdown=${md}`])
    const {generatedAt} = JSON.parse(readFileSync(json, 'utf8')) as Report
    return {json: stable(readFileSync(json, 'utf8'), generatedAt), txt: stable(stdout, generatedAt), md: stable(readFileSync(md, 'utf8'), generatedAt)}
  } finally {
    await server.close()
  }
}

const rules = await loadRuleCatalog([])
const recipes = await loadRecipes()

function snapshotReport(file: string): Report {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as ClusterSnapshot
  return evaluateSnapshot(snapshot, rules, {policy: POLICY, severity: new Map(), skip: [], recipes})
}

function nodeReport(paths: string[]): Promise<Report> {
  return runNodeCheck({factsPaths: paths, rulePaths: [], skip: [], severity: new Map(), policy: POLICY, timeoutSeconds: 10})
}

const SCENARIOS = readdirSync(CLUSTERS_DIR, {withFileTypes: true})
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .toSorted()
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
  describe('cluster scenarios over HTTPS', () => {
    for (const scenario of SCENARIOS) {
      it(scenario, async () => compare(`cluster-${scenario}`, await clusterRun(scenario)))
    }

    // Every ConfigMap is read by name: each refused read makes unknown what is read from it (kube-proxy's mode, flannel's dataplane).
    it('ipvs-metallb with its ConfigMaps forbidden', async () =>
      compare('cluster-ipvs-metallb-configmaps-forbidden', await clusterRun('ipvs-metallb', [{path: /\/configmaps\//, kind: 'forbidden'}])))
    it('kubeadm-calico with Nodes forbidden', async () =>
      compare('cluster-kubeadm-calico-nodes-forbidden', await clusterRun('kubeadm-calico', [{path: '/api/v1/nodes', kind: 'forbidden'}])))
  })

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
