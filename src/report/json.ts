/**
 * Writes a value as pretty JSON (two-space indent, as JSON.stringify(value, null, 2) would) in
 * pieces: a 5,000-node report holds tens of thousands of findings, and one string of all of it
 * would take hundreds of megabytes on top of the report itself.
 */
export function writeJson(value: unknown, write: (chunk: string) => void): void {
  writeValue(value, '', write)
  write('\n')
}

function writeValue(value: unknown, indent: string, write: (chunk: string) => void): void {
  if (Array.isArray(value) && value.length > 0) {
    write('[')
    for (const [index, item] of value.entries()) {
      write(`${index === 0 ? '' : ','}\n${indent}  `)
      writeValue(item, `${indent}  `, write)
    }

    write(`\n${indent}]`)
  } else if (value !== null && typeof value === 'object' && !Array.isArray(value) && indent === '') {
    // Only the top level is taken apart; below it each piece is small enough to stringify whole.
    const entries = Object.entries(value).filter(([, item]) => item !== undefined)
    write('{')
    for (const [index, [key, item]] of entries.entries()) {
      write(`${index === 0 ? '' : ','}\n  ${JSON.stringify(key)}: `)
      writeValue(item, '  ', write)
    }

    write(entries.length > 0 ? '\n}' : '}')
  } else {
    write((JSON.stringify(value, null, 2) ?? 'null').replaceAll('\n', `\n${indent}`))
  }
}
