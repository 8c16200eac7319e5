import type {Report} from '../contract/report.js'

/**
 * Text from a cluster, a node or a file, made safe to show on a terminal or in a document: control
 * characters (C0, DEL, C1: Unicode's Cc), every format character (Cf: the bidi overrides and isolates that
 * reorder text, the zero-width spaces and joiners, the soft hyphen and the tag characters that hide it), the
 * line and paragraph separators and lone surrogates become visible escapes (`\x1B`, `\u202E`, `\n`), so nothing
 * read can move the cursor, retitle a window, clear a screen, break a table row or hide a word. One pass over
 * each string: linear in its length.
 */
const CONTROL = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/gu

/** The controls that have a short name everyone reads. */
const NAMED: Record<string, string> = {'\n': String.raw`\n`, '\r': String.raw`\r`, '\t': String.raw`\t`}

export function printable(text: string): string {
  return text.replaceAll(CONTROL, (char) => {
    const named = NAMED[char]
    if (named) return named
    const code = char.codePointAt(0)!
    if (code <= 0xFF) return String.raw`\x${code.toString(16).toUpperCase().padStart(2, '0')}`
    return code <= 0xFF_FF ? String.raw`\u${hex4(code)}` : String.raw`\u{${code.toString(16).toUpperCase()}}`
  })
}

function hex4(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, '0')
}

/** CONTROL but the blanks JSON is laid out with, which JSON.stringify escapes in strings itself. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDDEN_IN_JSON = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\p{Cf}\p{Cs}\u007F-\u009F\u2028\u2029]/gu

/**
 * JSON text with the characters printable() escapes written as `\uXXXX`, as JSON.stringify writes ESC (`\u001B`): the
 * data is the same once parsed, and whoever reads the file (a terminal, a diff, a review) sees them. They stand only
 * inside strings, so the whole text can be rewritten at once.
 */
export function jsonVisible(json: string): string {
  return json.replaceAll(HIDDEN_IN_JSON, (char) => {
    let escaped = ''
    // JSON escapes UTF-16 code units: a character beyond U+FFFF is its two surrogates.
    // eslint-disable-next-line unicorn/prefer-code-point -- the code units are what is wanted
    for (let index = 0; index < char.length; index++) escaped += String.raw`\u${hex4(char.charCodeAt(index))}`
    return escaped
  })
}

/** Printable, line by line: for messages whose own line breaks are meant (errors listing problems). */
export function printableLines(text: string): string {
  return text.split('\n').map((line) => printable(line)).join('\n')
}

/** A copy of a value with every string in it made printable; what renders it can then print it as it is. */
function printableCopy<T>(value: T): T {
  if (typeof value === 'string') return printable(value) as T
  if (Array.isArray(value)) return value.map((item: unknown) => printableCopy(item)) as T
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [printable(key), printableCopy(item)])) as T
  }

  return value
}

const printableCommands = (commands: string[]) => commands.map((command) => printableLines(command))

/**
 * A report with every string made printable; the plan's commands keep their own line breaks, since a
 * loop is one command over several lines (they are kpx-check's recipes, filled with validated names).
 */
export function printableReport(report: Report): Report {
  const copy = printableCopy(report)
  copy.plan.steps = copy.plan.steps.map((step, index) => {
    const original = report.plan.steps[index]
    return {...step, commands: printableCommands(original.commands), verify: printableCommands(original.verify), undo: printableCommands(original.undo)}
  })
  return copy
}
