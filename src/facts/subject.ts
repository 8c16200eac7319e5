import type {FactSet} from './fact-set.js'

/** What a rule is evaluated against, with the facts about it: one node, the cluster, one Service, … */
export interface Subject {
  kind: string
  name: string
  facts: FactSet
}
