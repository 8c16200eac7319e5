import type {Severity} from '../contract/finding.js'
import type {GatePolicy} from '../planner/verdict.js'
import type {GateFiles} from './gate-files.js'

/** What both checks take besides their sources: the rules, how to gate, and the gate's files. */
export interface CheckOptions {
  /** Extra rule files or folders (--rules). */
  rulePaths: string[]
  skip: string[]
  severity: Map<string, Severity>
  policy: GatePolicy
  gateFiles?: GateFiles
}

/** The subject kind every report gives a verdict and checks of its own (`nodes[]`), in node and cluster runs alike. */
export const PER_NODE: ReadonlySet<string> = new Set(['Node'])
