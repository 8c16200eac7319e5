import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'

import {BUILTIN_RULES_DIR, COLLECTOR_SCRIPT} from '../../src/util/paths.js'
import {runCli} from '../helpers/cli.js'
import {FIXTURES} from '../helpers/paths.js'

describe('kpx-check collect, schema, rules', () => {
  it('collect prints the collector script unchanged', async () => {
    const {code, stdout} = await runCli(['collect'])
    assert.equal(code, 0)
    assert.equal(stdout, readFileSync(COLLECTOR_SCRIPT, 'utf8'))
  })

  it('schema prints the report schema, --fleet the fleet report schema, and --rule the rule file schema', async () => {
    const report = JSON.parse((await runCli(['schema'])).stdout)
    assert.equal(report.properties.schemaVersion.const, 'kpx-check/v1')
    const fleet = JSON.parse((await runCli(['schema', '--fleet'])).stdout)
    assert.equal(fleet.properties.schemaVersion.const, 'kpx-check-fleet/v1')
    // Each cluster's report is the report schema, carried inside (one file to hand a validator).
    assert.deepEqual(fleet.definitions.report.properties, report.properties)
    assert.equal(fleet.properties.clusters.items.properties.report.$ref, '#/definitions/report')
    const rule = JSON.parse((await runCli(['schema', '--rule'])).stdout)
    assert.equal(rule.title, 'kpx-check rule')
    assert.equal((await runCli(['schema', '--rule', '--fleet'])).code, 2)
  })

  it('rules lists the catalogue from the rules\' own metadata', async () => {
    const {code, stdout} = await runCli(['rules', '--json'])
    assert.equal(code, 0)
    const rules = JSON.parse(stdout) as Array<{id: string; severity: string; title: string}>
    const kernel = rules.find((rule) => rule.id === 'node/kernel-version')
    assert.deepEqual([kernel?.severity, kernel?.title], ['blocker', 'Kernel is 5.13 or newer'])
    const text = await runCli(['rules'])
    assert.match(text.stdout, /node\/kernel-version\s+blocker\s+verified\s+Kernel is 5\.13 or newer/)
  })

  it('rules lint passes the built-in rules and exits 2 with file:line:column on broken ones', async () => {
    const good = await runCli(['rules', 'lint', BUILTIN_RULES_DIR])
    assert.equal(good.code, 0, good.stdout)
    const bad = await runCli(['rules', 'lint', join(FIXTURES, 'bad-rules')])
    assert.equal(bad.code, 2)
    assert.match(bad.stdout, /unknown-fact\.yaml:8:5 unknown fact "kernal\.release"/)
    assert.match(bad.stdout, /typo-field\.yaml:3:1 rule: unknown field "severty"/)
    const json = JSON.parse((await runCli(['rules', 'lint', join(FIXTURES, 'bad-rules'), '--json'])).stdout)
    assert.ok(json.problems.length >= 5)
  })

  it('rules facts lists the facts rules can read', async () => {
    const facts = JSON.parse((await runCli(['rules', 'facts', '--json'])).stdout) as Array<{path: string; type: string}>
    assert.ok(facts.some((fact) => fact.path === 'kernel.version' && fact.type === 'string'))
  })

  it('node --help lists the exit codes', async () => {
    const {stdout} = await runCli(['node', '--help'])
    for (const code of ['0  go', '2  usage or input error', '3  no-go', '4  go with warnings', '5  incomplete']) assert.ok(stdout.includes(code), code)
  })
})
