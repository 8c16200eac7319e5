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
