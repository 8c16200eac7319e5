import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {activationVariables, estimateCost, lintVariables, UncostedCall, type Variables} from '../../src/engine/cel-cost.js'
import {celEnvironment} from '../../src/engine/cel.js'

const TEN = '[1,2,3,4,5,6,7,8,9,10]'
const noVariables = activationVariables({})
const cost = (expression: string, variables: Variables = noVariables) => estimateCost(celEnvironment('node').parse(expression).ast, variables)

/** `TEN.exists(a, TEN.exists(b, … h > 0))`, `depth` comprehensions deep. */
function nested(depth: number): string {
  const names = 'abcdefgh'.slice(0, depth)
  let expression = `${names.at(-1)} > 0`
  for (let index = depth - 1; index >= 0; index--) expression = `${TEN}.exists(${names[index]}, ${expression})`
  return expression
}

describe('CEL cost estimate', () => {
  // Each level: 1 for the call, 11 for the literal (the list and its 10 values), 10 times the body.
  it('costs a comprehension its body once per item, so nested ones multiply', () => {
    // a > 0: the operator, a and 0.
    assert.equal(cost(`${TEN}.exists(a, a > 0)`), 1 + 11 + 10 * 3)
    assert.equal(cost(nested(2)), 1 + 11 + 10 * 42)
    assert.equal(cost(nested(3)), 4332)
    assert.equal(cost(nested(8)), 433_333_332)
  })

  it('costs nothing for a body over an empty list', () => {
    // The call and the empty list, however costly the body.
    assert.equal(cost(`[].exists(a, ${nested(8)})`), 2)
  })

  it('carries the sizes a comprehension makes into the ones over its result', () => {
    // map: 1 + 4 ([1,2,3]) + 3 × 5 ([1,2,3,4]) = 20, a list of 3 lists of 4;
    // each y.exists: 1 + 1 (y) + 4 × 3 = 14; the outer exists: 1 + 20 + 3 × 14.
    assert.equal(cost('[1,2,3].map(x, [1,2,3,4]).exists(y, y.exists(z, z > 0))'), 63)
    // split: 1 + 1 + 1 + 1 ("a,b,c", 5 characters) + 1 (",") = 5, at most 6 parts of 5 characters;
    // p == "b": 3 + 1 (the shorter side read). 1 + 5 + 6 × 4.
    assert.equal(cost('"a,b,c".split(",").exists(p, p == "b")'), 30)
    // bind: 1 + 4 ([1,2,3]) + the body over xs, 1 + 1 + 3 × 3.
    assert.equal(cost('cel.bind(xs, [1,2,3], xs.exists(x, x > 0))'), 16)
  })

  it('prices facts at the catalogue\'s bounds when linting, and at their real size when evaluating', () => {
    // services.active: at most 5 strings of at most 256 characters. 1 (exists) + 2 (services.active)
    // + 5 × (s == "ufw": 3 + 1, "ufw" being the shorter side).
    assert.equal(cost('services.active.exists(s, s == "ufw")', lintVariables('node', {})), 23)
    const active = Array.from({length: 1000}, (_, index) => `service-${index}`)
    assert.equal(cost('services.active.exists(s, s == "ufw")', activationVariables({services: {active}})), 1 + 2 + 1000 * 4)
    // contains reads both strings, 1 per 10 characters: 1 + 2 (kernel.release) + 1 ("el9") + 26 (256 characters) + 1.
    assert.equal(cost('kernel.release.contains("el9")', lintVariables('node', {})), 31)
    assert.equal(cost('kernel.release.contains("el9")', activationVariables({kernel: {release: 'x'.repeat(95)}})), 1 + 2 + 1 + 10 + 1)
    // in: 1 + 1 ("x") + 2 (services.active) + 5 × (1 + 1).
    assert.equal(cost('"x" in services.active', lintVariables('node', {})), 14)
  })

  it('reads the rule\'s data as written', () => {
    // 1 + 2 (data.xs) + 7 × 3.
    assert.equal(cost('data.xs.exists(x, x > 0)', lintVariables('node', {xs: [1, 2, 3, 4, 5, 6, 7]})), 24)
  })

  it('refuses functions it cannot bound, such as matches() with its backtracking expressions', () => {
    assert.throws(() => cost('"aaaa!".matches("^(a+)+$")'), (error: unknown) => error instanceof UncostedCall && /matches\(\) is not available in rules: its regular expressions backtrack/.test(error.message))
    assert.throws(() => cost('timestamp("2025-01-01T00:00:00Z").getFullYear() > 2000'), (error: unknown) => error instanceof UncostedCall && /timestamp\(\) is not available in rules/.test(error.message))
  })
})
