import {stripVTControlCharacters} from 'node:util'

/** Left-aligned columns, two spaces apart; colour codes do not count towards the width. */
function width(text: string): number {
  return stripVTControlCharacters(text).length
}

export function renderTable(header: string[], rows: string[][], indent = ''): string {
  const widths = header.map((title, column) => Math.max(width(title), ...rows.map((row) => width(row[column] ?? ''))))
  const line = (cells: string[]) =>
    indent +
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell + ' '.repeat(widths[column] - width(cell))))
      .join('  ')
      .trimEnd()
  return [line(header), ...rows.map((row) => line(row))].join('\n')
}
