/**
 * Node facts bundle, format v1: a stable contract shared by the collector, air-gapped workflows
 * and other tools.
 *
 *   # kpx-check node facts v1
 *   ### <section>
 *   <the command's or file's raw output>
 *   ### <next section>
 *   …
 *
 * Section names are lower-case words joined by dashes. Unknown sections are ignored. A section
 * that is absent was not collected; the `unavailable` section lists, one per line,
 * `<section> <reason> [detail]` for sections the collector tried and could not read.
 */
import {UNKNOWN_REASONS, type UnknownReason} from '../contract/finding.js'
import type {UnknownFact} from './fact-set.js'

export const BUNDLE_HEADER = '# kpx-check node facts v1'

export interface Bundle {
  /** Raw text of each section, without its header line and without the trailing newline. */
  sections: Map<string, string>
  /** Sections the collector tried and could not read, with why. */
  unavailable: Map<string, UnknownFact>
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

export function parseBundle(text: string): Bundle {
  const lines = text.replaceAll('\r\n', '\n').split('\n')
  const first = lines.findIndex((line) => line.trim() !== '')
  if (first === -1) throw new BundleError('the bundle is empty', 1)
  if (lines[first].trim() !== BUNDLE_HEADER) {
    throw new BundleError(
      `expected the first line to be "${BUNDLE_HEADER}", found "${truncate(lines[first].trim())}"`,
      first + 1,
    )
  }

  const sections = new Map<string, string>()
  let current: string | undefined
  let body: string[] = []
  const flush = () => {
    if (current !== undefined) sections.set(current, trimTrailingNewlines(body.join('\n')))
  }

  for (let index = first + 1; index < lines.length; index++) {
    const line = lines[index]
    if (line.startsWith('### ')) {
      const match = SECTION_LINE.exec(line)
      if (!match) throw new BundleError(`malformed section header "${truncate(line)}"`, index + 1)
      if (sections.has(match[1]) || current === match[1]) {
        throw new BundleError(`section "${match[1]}" appears twice`, index + 1)
      }
      flush()
      current = match[1]
      body = []
    } else if (current === undefined) {
      if (line.trim() !== '') throw new BundleError('text before the first "### <section>" line', index + 1)
    } else {
      body.push(line)
    }
  }

  flush()
  return {sections, unavailable: parseUnavailable(sections.get('unavailable') ?? '')}
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
