// How the long reports (text --details, Markdown) say each cause of one rule once: findings that say the same
// thing share one line naming their objects, and the sentences all of a rule's lines end with are said once.
import type {GatedFinding, SubjectRef} from '../contract/finding.js'
import {waiverNote} from './finding-notes.js'

/** Findings of one rule that say the same thing: the first of them, the objects of them all, and what to show of its message. */
export interface SameFindings {
  finding: GatedFinding
  subjects: SubjectRef[]
  /** The message, or its first sentences where the rest is said once for the rule's lines shown (sharedEnding). */
  said: string
}

/**
 * A rule's findings, those that say the same thing (message, reason, waiver, new since the baseline) together,
 * in the order they come; compared as they are in the report. Of the first `shown` lines, the sentences every
 * one of them ends with are left out of all lines but the first, which says them once.
 */
export function sameFindings(findings: readonly GatedFinding[], shown: number): SameFindings[] {
  const rows = new Map<string, SameFindings>()
  for (const finding of findings) {
    const said = JSON.stringify([finding.message, finding.reason, finding.waiver && waiverNote(finding.waiver), finding.baseline === 'new'])
    const row = rows.get(said)
    if (row) row.subjects.push(finding.subject)
    else rows.set(said, {finding, subjects: [finding.subject], said: finding.message})
  }

  const lines = [...rows.values()]
  const heads = withoutSharedEnding(lines.slice(0, shown).map((line) => line.said))
  for (const [index, head] of heads.entries()) if (index > 0) lines[index].said = head
  return lines
}

/** How many objects the lines past the first `shown` name: the report says "and N more" for them. */
export function objectsPast(lines: readonly SameFindings[], shown: number): number {
  return lines.slice(shown).reduce((count, line) => count + line.subjects.length, 0)
}

/**
 * Messages without the whole sentences they all end with (`1 ping of … (Service a). In IPVS mode kube-ipvs0
 * answers them; …`): each keeps at least its first sentence. Messages of one line only (command output is
 * left whole); fewer than two distinct messages share nothing.
 */
function withoutSharedEnding(messages: string[]): string[] {
  if (new Set(messages).size < 2 || messages.some((message) => message.includes('\n'))) return messages
  const sentences = messages.map((message) => message.split(SENTENCE_BREAK))
  let shared = 0
  while (sentences.every((each) => each.length > shared + 1 && each.at(-1 - shared) === sentences[0].at(-1 - shared))) shared++
  return shared === 0 ? messages : sentences.map((each) => each.slice(0, -shared).join(' '))
}

/** A full stop, a blank, and a capital: where kpx-check's messages start a new sentence (`e.g. a`, `1.33 and` do not). */
const SENTENCE_BREAK = /(?<=\.) (?=[A-Z])/
