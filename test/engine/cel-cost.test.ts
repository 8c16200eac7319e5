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

  it('costs each kind of node: ternaries their dearer branch, index and field reads, map literals, negation', () => {
    // 1 + 1 (true) + the dearer branch, the exists: 1 + 4 + 3 × 3.
    assert.equal(cost('true ? "abc" : [1,2,3].exists(x, x > 0)'), 16)
    // 1 + the comparison (1 + 1 + 1, two ints read for nothing).
    assert.equal(cost('!(1 > 0)'), 4)
    // size(): 1 + the map, 1 + its 2 keys and 2 values.
    assert.equal(cost('{"a": 1, "b": 2}.size()'), 6)
    // in over a map reads its keys: 1 + 1 + 5 + 2 × (1 + 1, "a" and a key of 1 character).
    assert.equal(cost('"a" in {"a": 1, "b": 2}'), 11)
    // data.m["short"]: 1 + 2 (data.m) + 1 ("short"); the comparison reads the shorter side, "a" (1), not the 100 x's (10).
    const data = lintVariables('node', {m: {short: 'a', long: 'x'.repeat(100)}, floor: {eks: '1.33', aks: '1.33'}, nested: [[1, 2, 3]]})
    assert.equal(cost('data.m["short"] == data.m["long"]', data), 1 + 4 + 4 + 1)
    // A key not known until evaluation reads the longest value: 1 + 2 (data.floor) + 2 × (1 + 4 + 1 + 1).
    assert.equal(cost('data.floor.exists(k, data.floor[k] == "1.33")', data), 17)
    // A variable named like a key is still a variable: 1 + 2 + 2 × (1 + 4 + 1 + 10, the 100 x's).
    assert.equal(cost(`data.m.exists(short, data.m[short] == "${'x'.repeat(100)}")`, data), 35)
    // Lists in the data are priced item by item: 1 + 2 + 1 × (1 + 1 + 3 × 3).
    assert.equal(cost('data.nested.exists(x, x.exists(y, y > 0))', data), 14)
    // Every comparison reads the shorter side: 1 + 2 (kernel.release) + 1 ("5") + 1.
    for (const op of ['==', '!=', '<', '<=', '>', '>=']) assert.equal(cost(`kernel.release ${op} "5"`, lintVariables('node', {})), 5, op)
    // Comparing lists of lists reads all of them: 1 + 4 + 4 + (1 × (1 + 2 × 1)).
    assert.equal(cost('[[1,2]] == [[1,2]]'), 12)
  })

  it('bounds a value by the larger of what it can be', () => {
    const letters = 'abcdefghijklmnopqrstuvwxyz'
    // The ternary may give the 26 letters: the comparison reads 3, not 1. 1 + 3 + 1 + 3.
    assert.equal(cost(`(true ? "a" : "${letters}") == "${letters}"`), 8)
    // The ternary may give 3 items: 1 + 6 (1 + 1 + 4) + 3 × 3.
    assert.equal(cost('(true ? [1] : [1,2,3]).exists(x, x > 0)'), 16)
    // The list's items keep their bound when the other branch has none: 1 + 6 + 1 × (1 + 1 + 2 × 3).
    assert.equal(cost('(true ? [[1, 2]] : "s").exists(x, x.exists(y, y > 0))'), 15)
  })

  it('adds up what + joins: characters, and items with their bounds', () => {
    // The two lists make 3 items: + costs 1 + 3 + 2 + 3, the exists 1 + 9 + 3 × 3.
    assert.equal(cost('([1,2] + [3]).exists(x, x > 0)'), 19)
    // 20 characters: + costs 1 + 1 + 1 + 2, size() 1 + 5 + 2.
    assert.equal(cost('("abcdefghij" + "abcdefghij").size()'), 8)
    // The items stay lists of up to 2: + costs 1 + 4 + 3 + 2, the exists 1 + 10 + 2 × (1 + 1 + 2 × 3).
    assert.equal(cost('([[1,2]] + [[3]]).exists(x, x.exists(y, y > 0))'), 27)
    // An int fact has no characters: 1 + 2 + 1.
    assert.equal(cost('ipvs.virtualServers + 1', lintVariables('node', {})), 4)
  })

  it('costs every comprehension, and knows what map and filter give', () => {
    // 1 + 3 ([1,2]) + 2 × 3.
    assert.equal(cost('[1,2].all(x, x > 0)'), 10)
    assert.equal(cost('[1,2].exists_one(x, x > 0)'), 10)
    // filter gives up to 3 items: 1 + 4 + 3 × 3 = 14, then 1 + 14 + 3 × 3.
    assert.equal(cost('[1,2,3].filter(x, x > 1).exists(y, y > 0)'), 24)
    // exists gives a bool, printed in 24 characters: join costs 1 + 11 (the list of one exists, 1 + 10) + 1 + 1 item + 3 (25 characters).
    assert.equal(cost('join([[1,2].exists(x, x > 0)], ",")'), 17)
    // A method on a comprehension's variable: 1 + 2 + 5 × (1 + 1 + 1 + 26 (s, 256 characters) + 1 ("fire")).
    assert.equal(cost('services.active.exists(s, s.startsWith("fire"))', lintVariables('node', {})), 153)
    // cel.bind binds only its name: services.active keeps its bound. 1 + 1 + 23.
    assert.equal(cost('cel.bind(n, 1, services.active.exists(s, s == "ufw"))', lintVariables('node', {})), 25)
  })

  it('costs the functions rules may call: the call, its arguments and the text they read', () => {
    const costs: Array<[string, number]> = [
      // 1 + 1, and the type name 1.
      ['type(1) == int', 4],
      // Each: 1 + 1 per literal + 1 per 10 characters read.
      ['bool("true")', 3],
      ['double("1.5")', 3],
      ['int("12")', 3],
      ['uint("1")', 3],
      ['"abc".endsWith("c")', 5],
      ['"abc".startsWith("a")', 5],
      ['"abc".indexOf("b")', 5],
      ['"abc".lastIndexOf("b")', 5],
      ['versionAtLeast("1.2", "1.1")', 5],
      // A bool, printed in 24 characters, however long the versions were: 1 + 9 (1 + 1 + 1 + 4 + 1 + 1) + 1 + 1 + 3.
      [`join([versionAtLeast("${'1.'.repeat(15)}1", "1")], ",")`, 15],
      // A method on the string "cel" is no cel.bind: 1 + 1 + 1 + 1 + 1.
      ['"cel".startsWith("c")', 5],
      ['"ABC".lowerAscii()', 3],
      ['" a ".trim()', 3],
      ['"abc".substring(1)', 4],
      // upperAscii gives as many characters as it read (3, 1 unit): 1 + 3 + 1 + 1.
      ['"abc".upperAscii() == "abcdefghijklmnopqrstuvwxyz"', 6],
      // dyn gives its argument (25 characters): the comparison reads "a". 1 + 2 + 1 + 1.
      [`dyn("${'x'.repeat(25)}") == "a"`, 5],
      // string() reads 11 characters (2) and gives at least 24: 1 + 4 + 3.
      ['string("abcdefghijk").size()', 8],
      // 2 items printed in 24 characters each, with ", ": 52 characters. 1 + 3 + 1 + 2 + 6.
      ['join(["ab", "cd"], ", ")', 13],
      // A list printed: 24, and 1 + 24 for its item. 1 + 3 + 1 + 1 + 5 (50 characters).
      ['join([["a"]], ",")', 11],
      // A comparison of 40 characters gives a bool, printed in 24: 1 + 5 + 1 + 1 + 3 (25 characters).
      [`join([("${'a'.repeat(40)}" == "x")], ",")`, 11],
    ]
    for (const [expression, expected] of costs) assert.equal(cost(expression), expected, expression)
  })

  it('prices the missing fact of an unknown message at the longest fact string', () => {
    // 1 + 2 (missing.reason) + 1 ("denied") + 26 (256 characters) + 1.
    assert.equal(cost('missing.reason.contains("denied")', lintVariables('node', {})), 31)
  })

  it('refuses functions it cannot bound, such as matches() with its backtracking expressions', () => {
    assert.throws(() => cost('"aaaa!".matches("^(a+)+$")'), (error: unknown) => error instanceof UncostedCall && /matches\(\) is not available in rules: its regular expressions backtrack/.test(error.message))
    assert.throws(() => cost('timestamp("2025-01-01T00:00:00Z").getFullYear() > 2000'), (error: unknown) => error instanceof UncostedCall && /timestamp\(\) is not available in rules/.test(error.message))
  })
})
