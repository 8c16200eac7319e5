/** Files a user points kpx-check at, made to exhaust it: each ends in exit 2 naming the file, never exit 1. */
import assert from 'node:assert/strict'
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import {runCli} from '../helpers/cli.js'
import {FIXTURES} from '../helpers/paths.js'

/** Nine aliases of nine of nine …: a few hundred bytes that would expand to millions of nodes ("billion laughs"). */
const ALIAS_BOMB = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...['b', 'c', 'd', 'e', 'f'].map((name, index) => `${name}: &${name} [${Array.from({length: 9}, () => `*${'abcde'[index]}`).join(',')}]`),
  'waivers: [*f]',
  '',
].join('\n')

let dir: string
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kpx-hostile-'))
})
after(() => rmSync(dir, {recursive: true, force: true}))

describe('hostile input files', () => {
  it('a YAML alias bomb as --waivers or in --rules is a usage error at FILE:LINE:COLUMN', async () => {
    const waivers = join(dir, 'waivers.yaml')
    writeFileSync(waivers, ALIAS_BOMB)
    const rules = join(dir, 'rules')
    mkdirSync(rules)
    writeFileSync(join(rules, 'bomb.yaml'), ALIAS_BOMB)
    for (const args of [['--waivers', waivers], ['--rules', rules]]) {
      const {code, stderr} = await runCli(['node', '--facts', join(FIXTURES, 'bundles'), ...args])
      assert.equal(code, 2, stderr)
      assert.match(stderr, /\.yaml:1:1 YAML: Excessive alias count/)
    }
  })
})
