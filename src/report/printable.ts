import type {Report} from '../contract/report.js'

/**
 * Text from a cluster, a node or a file, made safe to show on a terminal or in a document: control
 * characters (C0, DEL, C1) and the Unicode controls that reorder or hide text become visible escapes
 * (`\x1B`, `\u202E`, `\n`), so nothing read can move the cursor, retitle a window, clear a screen, break a
 * table row or hide a word. One pass over each string: linear in its length.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u061C\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/gu

/** The controls that have a short name everyone reads. */
const NAMED: Record<string, string> = {'\n': String.raw`\n`, '\r': String.raw`\r`, '\t': String.raw`\t`}

export function printable(text: string): string {
  return text.replaceAll(CONTROL, (char) => {
    const named = NAMED[char]
    if (named) return named
    const code = char.codePointAt(0)!
    return code <= 0xFF ? String.raw`\x${code.toString(16).toUpperCase().padStart(2, '0')}` : String.raw`\u${code.toString(16).toUpperCase().padStart(4, '0')}`
  })
}

/** Printable, line by line: for messages whose own line breaks are meant (errors listing problems). */
export function printableLines(text: string): string {
  return text.split('\n').map((line) => printable(line)).join('\n')
}

/** A copy of a value with every string in it made printable; what renders it can then print it as it is. */
export function printableCopy<T>(value: T): T {
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
