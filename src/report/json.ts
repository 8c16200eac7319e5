/**
 * Writes a value as pretty JSON (two-space indent, as JSON.stringify(value, null, 2) would) in
 * pieces: a 5,000-node report holds tens of thousands of findings, and one string of all of it
 * would take hundreds of megabytes on top of the report itself.
 */
export function writeJson(value: unknown, write: (chunk: string) => void): void {
  writeValue(value, 0, write, [])
  write('\n')
}

/**
 * Objects down to this depth are taken apart (the report, its lists, their items); below it each
 * piece is small enough to stringify whole, and one met again (the checks that nodes alike share)
 * is written from the text made the first time.
 */
const TAKEN_APART = 2

function writeValue(value: unknown, depth: number, write: (chunk: string) => void, written: Array<WeakMap<object, string>>): void {
  const indent = '  '.repeat(depth)
  if (Array.isArray(value) && value.length > 0) {
    write('[')
    for (const [index, item] of value.entries()) {
      write(`${index === 0 ? '' : ','}\n${indent}  `)
      writeValue(item, depth + 1, write, written)
    }

    write(`\n${indent}]`)
  } else if (value !== null && typeof value === 'object' && !Array.isArray(value) && depth <= TAKEN_APART) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined)
    write('{')
    for (const [index, [key, item]] of entries.entries()) {
      write(`${index === 0 ? '' : ','}\n${indent}  ${JSON.stringify(key)}: `)
      writeValue(item, depth + 1, write, written)
    }

    write(entries.length > 0 ? `\n${indent}}` : '}')
  } else if (value !== null && typeof value === 'object') {
    // By depth too: the text is indented for where it stands.
    const atDepth = (written[depth] ??= new WeakMap())
    let text = atDepth.get(value)
    if (text === undefined) atDepth.set(value, (text = JSON.stringify(value, null, 2).replaceAll('\n', `\n${indent}`)))
    write(text)
  } else {
    write(JSON.stringify(value) ?? 'null')
  }
}
