/**
 * The mutation check (`npm run mutate`, test/mutation/run.ts) runs each module's test files against its mutants,
 * once per mutant: they must be in-process and fast (no *.integration.test.ts, whose CLI runs would make a module
 * take hours), and together the modules must mutate the core that decides a verdict (the engine, the gate, the
 * verdict, waivers and baselines).
 */
import assert from 'node:assert/strict'
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {it} from 'node:test'

import {PACKAGE_ROOT} from '../../src/util/paths.js'

const MODULES = join(PACKAGE_ROOT, 'test', 'mutation')

/** Each module's files, from the package root. */
const modules = readdirSync(MODULES)
  .filter((file) => /^tsconfig\..+\.json$/.test(file))
  .map((file) => ({
    file,
    files: (JSON.parse(readFileSync(join(MODULES, file), 'utf8')) as {files: string[]}).files.map((path) => relative(PACKAGE_ROOT, join(MODULES, path))),
  }))

/** What the modules must mutate between them. */
const CORE = [
  ...readdirSync(join(PACKAGE_ROOT, 'src', 'engine')).map((file) => `src/engine/${file}`),
  'src/planner/gate.ts',
  'src/planner/verdict.ts',
  'src/planner/waivers.ts',
  'src/planner/baseline.ts',
]

it('every mutation module names files that exist, and tests of the fast tier only', () => {
  for (const {file, files} of modules) {
    for (const path of files) assert.ok(existsSync(join(PACKAGE_ROOT, path)), `${file}: ${path} does not exist`)
    const tests = files.filter((path) => path.startsWith('test/'))
    assert.ok(tests.length > 0, `${file} names no test file`)
    for (const path of tests) assert.match(path, /^test\/.+(?<!\.integration)\.test\.ts$/, `${file}: ${path} is not a fast-tier test file`)
  }
})

it('the modules mutate the engine, the gate, the verdict, waivers and baselines', () => {
  const mutated = new Set(modules.flatMap(({files}) => files.filter((path) => path.startsWith('src/'))))
  assert.deepEqual(CORE.filter((path) => !mutated.has(path)), [])
})
