import {Environment} from '@marcbachmann/cel-js'

import type {FactValue} from '../contract/finding.js'
import {type FactSpec, factSpecs, groupAndName} from '../facts/catalog.js'
import type {FactSet} from '../facts/fact-set.js'
import {compareVersions} from '../facts/parsers/versions.js'
import type {RuleScope} from './rule-schema.js'

type Scope = RuleScope

/**
 * The functions rules may call besides CEL's standard library. Kept small and named as in
 * Kubernetes' own CEL libraries where one exists.
 */
function registerFunctions(env: Environment): Environment {
  return env
    .registerFunction(
      'compareVersions(string, string): int',
      (a: string, b: string) => BigInt(compareVersions(a, b)),
      {description: 'Compares dotted numeric versions: -1, 0 or 1 ("5.14.0" vs "5.13" → 1).'},
    )
    .registerFunction(
      'versionAtLeast(string, string): bool',
      (a: string, b: string) => compareVersions(a, b) >= 0,
      {description: 'True when the first dotted version is the second or newer.'},
    )
    .registerFunction('join(list, string): string', (items: unknown[], separator: string) =>
      items.map(String).join(separator),
    )
}

/** Builds the CEL variable schema (`kernel: {release: string, …}`) from the flat catalogue. */
function schemaOf(specs: readonly FactSpec[]): Map<string, Record<string, string>> {
  const groups = new Map<string, Record<string, string>>()
  for (const spec of specs) {
    const [group, name] = groupAndName(spec.path)
    groups.set(group, {...groups.get(group), [name]: spec.type})
  }

  return groups
}

/**
 * Structural limits for rule expressions, far below cel-js's defaults (100,000 nodes, depth 250):
 * the largest built-in expression has 23 nodes, a depth of 6 and lists of 3. They bound what a rule file
 * can make the parser and the cost estimate (cel-cost.ts) walk; the estimate bounds the evaluation.
 */
const RULE_EXPRESSION_LIMITS = {maxAstNodes: 256, maxDepth: 32, maxListElements: 64, maxMapEntries: 64, maxCallArguments: 8}

const environments = new Map<Scope, Environment>()

export function celEnvironment(scope: Scope): Environment {
  let env = environments.get(scope)
  if (!env) {
    env = registerFunctions(new Environment({homogeneousAggregateLiterals: false, limits: RULE_EXPRESSION_LIMITS}))
    for (const [name, schema] of schemaOf(factSpecs(scope))) env.registerVariable({name, schema} as never)
    env.registerVariable('data', 'map')
    env.registerVariable({name: 'missing', schema: {fact: 'string', reason: 'string', detail: 'string'}} as never)
    environments.set(scope, env)
  }

  return env
}

/** Per scope, worked out once: the int facts' paths and the fact groups. */
const shapesByScope = new Map<Scope, {intPaths: ReadonlySet<string>; groups: readonly string[]}>()

/** Fact values as CEL sees them: integers become BigInt, as CEL ints are 64-bit. */
export function celActivation(facts: FactSet, scope: Scope): Record<string, unknown> {
  let shape = shapesByScope.get(scope)
  if (!shape) {
    const specs = factSpecs(scope)
    shape = {intPaths: new Set(specs.filter((spec) => spec.type === 'int').map((spec) => spec.path)), groups: [...schemaOf(specs).keys()]}
    shapesByScope.set(scope, shape)
  }

  // Every fact group exists, even when empty, so rules can test `has(os.prettyName)`.
  const groups: Record<string, Record<string, unknown>> = Object.fromEntries(shape.groups.map((group) => [group, {}]))
  for (const path of facts.knownPaths()) {
    const [group, name] = groupAndName(path)
    const value = facts.get(path) as FactValue
    groups[group] ??= {}
    groups[group][name] = shape.intPaths.has(path) && typeof value === 'number' ? BigInt(Math.trunc(value)) : value
  }

  return groups
}

/** Converts YAML data (numbers) into CEL values (whole numbers become ints). */
export function celData(value: unknown): unknown {
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value)
  if (Array.isArray(value)) return value.map((item) => celData(item))
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, celData(item)]))
  }

  return value
}

/** Renders a CEL result for a message: lists joined, ints without the `n`. */
export function formatCelValue(value: unknown): string {
  if (Array.isArray(value)) return value.map((item) => formatCelValue(item)).join(', ')
  if (value instanceof Map) return formatCelValue(Object.fromEntries(value))
  if (value && typeof value === 'object') return JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? Number(item) : item))
  return String(value)
}
