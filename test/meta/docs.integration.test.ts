/** docs/commands.md is what `oclif readme` (npm run docs) makes of the commands now: regenerated from a copy, and compared. */
import assert from 'node:assert/strict'
import {copyFileSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {it} from 'node:test'

import {PACKAGE_ROOT} from '../../src/util/paths.js'
import {runProgram} from '../helpers/cli.js'

it('docs/commands.md matches the commands (run npm run docs, and commit it)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kpx-docs-'))
  try {
    const committed = join(PACKAGE_ROOT, 'docs', 'commands.md')
    const fresh = join(dir, 'commands.md')
    copyFileSync(committed, fresh)
    const oclif = join(PACKAGE_ROOT, 'node_modules', 'oclif', 'bin', 'run.js')
    const env = {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true'}
    const {code, stderr} = await runProgram(process.execPath, [oclif, 'readme', '--readme-path', fresh, '--no-source-links'], {cwd: PACKAGE_ROOT, env})
    assert.equal(code, 0, stderr)
    assert.equal(readFileSync(committed, 'utf8'), readFileSync(fresh, 'utf8'), 'docs/commands.md is stale: run npm run docs and commit it')
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
})
