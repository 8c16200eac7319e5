/**
 * Markdown that no string from a cluster, a node or a file can reshape. A document is made of `Markdown`
 * values only, and there are two ways to make one: kpx-check's own syntax is the literal part of an `md`
 * template, and every other string enters through a function here that escapes it for its place (a string
 * interpolated into `md` is escaped as prose). What comes out of the report is then plain text in every
 * position: no HTML, no link, no image, no emphasis, no heading, list or code fence that kpx-check did not write
 * (kpx-check's own anchors and links to them have ids of letters, digits and dashes only).
 *
 * The escapes follow CommonMark 0.31 (backslash escapes §2.4, code spans §6.1, fenced code §4.5, links §6.3)
 * and the extensions of GitHub Flavored Markdown (tables, autolinks, strikethrough). Every function makes its
 * value printable first (see printable.ts), so no value brings a line break or a control character.
 */
import {printable, printableLines} from './printable.js'

/** Text that is Markdown already: made here, so a plain string cannot pass for it. */
class Markdown {
  readonly #source: string

  constructor(source: string) {
    this.#source = source
  }

  toString(): string {
    return this.#source
  }
}

export type {Markdown}

/**
 * kpx-check's own Markdown (the template's literal parts) with values in it: strings are escaped as prose.
 * A value that starts a line (after nothing, a `- ` bullet or a `> ` quote) starts no block of its own.
 */
export function md(literals: TemplateStringsArray, ...values: Array<Markdown | number | string>): Markdown {
  let out = literals[0]
  for (const [index, value] of values.entries()) {
    const before = literals[index]
    // The template's own text on this line before the value: from its last line break, or from its start.
    const startsLine = (index === 0 || before.includes('\n')) && LINE_START.test(before.slice(before.lastIndexOf('\n') + 1))
    const text = String(prose(value))
    out += (startsLine ? escapeLineStart(text) : text) + literals[index + 1]
  }

  return new Markdown(out)
}

/** Markdown parts one after another, with kpx-check's own separator between them. */
export function joined(parts: Markdown[], separator: Markdown): Markdown {
  return new Markdown(parts.join(String(separator)))
}

/**
 * A string read as itself in running text (a paragraph, a list item, a heading, a table cell). Every
 * character that GFM acts on inside a line is backslash-escaped (`\` before ASCII punctuation is that
 * character, §2.4); `md` escapes what would start a block where the value starts a line. Words that GitHub
 * would turn into a link, a mention or math even when escaped (`https://`, `www.`, an `@`, a `$`) are set as
 * inline code instead: GitHub autolinks URLs and e-mail addresses in the text left after escapes are undone,
 * and in code it links, mentions and typesets nothing.
 */
export function prose(value: Markdown | number | string): Markdown {
  if (value instanceof Markdown) return value
  const words = printable(String(value)).replace(LEADING_SPACES, '').split(' ')
  return new Markdown(words.map((word) => (LINKABLE.test(word) ? String(code(word)) : word.replaceAll(INLINE, String.raw`\$&`))).join(' '))
}

/**
 * kpx-check's own text (rule remediation, recipes), where a command stands between backticks as in a
 * README: each such command as inline code, the rest as prose. A backtick without its pair, or in a run of
 * several, is prose.
 */
export function proseWithCode(text: string): Markdown {
  const parts = text.split(COMMAND_SPAN)
  if (parts.length === 1) return prose(text)
  return new Markdown(parts.map((part, index) => {
    if (index % 2 === 1) return String(code(part))
    // prose() drops leading blanks, which only matter where a line starts: inside one they part words.
    const blanks = index > 0 ? LEADING_SPACES.exec(part)?.[0] ?? '' : ''
    return blanks + String(prose(part))
  }).join(''))
}

/** A string as inline code: the backtick string around it is longer than any run of backticks in it (§6.1). */
export function code(value: string): Markdown {
  const text = printable(value)
  if (text === '') return new Markdown('` `')
  const fence = '`'.repeat(longestRun(text, '`') + 1)
  // One space on each side is stripped again; it keeps a backtick at either end from joining the fence.
  const padded = /^[ `]|[ `]$/.test(text) ? ` ${text} ` : text
  return new Markdown(`${fence}${padded}${fence}`)
}

/** Lines as a fenced code block: no line can close a fence longer than any run of backticks in them (§4.5). */
export function codeBlock(commands: string[], info: 'sh' | 'text'): Markdown {
  // A command may be several lines (a loop): its own line breaks stay, every other control shows.
  const body = commands.map((command) => printableLines(command))
  const fence = '`'.repeat(Math.max(3, ...body.map((line) => longestRun(line, '`') + 1)))
  return new Markdown([`${fence}${info}`, ...body, fence].join('\n'))
}

/** A table row: a `|` inside a cell, in code too, is escaped, so that it splits no cell (GFM's tables extension). */
export function tableRow(cells: Markdown[]): Markdown {
  return new Markdown(`| ${cells.map((cell) => String(cell).replaceAll('|', String.raw`\|`)).join(' | ')} |`)
}

/** A link to an https page; anything else is only its title, as prose. */
export function link(title: string, url: string): Markdown {
  const target = URL.canParse(url) ? new URL(url) : undefined
  if (target?.protocol !== 'https:') return prose(title)
  // The URL parser percent-encodes blanks, controls and angle brackets: in <…> nothing else ends the destination (§6.3).
  return new Markdown(`[${String(prose(title))}](<${target.href}>)`)
}

/**
 * A place in the document a link can go to, as `<a id>` (GitHub keeps the id, prefixed, and follows links to it):
 * its id made of lowercase letters, digits and dashes only, from any text (`Warnings cluster/x` → `warnings-cluster-x`).
 */
export function anchor(text: string): Markdown {
  return new Markdown(`<a id="${anchorId(text)}"></a>`)
}

/** A link to the anchor made of the same text, in this document. */
export function anchorLink(title: Markdown, text: string): Markdown {
  return new Markdown(`[${String(title)}](#${anchorId(text)})`)
}

function anchorId(text: string): string {
  return text.toLowerCase().replaceAll(/[^a-z\d]+/g, '-').replaceAll(/^-|-$/g, '')
}

/** A command between single backticks, not touching another backtick. */
const COMMAND_SPAN = /(?<!`)`([^`]+)`(?!`)/
/** What GFM acts on inside a line; `|` is left to tableRow, the one place where it acts. */
const INLINE = /[\\`*_[\]<>#!~&]/g
/** What GFM turns into a link or math however it is escaped: a scheme, `www.`, an e-mail address or mention, `$`. */
const LINKABLE = /:\/\/|www\.|@|\$/i
/** What a line holds before a value that starts it: nothing, or the bullets and quotes kpx-check writes. */
const LINE_START = /^(?:- |> )*$/
/** Up to three blanks start a paragraph as none do; four start indented code (§4.4). Blanks show nothing anyway. */
const LEADING_SPACES = /^ +/

/** A bullet (`-`, `+`), a setext underline (`=`) or an ordered list's `1.` or `1)` would start a block (§4.3, §5.2). */
function escapeLineStart(word: string): string {
  if (/^[-+=]/.test(word)) return `\\${word}`
  let digits = 0
  while (digits < word.length && word[digits] >= '0' && word[digits] <= '9') digits++
  const delimiter = word[digits]
  return digits > 0 && (delimiter === '.' || delimiter === ')') ? `${word.slice(0, digits)}\\${word.slice(digits)}` : word
}

function longestRun(text: string, char: string): number {
  let longest = 0
  let run = 0
  for (const each of text) {
    run = each === char ? run + 1 : 0
    longest = Math.max(longest, run)
  }

  return longest
}
