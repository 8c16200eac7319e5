/**
 * A command's --help description from its source lines: a blank line ends a paragraph, and a
 * paragraph's lines are joined with spaces, so that oclif wraps it to the terminal's width instead
 * of breaking it where the source did. An entry holding line breaks of its own (a table) is kept as
 * it is, a block of its own.
 */
export function helpDescription(lines: readonly string[]): string {
  const blocks: string[] = []
  let paragraph: string[] = []
  const end = () => {
    if (paragraph.length > 0) blocks.push(paragraph.join(' '))
    paragraph = []
  }

  for (const line of lines) {
    if (line === '' || line.includes('\n')) {
      end()
      if (line !== '') blocks.push(line)
    } else {
      paragraph.push(line)
    }
  }

  end()
  return blocks.join('\n\n')
}
