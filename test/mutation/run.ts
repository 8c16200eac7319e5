/**
 * `npm run mutate [module...]`: mutation testing with StrykerJS, one module at a time (stryker.config.mjs).
 * A module is test/mutation/tsconfig.<module>.json; with no names given, every module runs. Stryker's
 * reports go to reports/mutation/<module>.{html,json}; this script ends with one table of the scores, the
 * figures recorded in docs/dev/benchmarks.md. Surviving mutants, and why each may stay, are in test/mutation/survivors.md.
 */
import {spawnSync} from 'node:child_process'
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {PACKAGE_ROOT} from '../../src/util/paths.js'

const MODULES_DIR = join(PACKAGE_ROOT, 'test', 'mutation')
const STRYKER = join(PACKAGE_ROOT, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js')

/** The part of Stryker's JSON report (the mutation-testing-report schema) that the table needs. */
interface MutationReport {
  files: Record<string, {mutants: Array<{status: string}>}>
}

const known = readdirSync(MODULES_DIR)
  .map((file) => /^tsconfig\.(.+)\.json$/.exec(file)?.[1])
  .filter((name) => name !== undefined)
const asked = process.argv.slice(2)
const unknown = asked.filter((name) => !known.includes(name))
if (unknown.length > 0) {
  console.error(`Unknown module: ${unknown.join(', ')}. Modules: ${known.join(', ')}.`)
  process.exit(2)
}

const rows: string[] = []
for (const name of asked.length > 0 ? asked : known) {
  const started = Date.now()
  const run = spawnSync(process.execPath, [STRYKER, 'run', 'stryker.config.mjs'], {
    cwd: PACKAGE_ROOT,
    env: {...process.env, KPX_MUTATE_MODULE: name},
    stdio: 'inherit',
  })
  if (run.status !== 0) {
    console.error(`Stryker failed on module ${name} (exit ${run.status}).`)
    process.exit(1)
  }

  const seconds = Math.round((Date.now() - started) / 1000)
  const report = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'reports', 'mutation', `${name}.json`), 'utf8')) as MutationReport
  const count = new Map<string, number>()
  for (const file of Object.values(report.files)) {
    for (const mutant of file.mutants) count.set(mutant.status, (count.get(mutant.status) ?? 0) + 1)
  }

  const of = (status: string) => count.get(status) ?? 0
  const detected = of('Killed') + of('Timeout')
  // Stryker's score: detected out of the mutants that compile (a compile error is caught before any test).
  const valid = detected + of('Survived') + of('NoCoverage')
  const score = valid === 0 ? 100 : (100 * detected) / valid
  rows.push(`| ${name} | ${valid} | ${detected} | ${of('Survived')} | ${of('NoCoverage')} | ${of('CompileError')} | ${score.toFixed(1)} % | ${seconds} s |`)
}

console.log('\n| module | mutants | killed | survived | no coverage | not compiled | score | run time |')
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |')
for (const row of rows) console.log(row)
