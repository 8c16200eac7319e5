import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {renderTemplate, templateExpressions} from '../../src/engine/templates.js'

describe('rule message placeholders', () => {
  it('are {{ expression }} on one line, trimmed, replaced in place', () => {
    assert.deepEqual(templateExpressions('a {{ x }} b {{y}}'), ['x', 'y'])
    assert.equal(renderTemplate('a {{ x }} b {{y}}{{z}}', (expression) => `<${expression}>`), 'a <x> b <y><z>')
  })

  it('leave what is not one as text: an opening without a close on its line, a lone close', () => {
    assert.deepEqual(templateExpressions('{{a\n{{b}}'), ['b'])
    assert.equal(renderTemplate('x}} {{a\n{{b}} {{', (expression) => `<${expression}>`), 'x}} {{a\n<b> {{')
  })

  it('find a placeholder that closes before its line ends, on every line', () => {
    assert.deepEqual(templateExpressions('{{a}}\n{{ b }} and {{c}}\n'), ['a', 'b', 'c'])
  })

  it('close at the first }} after the opening, and go on after it', () => {
    assert.equal(renderTemplate('{{a{{}} b}} {{c}}', (expression) => `<${expression}>`), '<a{{> b}} <c>')
  })
})
