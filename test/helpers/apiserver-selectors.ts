/** Label and field selectors, read as the API server reads `?labelSelector=` and `?fieldSelector=`. */

/** What a selector can look at. */
interface Selectable {
  name: string
  namespace: string
  labels: Record<string, string>
  /** The values of the field labels its kind supports besides metadata's (a Pod's spec.nodeName). */
  fields: Record<string, string>
}

export type Matcher = (object: Selectable) => boolean

/** A selector the server cannot read: the request gets a 400 BadRequest with this message. */
export class SelectorError extends Error {}

const KEY = '[A-Za-z0-9][-A-Za-z0-9_./]*'
const VALUE = '[-A-Za-z0-9_.]*'
const SET_REQUIREMENT = new RegExp(String.raw`^(${KEY})\s+(in|notin)\s+\(([^)]*)\)$`)
const EQUALITY_REQUIREMENT = new RegExp(String.raw`^(${KEY})\s*(==|=|!=)\s*(${VALUE})$`)
const EXISTENCE_REQUIREMENT = new RegExp(String.raw`^(!?)\s*(${KEY})$`)

/** `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x,y)`, `a`, `!a`, joined by commas (all must hold). */
export function labelSelector(selector: string): Matcher {
  const requirements = splitRequirements(selector).map((requirement) => labelRequirement(requirement))
  return ({labels}) => requirements.every((holds) => holds(labels))
}

function labelRequirement(requirement: string): (labels: Record<string, string>) => boolean {
  const set = SET_REQUIREMENT.exec(requirement)
  if (set) {
    const [, key, operator, list] = set
    const values = new Set(list.split(',').map((value) => value.trim()))
    const isIn = (labels: Record<string, string>) => Object.hasOwn(labels, key) && values.has(labels[key])
    // As in Kubernetes, `notin` and `!=` also hold for objects without the label.
    return operator === 'in' ? isIn : (labels) => !isIn(labels)
  }

  const equality = EQUALITY_REQUIREMENT.exec(requirement)
  if (equality) {
    const [, key, operator, value] = equality
    const isEqual = (labels: Record<string, string>) => Object.hasOwn(labels, key) && labels[key] === value
    return operator === '!=' ? (labels) => !isEqual(labels) : isEqual
  }

  const existence = EXISTENCE_REQUIREMENT.exec(requirement)
  if (existence) {
    const [, not, key] = existence
    return (labels) => Object.hasOwn(labels, key) !== (not === '!')
  }

  throw new SelectorError(`unable to parse requirement: ${JSON.stringify(requirement)}`)
}

/** Splits on the commas between requirements, not on those inside `in (x,y)`. */
function splitRequirements(selector: string): string[] {
  const requirements: string[] = []
  let depth = 0
  let start = 0
  for (let index = 0; index < selector.length; index++) {
    const char = selector[index]
    if (char === '(') depth++
    else if (char === ')') depth--
    else if (char === ',' && depth === 0) {
      requirements.push(selector.slice(start, index))
      start = index + 1
    }
  }

  requirements.push(selector.slice(start))
  return requirements.map((requirement) => requirement.trim()).filter((requirement) => requirement !== '')
}

/** The fields every resource can be selected by. */
const METADATA_FIELDS: Record<string, (object: Selectable) => string> = {
  'metadata.name': (object) => object.name,
  'metadata.namespace': (object) => object.namespace,
}

/** `metadata.name=x`, `spec.nodeName!=y`, joined by commas; `kindFields` are the other field labels the kind supports. */
export function fieldSelector(selector: string, kindFields: readonly string[] = []): Matcher {
  const requirements = splitRequirements(selector).map((requirement): Matcher => {
    const match = /^([^!=]+?)\s*(==|=|!=)\s*(.*)$/.exec(requirement)
    if (!match) throw new SelectorError(`invalid selector: '${selector}'; can't understand '${requirement}'`)
    const [, field, operator, value] = match
    const read = METADATA_FIELDS[field] ?? (kindFields.includes(field) ? (object: Selectable) => object.fields[field] ?? '' : undefined)
    if (!read) throw new SelectorError(`field label not supported: ${field}`)
    return operator === '!=' ? (object) => read(object) !== value : (object) => read(object) === value
  })
  return (object) => requirements.every((holds) => holds(object))
}
