/**
 * os-release(5): `KEY=value` lines, values quoted and escaped shell-style, `#` comments and blank
 * lines ignored. Bottlerocket's /etc/bottlerocket-release has the same shape.
 */

export interface OsRelease {
  /** ID, as written (os-release says lower case; openEuler writes `openEuler`). Defaults to `linux`. */
  id: string
  /** ID_LIKE split on whitespace; empty when absent or empty. */
  idLike: string[]
  /** VERSION_ID, when the file has one (rolling releases and Garden Linux do not). */
  versionId?: string
  /** PRETTY_NAME; defaults to `Linux` as os-release(5) says. */
  prettyName: string
  /** NAME; defaults to `Linux`. */
  name: string
  /** Every assignment in the file, unquoted. */
  fields: Map<string, string>
}

/** Parses os-release text; undefined when it holds no `KEY=value` assignment at all. */
export function parseOsRelease(text: string): OsRelease | undefined {
  const fields = parseEnvAssignments(text)
  if (fields.size === 0) return undefined
  const versionId = fields.get('VERSION_ID')
  return {
    id: nonEmpty(fields.get('ID')) ?? 'linux',
    idLike: (fields.get('ID_LIKE') ?? '').split(/\s+/).filter((word) => word !== ''),
    ...(nonEmpty(versionId) === undefined ? {} : {versionId}),
    prettyName: nonEmpty(fields.get('PRETTY_NAME')) ?? 'Linux',
    name: nonEmpty(fields.get('NAME')) ?? 'Linux',
    fields,
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value
}

const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/

/**
 * `KEY=value` assignments in a shell-compatible environment file. Values follow the shell's
 * quoting: `"…"` (where `\` escapes `$ " \` and a backtick), `'…'` (literal), and unquoted text
 * (where `\` escapes any character and whitespace ends the value). Adjacent quoted and unquoted
 * parts join, as in the shell. Lines that are not assignments are ignored; a later assignment
 * of the same key wins.
 */
export function parseEnvAssignments(text: string): Map<string, string> {
  const fields = new Map<string, string>()
  for (const line of text.replaceAll(/\r\n?/g, '\n').split('\n')) {
    if (/^\s*(#|$)/.test(line)) continue
    const match = ASSIGNMENT.exec(line)
    if (!match) continue
    const value = unquoteShellWord(match[2])
    if (value !== undefined) fields.set(match[1], value)
  }

  return fields
}

/** The first shell word of `raw`, unquoted; undefined when a quote is left open. */
function unquoteShellWord(raw: string): string | undefined {
  let value = ''
  let index = 0
  while (index < raw.length) {
    const char = raw[index]
    if (char === '"') {
      const end = readDoubleQuoted(raw, index + 1)
      if (!end) return undefined
      value += end.text
      index = end.next
    } else if (char === "'") {
      const close = raw.indexOf("'", index + 1)
      if (close === -1) return undefined
      value += raw.slice(index + 1, close)
      index = close + 1
    } else if (char === '\\') {
      if (index + 1 < raw.length) value += raw[index + 1]
      index += 2
    } else if (/\s/.test(char)) {
      break
    } else {
      value += char
      index++
    }
  }

  return value
}

function readDoubleQuoted(raw: string, start: number): {text: string; next: number} | undefined {
  let text = ''
  for (let index = start; index < raw.length; index++) {
    const char = raw[index]
    if (char === '"') return {text, next: index + 1}
    if (char === '\\' && index + 1 < raw.length && '$"\\`'.includes(raw[index + 1])) {
      text += raw[index + 1]
      index++
    } else {
      text += char
    }
  }

  return undefined
}
