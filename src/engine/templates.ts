/** `{{ expression }}` placeholders in rule messages and remediation steps. */
const PLACEHOLDER = /\{\{\s*(.+?)\s*\}\}/g

export function templateExpressions(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1])
}

/** Replaces each placeholder with `render(expression)`. */
export function renderTemplate(template: string, render: (expression: string) => string): string {
  return template.replaceAll(PLACEHOLDER, (_match, expression: string) => render(expression))
}
