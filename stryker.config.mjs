// Mutation testing, one module at a time: `npm run mutate [module...]` (test/mutation/run.ts) runs Stryker
// once per module with KPX_MUTATE_MODULE set. A module is test/mutation/tsconfig.<module>.json: its `files`
// are the sources to mutate (src/) and the test files that must catch a broken rule in them (test/).
// Stryker mutates the sources in a sandbox copy of the project, builds the sandbox once (every mutant is
// compiled in, switched on at run time), type-checks each mutant in the module's small program (a mutant
// that does not compile is no test gap) and runs only the module's compiled test files against it.
import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import process from 'node:process'

const modules = readdirSync(path.join(import.meta.dirname, 'test', 'mutation'))
  .map((file) => /^tsconfig\.(.+)\.json$/.exec(file)?.[1])
  .filter((name) => name !== undefined)
const name = process.env.KPX_MUTATE_MODULE
if (!modules.includes(name)) throw new Error(`KPX_MUTATE_MODULE must name one of: ${modules.join(', ')}`)

const tsconfigFile = `test/mutation/tsconfig.${name}.json`
const files = JSON.parse(readFileSync(path.join(import.meta.dirname, tsconfigFile), 'utf8'))
  .files.map((file) => path.posix.join('test/mutation', file))

export default {
  mutate: files.filter((file) => file.startsWith('src/')),
  testRunner: 'tap',
  tap: {testFiles: files.filter((file) => file.startsWith('test/')).map((file) => `dist/${file.replace(/\.ts$/, '.js')}`)},
  checkers: ['typescript'],
  tsconfigFile,
  typescriptChecker: {prioritizePerformanceOverAccuracy: true},
  buildCommand: 'npm run build',
  coverageAnalysis: 'perTest',
  concurrency: 1,
  timeoutMS: 20_000,
  reporters: ['clear-text', 'json', 'html', 'progress-append-only'],
  jsonReporter: {fileName: `reports/mutation/${name}.json`},
  htmlReporter: {fileName: `reports/mutation/${name}.html`},
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
}
