/** The engine's results as a report lists them, for tests that read findings rather than build a report. */
import type {Finding, UnknownReason} from '../../src/contract/finding.js'
import type {Evaluation} from '../../src/engine/evaluate.js'
import {foldGroups} from '../../src/planner/fold.js'

/** The findings a report starts from: each subject's own, and the grouped kinds' listed and summed up (planner/fold.ts). */
export function reported(evaluation: Evaluation, foldUnknown?: ReadonlySet<UnknownReason>): Finding[] {
  const {listed, folded} = foldGroups(evaluation.grouped, foldUnknown)
  return [...evaluation.findings, ...listed, ...folded]
}
