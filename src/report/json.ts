/**
 * Writes a value as JSON in pieces: a 5,000-node report holds tens of thousands of findings, and
 * one string of all of it would take hundreds of megabytes on top of the report itself. `pretty`
 * lays it out as JSON.stringify(value, null, 2) would; else it is one line, a fifth smaller.
 */
export function writeJson(value: unknown, write: (chunk: string) => void, layout: {pretty: boolean}): void {
  writeValue(value, 0, layout.pretty, write, [])
  write('\n')
}

/** The whole JSON text of a value, as writeJson writes it. */
export function jsonText(value: unknown, layout: {pretty: boolean}): string {
  const pieces: string[] = []
  writeJson(value, (piece) => pieces.push(piece), layout)
  return pieces.join('')
}

/**
 * Objects down to this depth are taken apart (the report, its lists, their items); below it each
 * piece is small enough to stringify whole, and one met again (the checks that nodes alike share)
 * is written from the text made the first time.
 */
const TAKEN_APART = 2

function writeValue(value: unknown, depth: number, pretty: boolean, write: (chunk: string) => void, written: Array<WeakMap<object, string>>): void {
  const newline = pretty ? `\n${'  '.repeat(depth)}` : ''
  const inner = pretty ? `${newline}  ` : ''
  if (Array.isArray(value) && value.length > 0) {
    write('[')
    let first = true
    for (const item of value) {
      write(`${first ? '' : ','}${inner}`)
      first = false
      writeValue(item, depth + 1, pretty, write, written)
    }

    write(`${newline}]`)
  } else if (value !== null && typeof value === 'object' && !Array.isArray(value) && depth <= TAKEN_APART) {
    // Plain loops: a 5,000-node report has 60,000 fields here, and entries() and filter() cost half the time.
    write('{')
    let empty = true
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key]
      if (item === undefined) continue
      write(`${empty ? '' : ','}${inner}${JSON.stringify(key)}:${pretty ? ' ' : ''}`)
      empty = false
      writeValue(item, depth + 1, pretty, write, written)
    }

    write(empty ? '}' : `${newline}}`)
  } else if (value !== null && typeof value === 'object') {
    // By depth too: the pretty text is indented for where it stands.
    const atDepth = (written[depth] ??= new WeakMap())
    let text = atDepth.get(value)
    if (text === undefined) atDepth.set(value, (text = pretty ? JSON.stringify(value, null, 2).replaceAll('\n', newline) : JSON.stringify(value)))
    write(text)
  } else {
    write(JSON.stringify(value) ?? 'null')
  }
}
