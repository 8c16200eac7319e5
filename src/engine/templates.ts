/** `{{ expression }}` placeholders in rule messages and remediation steps: `{{`, an expression on the same line, `}}`. */

interface Placeholder {
  start: number
  end: number
  expression: string
}

/**
 * The placeholders of a template, found in one pass: a rule file is untrusted, and a lazy regular
 * expression would rescan the rest of the line from every `{{` (40,000 of them on one line: 18 s).
 */
function placeholders(template: string): Placeholder[] {
  const found: Placeholder[] = []
  // The next `}}` and line break are looked for again only once passed: each character is scanned a bounded number of times.
  let from = 0
  let close = -1
  let newline = -1
  let noMoreLines = false
  for (;;) {
    const open = template.indexOf('{{', from)
    if (open === -1) return found
    if (close < open + 2) close = template.indexOf('}}', open + 2)
    if (close === -1) return found
    if (!noMoreLines && newline < open + 2) {
      newline = template.indexOf('\n', open + 2)
      noMoreLines = newline === -1
    }

    if (!noMoreLines && newline < close) {
      from = newline + 1
      continue
    }

    found.push({start: open, end: close + 2, expression: template.slice(open + 2, close).trim()})
    from = close + 2
  }
}

export function templateExpressions(template: string): string[] {
  return placeholders(template).map((placeholder) => placeholder.expression)
}

/** Replaces each placeholder with `render(expression)`. */
export function renderTemplate(template: string, render: (expression: string) => string): string {
  let out = ''
  let from = 0
  for (const {start, end, expression} of placeholders(template)) {
    out += template.slice(from, start) + render(expression)
    from = end
  }

  return out + template.slice(from)
}
