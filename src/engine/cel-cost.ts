/**
 * What a CEL expression can cost, worked out from its syntax tree before it runs, as Kubernetes does
 * for the CEL of CRD validation and admission policies. Every node costs 1; a comprehension (`all`,
 * `exists`, `exists_one`, `map`, `filter`) costs its body once for each item of its range, so nested
 * ones multiply; what reads a whole string or list (comparisons, `in`, `+`, `contains`, `split`,
 * `join`, …) costs 1 for each item and 1 for each 10 characters. Measured on cel-js (Node 20, 2 vCPUs),
 * a unit took 100-300 ns (nested `exists` over literals, a comparison over the rule's data) and a
 * character about 10 ns.
 *
 * The estimate is an upper bound and serves twice: `rules lint` works it out with the most each fact
 * holds by the catalogue (`maxItems`, `maxLength`), and the engine again with the facts at hand before
 * it evaluates an expression, since a fact can be longer than the catalogue expects. A meter inside
 * the evaluation would be exact, but cel-js has no hook for one, and `exists`/`all` swallow what their
 * body throws, so a meter could not stop them.
 */
import type {ASTNode} from '@marcbachmann/cel-js'

import {FACT_STRING_LENGTH, factSpecs, groupAndName} from '../facts/catalog.js'

type FactScope = Parameters<typeof factSpecs>[0]

/**
 * Most a rule may cost on one subject, all the expressions it evaluates together: Kubernetes'
 * per-expression limit, 0.1-0.3 s here. Linted rules stay under it with the catalogue's sizes (the
 * built-in ones under a tenth of it); an expression that would go over it at evaluation is not run.
 */
export const RULE_COST_BUDGET = 1_000_000

export const formatCost = (cost: number): string => cost.toLocaleString('en')

/** An upper bound on a value's size. A scalar has neither characters nor items. */
interface Extent {
  /** Most characters, when it is a string. */
  readonly chars: number
  /** Most items, when it is a list or map. */
  readonly items: number
  /** Bound on each item: a list's elements, a map's keys and values. */
  readonly item?: Extent
  /** Bound on a named field (of the fact groups such as `kernel`, the rule's `data`), within `item`. */
  field?(name: string): Extent | undefined
}

/** What a variable holds, by name: the catalogue's bounds when linting, the activation's values when evaluating. */
export type Variables = (name: string) => Extent | undefined

/** A function the estimate has no cost for, so rules cannot call it. */
export class UncostedCall extends Error {}

const SCALAR: Extent = {chars: 0, items: 0}
const CHARS_PER_UNIT = 10
/** Characters of a number or bool printed as text (a 64-bit int has at most 20 digits and a sign). */
const SCALAR_TEXT = 24

const text = (chars: number): Extent => ({chars, items: 0})

/** The bound of a list whose items have these bounds. */
function listOf(items: number, item: Extent): Extent {
  return {chars: 0, items, item}
}

/** An object's bound, from its fields' (measured only when read: an expression reads a few facts of a group). */
function objectOf(names: readonly string[], field: (name: string) => Extent | undefined): Extent {
  let item: Extent | undefined
  return {
    chars: 0,
    items: names.length,
    get item() {
      if (!item) {
        item = SCALAR
        for (const name of names) item = join(join(item, text(name.length)), field(name)!)
      }

      return item
    },
    field,
  }
}

/** A bound on either of two values. */
function join(a: Extent, b: Extent): Extent {
  if (a === b) return a
  const item = a.item && b.item ? join(a.item, b.item) : (a.item ?? b.item)
  return {chars: Math.max(a.chars, b.chars), items: Math.max(a.items, b.items), ...(item ? {item} : {})}
}

const measured = new WeakMap<object, Extent>()

/** The extent of a CEL value (strings, numbers, bools, lists and plain objects), measured once per list or object. */
function extentOf(value: unknown): Extent {
  if (typeof value === 'string') return text(value.length)
  if (value === null || typeof value !== 'object') return SCALAR
  let extent = measured.get(value)
  if (!extent) {
    const object = value as Record<string, unknown>
    extent = Array.isArray(value) ? listExtent(value) : objectOf(Object.keys(object), (name) => (Object.hasOwn(object, name) ? extentOf(object[name]) : undefined))
    measured.set(value, extent)
  }

  return extent
}

/** Strings are measured in place: a list of a million of them makes no million extents. */
function listExtent(values: readonly unknown[]): Extent {
  let chars = 0
  let item: Extent | undefined
  for (const value of values) {
    if (typeof value === 'string') chars = Math.max(chars, value.length)
    else if (value !== null && typeof value === 'object') item = item ? join(item, extentOf(value)) : extentOf(value)
  }

  return listOf(values.length, item ? join(item, text(chars)) : text(chars))
}

type ExtentTree = Map<string, Extent | ExtentTree>

function treeExtent(tree: ExtentTree): Extent {
  const fields = new Map([...tree].map(([name, node]) => [name, node instanceof Map ? treeExtent(node) : node]))
  return objectOf([...fields.keys()], (name) => fields.get(name))
}

const lintRootsByScope = new Map<string, Extent>()

/** The variables of a rule of this scope as `rules lint` prices them: facts at the catalogue's bounds, the rule's own data as written. */
export function lintVariables(scope: FactScope, data: unknown): Variables {
  const roots = lintRoots(scope)
  const dataExtent = extentOf(data)
  return (name) => (name === 'data' ? dataExtent : roots.field?.(name))
}

function lintRoots(scope: FactScope): Extent {
  let roots = lintRootsByScope.get(scope)
  if (!roots) {
    const tree: ExtentTree = new Map([['missing', new Map(['fact', 'reason', 'detail'].map((field) => [field, text(FACT_STRING_LENGTH)]))]])
    for (const spec of factSpecs(scope)) {
      const [group, name] = groupAndName(spec.path)
      const fields = (tree.get(group) ?? new Map()) as ExtentTree
      tree.set(group, fields)
      const strings = text(spec.maxLength ?? FACT_STRING_LENGTH)
      const scalar = spec.type === 'string' ? strings : SCALAR
      fields.set(name, 'maxItems' in spec ? listOf(spec.maxItems, strings) : scalar)
    }

    roots = treeExtent(tree)
    lintRootsByScope.set(scope, roots)
  }

  return roots
}

/** The variables of an activation, measured as they are. */
export function activationVariables(activation: Record<string, unknown>): Variables {
  return (name) => (Object.hasOwn(activation, name) ? extentOf(activation[name]) : undefined)
}

/** The estimated cost of evaluating the expression once. Throws UncostedCall for a function it has no cost for. */
export function estimateCost(ast: ASTNode, variables: Variables): number {
  return estimate(ast, variables).cost
}

interface Estimate {
  cost: number
  extent: Extent
}

/** Reading the whole value once. */
function scan(extent: Extent): number {
  return Math.ceil(extent.chars / CHARS_PER_UNIT) + times(extent.items, 1 + (extent.item ? scan(extent.item) : 0))
}

/** n × cost, where nothing done no times costs nothing, even when the cost is past counting. */
function times(count: number, cost: number): number {
  return count === 0 ? 0 : count * cost
}

function member(extent: Extent, name: string): Extent {
  return extent.field?.(name) ?? extent.item ?? SCALAR
}

/** The most characters a value prints as (`join` and `string()` make text of any value). */
function printed(extent: Extent): number {
  const own = Math.max(extent.chars, SCALAR_TEXT)
  return extent.item ? own + times(extent.items, 1 + printed(extent.item)) : own
}

function estimate(node: ASTNode, variables: Variables): Estimate {
  const sub = (child: ASTNode) => estimate(child, variables)
  switch (node.op) {
    case 'value': {
      return {cost: 1, extent: typeof node.args === 'string' || node.args instanceof Uint8Array ? text(node.args.length) : SCALAR}
    }

    case 'id': {
      return {cost: 1, extent: variables(node.args) ?? SCALAR}
    }

    case '.':
    case '.?': {
      const object = sub(node.args[0])
      return {cost: 1 + object.cost, extent: member(object.extent, node.args[1])}
    }

    case '[]':
    case '[?]': {
      const [object, key] = node.args.map((child) => sub(child))
      const literal = node.args[1].op === 'value' && typeof node.args[1].args === 'string' ? node.args[1].args : undefined
      return {cost: 1 + object.cost + key.cost, extent: literal === undefined ? (object.extent.item ?? SCALAR) : member(object.extent, literal)}
    }

    case 'list': {
      const elements = node.args.map((child) => sub(child))
      return {cost: 1 + sum(elements), extent: listOf(elements.length, joinAll(elements))}
    }

    case 'map': {
      const parts = node.args.flatMap(([key, value]) => [sub(key), sub(value)])
      return {cost: 1 + sum(parts), extent: {chars: 0, items: node.args.length, item: joinAll(parts)}}
    }

    case '?:': {
      const [condition, then, otherwise] = node.args.map((child) => sub(child))
      return {cost: 1 + condition.cost + Math.max(then.cost, otherwise.cost), extent: join(then.extent, otherwise.extent)}
    }

    case '!_':
    case '-_': {
      return {cost: 1 + sub(node.args).cost, extent: SCALAR}
    }

    case 'call': {
      return call(node.args[0], node.args[1].map((child) => sub(child)))
    }

    case 'rcall': {
      const [name, receiver, args] = node.args
      if (COMPREHENSIONS.has(name)) return comprehension(name, receiver, args, variables)
      if (name === 'bind' && receiver.op === 'id' && receiver.args === 'cel') return bind(args, variables)
      return call(name, [sub(receiver), ...args.map((child) => sub(child))])
    }

    default: {
      const [left, right] = node.args.map((child) => sub(child))
      return {cost: 1 + left.cost + right.cost + operation(node.op, left.extent, right.extent), extent: node.op === '+' ? concatenation(left.extent, right.extent) : SCALAR}
    }
  }
}

function joinAll(estimates: readonly Estimate[]): Extent {
  let extent = SCALAR
  for (const estimate of estimates) extent = join(extent, estimate.extent)
  return extent
}

function sum(estimates: readonly Estimate[]): number {
  return estimates.reduce((total, {cost}) => total + cost, 0)
}

/** What a binary operator adds to the cost of its operands. */
function operation(op: string, left: Extent, right: Extent): number {
  switch (op) {
    case '==':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=': {
      return Math.min(scan(left), scan(right))
    }

    case 'in': {
      return times(right.items, 1 + Math.min(scan(left), scan(right.item ?? SCALAR)))
    }

    case '+': {
      const both = concatenation(left, right)
      return Math.ceil(both.chars / CHARS_PER_UNIT) + both.items
    }

    default: {
      return 0
    }
  }
}

function concatenation(left: Extent, right: Extent): Extent {
  const item = left.item && right.item ? join(left.item, right.item) : (left.item ?? right.item)
  return {chars: left.chars + right.chars, items: left.items + right.items, ...(item ? {item} : {})}
}

const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'filter', 'map'])

/** `range.exists(x, body)` and the like: the body once for each item, with `x` bound to the items' extent. */
function comprehension(name: string, receiver: ASTNode, args: readonly ASTNode[], variables: Variables): Estimate {
  const range = estimate(receiver, variables)
  const item = range.extent.item ?? SCALAR
  const variable = args[0].op === 'id' ? args[0].args : ''
  const inner: Variables = (other) => (other === variable ? item : variables(other))
  const body = args.slice(1).map((child) => estimate(child, inner))
  const cost = 1 + range.cost + times(range.extent.items, sum(body))
  if (name === 'map') return {cost, extent: listOf(range.extent.items, body.at(-1)!.extent)}
  if (name === 'filter') return {cost, extent: listOf(range.extent.items, item)}
  return {cost, extent: SCALAR}
}

/** `cel.bind(x, value, body)`: the value once, the body with `x` bound to its extent. */
function bind(args: readonly ASTNode[], variables: Variables): Estimate {
  const [name, valueNode, body] = args
  const value = estimate(valueNode, variables)
  const variable = name.op === 'id' ? name.args : ''
  const result = estimate(body, (other) => (other === variable ? value.extent : variables(other)))
  return {cost: 1 + value.cost + result.cost, extent: result.extent}
}

/** Function calls (a method's receiver comes first): the call, its arguments, and the text or list it reads. */
function call(name: string, args: readonly Estimate[]): Estimate {
  const cost = 1 + sum(args)
  const extents = args.map((arg) => arg.extent)
  const [first = SCALAR, second = SCALAR] = extents
  const reading = extents.reduce((total, extent) => total + scan(extent), 0)
  switch (name) {
    case 'has':
    case 'type': {
      return {cost, extent: SCALAR}
    }

    case 'dyn': {
      return {cost, extent: first}
    }

    // size() of a string counts its code points.
    case 'size': {
      return {cost: cost + Math.ceil(first.chars / CHARS_PER_UNIT), extent: SCALAR}
    }

    case 'bool':
    case 'compareVersions':
    case 'contains':
    case 'double':
    case 'endsWith':
    case 'indexOf':
    case 'int':
    case 'lastIndexOf':
    case 'startsWith':
    case 'uint':
    case 'versionAtLeast': {
      return {cost: cost + reading, extent: SCALAR}
    }

    case 'lowerAscii':
    case 'substring':
    case 'trim':
    case 'upperAscii': {
      return {cost: cost + reading, extent: text(first.chars)}
    }

    case 'string': {
      return {cost: cost + reading, extent: text(printed(first))}
    }

    case 'split': {
      return {cost: cost + reading, extent: listOf(first.chars + 1, text(first.chars))}
    }

    // list.join(separator?) and join(list, separator): every item printed, and a separator between them.
    case 'join': {
      const chars = times(first.items, printed(first.item ?? SCALAR) + second.chars)
      return {cost: cost + first.items + Math.ceil(chars / CHARS_PER_UNIT), extent: text(chars)}
    }

    case 'matches': {
      throw new UncostedCall('matches() is not available in rules: its regular expressions backtrack, so one pattern can take exponential time on a fact; use contains, startsWith, endsWith or split')
    }

    default: {
      throw new UncostedCall(`${name}() is not available in rules: kpx-check has no cost estimate for it`)
    }
  }
}
