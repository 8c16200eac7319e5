/**
 * Node facts bundle, format v1: a stable contract shared by the collector, air-gapped workflows
 * and other tools.
 *
 *   # kpx-check node facts v1
 *   ### <section>
 *   <the command's or file's raw output>
 *   ### <next section>
 *   …
 *   ### unavailable
 *   <section> <reason> [detail]
 *   ### end
 *
 * Section names are lower-case words joined by dashes. Unknown sections are ignored. A section
 * that is absent was not collected; the `unavailable` section lists, one per line,
 * `<section> <reason> [detail]` for sections the collector tried and could not read. The last
 * line, `### end`, says the bundle is whole: without it, the bundle was cut short.
 */
import {UNKNOWN_REASONS, type UnknownReason} from '../contract/finding.js'
import type {UnknownFact} from './fact-set.js'

export const BUNDLE_HEADER = '# kpx-check node facts v1'
/** The name of the empty section that ends a whole bundle: `### end`, its last line. */
const END_SECTION = 'end'

export interface Bundle {
  /** Raw text of each section, without its header line and without the trailing newline. */
  sections: Map<string, string>
  /** Sections the collector tried and could not read, with why. */
  unavailable: Map<string, UnknownFact>
  /** Set when the bundle has no end line: where it stops. */
  cut?: BundleCut
}

/** Where a bundle cut short stops: in its last section (none: before the first), in the middle of a line or not. */
interface BundleCut {
  section?: string
  midLine: boolean
}

/** What a cut means, in words: for a node's reason and its facts' unknown detail. */
export function describeCut(cut: BundleCut): string {
  let where = 'before its first section'
  if (cut.section !== undefined) where = cut.midLine ? `in the middle of a line of section "${cut.section}"` : `after section "${cut.section}", which may be cut too`
  return `the bundle was cut short: it ends ${where}, with no "### ${END_SECTION}" line`
}

export class BundleError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message)
  }
}

const SECTION_LINE = /^### ([a-z0-9][a-z0-9-]*)\s*$/

/**
 * Reads a bundle in one pass over its text: it jumps from section header to section header, and the
 * bodies are slices of the text, never arrays of lines, so a bundle costs about its length to read.
 */
export function parseBundle(input: string): Bundle {
  const text = input.includes('\r\n') ? input.replaceAll('\r\n', '\n') : input
  const lineOf = (position: number) => text.slice(0, position).split('\n').length
  const headerEnd = firstLineEnd(text)
  const sections = new Map<string, string>()
  let at = headerAt(text, Math.min(headerEnd + 1, text.length))
  const preamble = text.slice(headerEnd + 1, at === -1 ? text.length : at)
  if (preamble.trim() !== '') throw new BundleError('text before the first "### <section>" line', lineOf(headerEnd + 1 + preamble.search(/\S/)))
  let last: string | undefined
  while (at !== -1) {
    const newline = text.indexOf('\n', at)
    const end = newline === -1 ? text.length : newline
    const line = text.slice(at, end)
    const match = SECTION_LINE.exec(line)
    if (!match) throw new BundleError(`malformed section header "${truncate(line)}"`, lineOf(at))
    if (match[1] === END_SECTION) {
      const after = text.slice(end).search(/\S/)
      if (after !== -1) throw new BundleError(`text after the "### ${END_SECTION}" line that ends the bundle`, lineOf(end + after))
      return {sections, unavailable: parseUnavailable(sections.get('unavailable') ?? '')}
    }

    if (sections.has(match[1])) throw new BundleError(`section "${match[1]}" appears twice`, lineOf(at))
    const next = newline === -1 ? -1 : headerAt(text, newline + 1)
    sections.set(match[1], newline === -1 ? '' : trimTrailingNewlines(text.slice(newline + 1, next === -1 ? text.length : next - 1)))
    last = match[1]
    at = next
  }

  return {sections, unavailable: parseUnavailable(sections.get('unavailable') ?? ''), cut: {section: last, midLine: !text.endsWith('\n')}}
}

/** Where the bundle's first line, which must be the bundle header, ends (blank lines before it are allowed). */
function firstLineEnd(text: string): number {
  const start = text.search(/\S/)
  if (start === -1) throw new BundleError('the bundle is empty', 1)
  const newline = text.indexOf('\n', start)
  const end = newline === -1 ? text.length : newline
  const line = text.slice(text.lastIndexOf('\n', start) + 1, end).trim()
  if (line !== BUNDLE_HEADER) throw new BundleError(`expected the first line to be "${BUNDLE_HEADER}", found "${truncate(line)}"`, text.slice(0, start).split('\n').length)
  return end
}

/** The start of the first line at or after `from` (a line start) that begins with "### "; -1 when none does. */
function headerAt(text: string, from: number): number {
  if (text.startsWith('### ', from)) return from
  const found = text.indexOf('\n### ', from)
  return found === -1 ? -1 : found + 1
}

function parseUnavailable(text: string): Map<string, UnknownFact> {
  const unavailable = new Map<string, UnknownFact>()
  for (const line of text.split('\n')) {
    const [section, reason, ...detail] = line.trim().split(/\s+/)
    if (!section || !reason) continue
    const known = (UNKNOWN_REASONS as readonly string[]).includes(reason)
    unavailable.set(section, {
      reason: known ? (reason as UnknownReason) : 'failed',
      detail: known ? detail.join(' ') : [reason, ...detail].join(' '),
    })
  }

  return unavailable
}

/** The text without its trailing newlines; a loop, since /\n+$/ backtracks over every run of newlines. */
function trimTrailingNewlines(text: string): string {
  let end = text.length
  while (end > 0 && text[end - 1] === '\n') end--
  return text.slice(0, end)
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}
