/**
 * The two tiers of the suite (docs/dev/tests.md): `npm test` runs every test/**\/*.test.ts in-process and fast;
 * `npm run test:integration` runs the *.integration.test.ts files, the ones that start processes: the CLI
 * through bin/run.js, a real sshd, kubectl, the collector under a shell, npm, xmllint. A test file belongs to
 * the integration tier exactly when it imports node:child_process, names bin/run.js (RUN_JS), or imports,
 * directly or through other test helpers, the helper that runs the CLI (test/helpers/cli.ts) or the one that
 * starts sshd (test/helpers/sshd.ts). Helpers that start a process of their own for the test API server
 * (openssl once for its certificate, the stand-in programs behind pods/exec) do not count.
 */
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'

import {PACKAGE_ROOT} from '../../src/util/paths.js'
import {importGraph} from '../helpers/imports.js'

const PROCESS_HELPERS = new Set(['test/helpers/cli.ts', 'test/helpers/sshd.ts'])
const STARTS_PROCESSES_ITSELF = /from '(?:node:)?child_process'|\bRUN_JS\b|bin\/run\.js/

const withoutComments = (text: string) => text.replaceAll(/\/\*[\s\S]*?\*\//g, '').replaceAll(/^\s*\/\/.*$/gm, '')

/** Whether a test file starts processes: by itself, or through a test helper that runs the CLI or sshd. */
function startsProcesses(file: string, graph: ReadonlyMap<string, readonly string[]>, source: (file: string) => string): boolean {
  if (STARTS_PROCESSES_ITSELF.test(withoutComments(source(file)))) return true
  const seen = new Set<string>()
  const pending = [file]
  while (pending.length > 0) {
    const next = pending.pop()!
    if (PROCESS_HELPERS.has(next)) return true
    if (seen.has(next)) continue
    seen.add(next)
    pending.push(...(graph.get(next) ?? []))
  }

  return false
}

const isIntegration = (file: string) => file.endsWith('.integration.test.ts')

describe('test tiers', () => {
  const graph = importGraph('test')
  const source = (file: string) => readFileSync(join(PACKAGE_ROOT, file), 'utf8')
  const testFiles = [...graph.keys()].filter((file) => file.endsWith('.test.ts')).toSorted()

  it('a fast-tier file (*.test.ts) starts no process: one that does is named *.integration.test.ts', () => {
    const misplaced = testFiles.filter((file) => !isIntegration(file) && startsProcesses(file, graph, source))
    assert.deepEqual(misplaced, [], 'rename these to *.integration.test.ts, or move their process-starting tests to a file that is')
  })

  it('an integration-tier file starts processes: one that does not belongs in the fast tier', () => {
    const misplaced = testFiles.filter((file) => isIntegration(file) && !startsProcesses(file, graph, source))
    assert.deepEqual(misplaced, [], 'rename these to *.test.ts')
  })

  it('finds a process started directly, through a helper, or through a helper of a helper', () => {
    const sample = new Map([
      ['a.test.ts', ['h/x.ts']],
      ['h/x.ts', ['test/helpers/cli.ts']],
      ['b.test.ts', ['h/y.ts']],
      ['h/y.ts', []],
    ])
    const text = (file: string) => (file === 'c.test.ts' ? `import {spawn} from 'node:${'child_process'}'` : '')
    assert.deepEqual(
      ['a.test.ts', 'b.test.ts', 'c.test.ts'].filter((file) => startsProcesses(file, sample, text)),
      ['a.test.ts', 'c.test.ts'],
    )
  })
})
