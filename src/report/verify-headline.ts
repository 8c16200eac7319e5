/** How a `kpx-check verify` report opens, in every format: the outcome in a word, a sentence, and the nodes per state. */
import type {Report, VerifySummary} from '../contract/report.js'
import {someNames} from '../util/names.js'

interface VerifyHeadline {
  /** VERIFIED, FAILED, NOT SWITCHED or UNKNOWN: the worst state that decides the exit code. */
  word: string
  sentence: string
  /** `2 verified · 1 failed · 0 not switched · 0 unknown`, and with --baseline the nodes gone and new since it. */
  counts: string
}

export function verifyHeadline(report: Report, verify: VerifySummary): VerifyHeadline {
  const {states} = verify
  const mode = verify.expectedModes.join(' or ')
  const counts = `${states.verified} verified · ${states.failed} failed · ${states['not-switched']} not switched · ${states.unknown} unknown${sinceBaseline(verify)}`
  const nodes = report.nodes.length
  if (nodes === 0) return {word: 'UNKNOWN', sentence: 'No node was verified: none is in scope.', counts}
  if (states.failed > 0) {
    return {word: 'FAILED', sentence: `${states.failed} of ${nodes} node(s) failed a check in ${mode} mode: see what failed, and roll those nodes back if their Services are down.`, counts}
  }

  if (states['not-switched'] > 0 && !verify.allowNotSwitched) {
    return {word: 'NOT SWITCHED', sentence: `${states['not-switched']} of ${nodes} node(s) still run the mode they were to leave.`, counts}
  }

  if (states.unknown > 0) return {word: 'UNKNOWN', sentence: `${states.unknown} of ${nodes} node(s) could not be verified: see why.`, counts}
  return {
    word: 'VERIFIED',
    sentence: verify.direction === 'rollback' ? `Every node in scope runs ${mode} mode again, cleanly.` : `Every node in scope runs ${mode} mode and passes every check.`,
    counts,
  }
}

/** The nodes that came and went since the baseline report: a node gone is said here, since no check can be about it. */
function sinceBaseline({baseline}: VerifySummary): string {
  if (!baseline) return ''
  const gone = baseline.goneNodes === undefined ? '' : `${baseline.goneNodes.length} node(s) gone${baseline.goneNodes.length > 0 ? ` (${someNames(baseline.goneNodes)})` : ''}, `
  return ` · since the baseline: ${gone}${baseline.newNodes.length} new${baseline.newNodes.length > 0 ? ` (${someNames(baseline.newNodes)})` : ''}`
}
