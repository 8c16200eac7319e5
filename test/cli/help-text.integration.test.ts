import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {helpDescription} from '../../src/cli/help-text.js'
import {runCli} from '../helpers/cli.js'

describe('helpDescription', () => {
  it('joins a paragraph\'s source lines with spaces, ends paragraphs at blank lines, and keeps a block with line breaks as it is', () => {
    const table = 'Exit codes:\n  0  go\n  3  no-go'
    assert.equal(helpDescription(['One sentence broken', 'where the source broke it.', '', 'Another.', table, 'After the table.']), 'One sentence broken where the source broke it.\n\nAnother.\n\nExit codes:\n  0  go\n  3  no-go\n\nAfter the table.')
  })

  it('kpx-check node --help: no break where a source line ended (oclif wraps to a terminal\'s width, and not at all into a pipe)', async () => {
    const {code, stdout} = await runCli(['node', '--help'])
    assert.equal(code, 0)
    const description = stdout.slice(stdout.indexOf('DESCRIPTION'), stdout.indexOf('EXAMPLES'))
    // The source breaks this paragraph after "bundles written by".
    assert.ok(description.includes('With --facts, evaluates bundles written by `kpx-check collect` on other nodes'), description)
    assert.match(description, /\n {2}Exit codes:\n {2}0 {2}go: nothing blocks the switch\n/)
  })
})
