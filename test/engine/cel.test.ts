import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {celActivation, celData, celEnvironment, formatCelValue} from '../../src/engine/cel.js'
import {FactSet} from '../../src/facts/fact-set.js'

const env = celEnvironment('node')
const evaluate = (expression: string, context: Record<string, unknown> = {}) => env.evaluate(expression, context)
const items = (count: number, item: (index: number) => string) => Array.from({length: count}, (_, index) => item(index)).join(', ')

describe('the CEL environment of rules', () => {
  it('has versionAtLeast: the first dotted version is the second or newer', () => {
    assert.equal(evaluate('versionAtLeast("5.13.0", "5.13")'), true)
    assert.equal(evaluate('versionAtLeast("5.14", "5.13.9")'), true)
    assert.equal(evaluate('versionAtLeast("5.12.19", "5.13")'), false)
  })

  it('has compareVersions, an int of -1, 0 or 1', () => {
    assert.equal(evaluate('compareVersions("1.29", "1.29.0")'), 0n)
    assert.equal(evaluate('compareVersions("1.28.15", "1.29")'), -1n)
  })

  it('has join, which writes ints without their n', () => {
    assert.equal(evaluate('join(["eth0", "eth1"], ", ")'), 'eth0, eth1')
    assert.equal(evaluate('join([80, 443], "/")'), '80/443')
  })

  it('accepts list literals of mixed types, as messages build them', () => {
    assert.equal(evaluate('size([1, "two"])'), 2n)
  })

  // The limits a rule file's expression is parsed under: far below cel-js's own.
  for (const [limit, atLimit, pastLimit] of [
    ['maxListElements (64)', `size([${items(64, () => '1')}])`, `size([${items(65, () => '1')}])`],
    ['maxMapEntries (64)', `size({${items(64, (index) => `"k${index}": 1`)}})`, `size({${items(65, (index) => `"k${index}": 1`)}})`],
    ['maxDepth (32)', `${'('.repeat(31)}1${')'.repeat(31)}`, `${'('.repeat(33)}1${')'.repeat(33)}`],
    ['maxAstNodes (256)', Array.from({length: 128}, () => '1').join(' + '), Array.from({length: 129}, () => '1').join(' + ')],
    ['maxCallArguments (8)', 'join([], "", 1, 2, 3, 4, 5, 6)', 'join([], "", 1, 2, 3, 4, 5, 6, 7)'],
  ]) {
    it(`rejects an expression past ${limit}`, () => {
      assert.throws(() => env.parse(pastLimit), new RegExp(`Exceeded ${limit.replaceAll(/[()]/g, String.raw`\$&`)}`))
      assert.doesNotThrow(() => env.parse(atLimit))
    })
  }
})

describe('facts as CEL sees them', () => {
  const activation = celActivation(new FactSet().set('ipvs.virtualServers', 3).set('kernel.release', '5.15.0-91-generic'), 'node')

  it('makes int facts CEL ints and leaves strings as they are', () => {
    assert.equal(evaluate('ipvs.virtualServers + 1', activation), 4n)
    assert.equal(evaluate('kernel.release', activation), '5.15.0-91-generic')
  })

  it('has every fact group, even one without a known fact, so has() can test its facts', () => {
    assert.equal(evaluate('has(os.prettyName)', activation), false)
    assert.equal(evaluate('has(kernel.release) && !has(kernel.version)', activation), true)
  })

  it("takes facts of another scope's groups: a node rule's skip is tried on the cluster's facts when no node can be read", () => {
    assert.equal(evaluate('has(kernel.release)', celActivation(new FactSet().set('cluster.gitVersion', 'v1.34.1'), 'node')), false)
  })
})

describe('rule data and results', () => {
  it('turns whole numbers of rule data into CEL ints, in lists and maps too', () => {
    assert.deepEqual(celData({limits: [1, 2.5, 'x'], floor: {eks: 33}}), {limits: [1n, 2.5, 'x'], floor: {eks: 33n}})
  })

  it('writes results for messages: lists joined, maps and objects as JSON, ints without their n', () => {
    assert.equal(formatCelValue(['eth0', 2n]), 'eth0, 2')
    assert.equal(formatCelValue(new Map([['calico', 3n]])), '{"calico":3}')
    assert.equal(formatCelValue({ports: [80n, 443n]}), '{"ports":[80,443]}')
    assert.equal(formatCelValue(7n), '7')
  })
})
