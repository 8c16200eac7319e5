/** The text report on a terminal: prose wrapped to its width, commands and the node table never. */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {renderText, wrapLine} from '../../src/report/text.js'
import {exampleClusterReport} from '../helpers/reports.js'

describe('wrapping to the terminal', () => {
  it('breaks a line at spaces, its continuations under the text after its indent and mark', () => {
    assert.equal(wrapLine('     → Move to Ubuntu 22.04 or newer, or install the HWE kernel', 30), ['     → Move to Ubuntu 22.04 or', '       newer, or install the', '       HWE kernel'].join('\n'))
    assert.equal(wrapLine('  12. Fix the kernel first', 16), ['  12. Fix the', '      kernel', '      first'].join('\n'))
    assert.equal(wrapLine('short line', 30), 'short line')
  })

  it('keeps a word longer than the line whole, and does not count colour codes', () => {
    assert.equal(wrapLine('see https://github.com/kubernetes/kubernetes/issues/139515 now', 20), ['see', 'https://github.com/kubernetes/kubernetes/issues/139515', 'now'].join('\n'))
    assert.equal(wrapLine('\u001B[2mdim words here\u001B[22m', 14), '\u001B[2mdim words here\u001B[22m')
  })

  it('wraps every prose line of a report to the width, and leaves commands and the node table as they are', async () => {
    const report = await exampleClusterReport()
    const whole = renderText(report).split('\n')
    const wrapped = renderText(report, {width: 60}).split('\n')
    const commandLines = report.plan.steps.flatMap((step) => [...step.commands, ...step.undo]).flatMap((command) => command.split('\n'))
    assert.ok(commandLines.some((line) => line.length > 60), 'the example has commands wider than the terminal')
    const isCommand = (line: string) => commandLines.some((command) => command.length > 0 && line.endsWith(command))
    for (const command of commandLines) assert.ok(wrapped.some((line) => line.endsWith(command)), command)
    const table = whole.slice(whole.indexOf('Nodes') + 1, whole.indexOf('Nodes') + 2 + report.nodes.length)
    for (const row of table) assert.ok(wrapped.includes(row), row)
    // A line of one word after its indent and mark may be longer: a word is never broken.
    const breakable = (line: string) => line.replace(/^ *(?:[→✓✗!?i~] |\d+\. )?/, '').includes(' ')
    const tooLong = wrapped.filter((line) => line.length > 60 && !isCommand(line) && !table.includes(line) && breakable(line))
    assert.deepEqual(tooLong, [])
    assert.ok(wrapped.length > whole.length)
    assert.equal(wrapped.join(' ').replaceAll(/\s+/g, ' '), whole.join(' ').replaceAll(/\s+/g, ' '), 'nothing lost, nothing added but line breaks')
  })
})
