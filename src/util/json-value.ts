/** Shapes of parsed JSON that came from outside, checked before anything reads them. */

/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** What a JSON value is, for a message: `null`, `an array`, `a string`, … */
export function describeJson(value: unknown): string {
  if (value === null) return 'null'
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`
}
