import type {Ajv, ErrorObject, ValidateFunction} from 'ajv'
import {createRequire} from 'node:module'
import {type Document, isMap, isSeq, LineCounter, type Node, parseDocument} from 'yaml'

/** A mistake in a YAML input file, located for an editor: `file:line:column message`. */
export interface FileProblem {
  file: string
  line: number
  column: number
  message: string
}

export function formatProblem(problem: FileProblem): string {
  return `${problem.file}:${problem.line}:${problem.column} ${problem.message}`
}

// ajv takes about 30 ms to load: only a run that reads an input file of this kind pays for it.
const require = createRequire(import.meta.url)

/**
 * The validator for an input file's JSON Schema, compiled when first used: every error at once, each
 * with its parent schema (verbose), so a misspelt field can be matched to the one meant.
 */
export function fileSchemaValidator(schema: object): () => ValidateFunction {
  let validate: undefined | ValidateFunction
  return () => (validate ??= newAjv().compile(schema))
}

function newAjv(): Ajv {
  const ajv = require('ajv') as {Ajv: typeof Ajv}
  return new ajv.Ajv({allErrors: true, strict: false, verbose: true})
}

/** A YAML file that parsed and matched its schema, with a way to locate problems found later. */
export interface ValidYamlFile<T> {
  value: T
  /** A problem at the deepest node that exists along `path` (['waivers', 0, 'expires']). */
  problemAt(path: Array<number | string>, message: string): FileProblem
}

/**
 * Parses YAML text and validates it against a JSON Schema; problems carry line and column.
 * `rootName` names the whole document in messages ("rule must have required property 'id'").
 */
export function parseYamlFile<T>(text: string, displayName: string, validate: ValidateFunction, rootName: string): {file?: ValidYamlFile<T>; problems: FileProblem[]} {
  const lineCounter = new LineCounter()
  const document = parseDocument(text, {lineCounter, prettyErrors: false, uniqueKeys: true})
  const at = (offset: number, message: string): FileProblem => {
    const {line, col} = lineCounter.linePos(offset)
    return {file: displayName, line, column: col, message}
  }

  if (document.errors.length > 0) {
    return {problems: document.errors.map((error) => at(error.pos[0], `YAML: ${error.message.split('\n', 1)[0]}`))}
  }

  let value: T
  try {
    value = document.toJS() as T
  } catch (error) {
    // The yaml package refuses documents whose aliases would multiply (a "billion laughs").
    return {problems: [at(0, `YAML: ${(error as Error).message.split('\n', 1)[0]}`)]}
  }

  if (!validate(value)) return {problems: (validate.errors ?? []).map((error) => schemaProblem(error, rootName, document, at))}
  return {file: {value, problemAt: (path, message) => at(offsetOf(document, path), message)}, problems: []}
}

function schemaProblem(error: ErrorObject, rootName: string, document: Document, at: (offset: number, message: string) => FileProblem): FileProblem {
  // A JSON Pointer: `/` and `~` in a key (a rule id such as node/host-firewall) are written ~1 and ~0.
  const keys = error.instancePath.split('/').slice(1).map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
  const path = keys.map((part) => (/^\d+$/.test(part) ? Number(part) : part))
  const where = error.instancePath === '' ? rootName : keys.join('.')
  let message = `${where} ${error.message}`
  const {description} = (error.parentSchema ?? {}) as {description?: unknown}
  if (error.keyword === 'not' && typeof description === 'string') {
    // A field the schema refuses by name says why in its description.
    message = `${where}: ${description}`
  } else if (error.keyword === 'additionalProperties') {
    const extra = (error.params as {additionalProperty: string}).additionalProperty
    message = `${where}: unknown field "${extra}"${suggest(extra, error.parentSchema)}`
    path.push(extra)
  } else if (error.keyword === 'type') {
    const types = [(error.params as {type: string | string[]}).type].flat()
    message = `${where} must be ${types.map((type) => YAML_TYPE_NAMES[type] ?? type).join(' or ')}`
  } else if (error.keyword === 'enum') {
    message = `${where} must be one of ${(error.params as {allowedValues: string[]}).allowedValues.join(', ')}`
  }

  return at(offsetOf(document, path), message)
}

/** JSON Schema's types as YAML writes them. */
const YAML_TYPE_NAMES: Record<string, string> = {
  array: 'a list',
  boolean: 'true or false',
  integer: 'a whole number',
  null: 'empty',
  number: 'a number',
  object: 'a mapping (key: value)',
  string: 'a string',
}

/** "did you mean" for a misspelt field, by edit distance against the allowed names. */
function suggest(name: string, schema: unknown): string {
  const allowed = Object.keys((schema as {properties?: object})?.properties ?? {})
  const close = allowed.find((candidate) => editDistance(candidate, name) <= 2)
  return close ? `; did you mean "${close}"?` : ''
}

function editDistance(a: string, b: string): number {
  const row = Array.from({length: b.length + 1}, (_unused, index) => index)
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1))
      previous = current
    }
  }

  return row[b.length]
}

/** Source offset of the deepest YAML node that exists along `path`. */
function offsetOf(document: Document, path: Array<number | string>): number {
  let node: Node | null | undefined = document.contents
  let offset = node?.range?.[0] ?? 0
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => (item.key as {value?: unknown})?.value === key)
      if (!pair) break
      offset = (pair.key as Node)?.range?.[0] ?? offset
      node = pair.value as Node
    } else if (isSeq(node) && typeof key === 'number') {
      node = node.items[key] as Node
      if (!node) break
      offset = node.range?.[0] ?? offset
    } else {
      break
    }
  }

  return offset
}
