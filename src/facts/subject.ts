import type {FactSet} from './fact-set.js'

/** What a rule is evaluated against, with the facts about it: one node, the cluster, one Service, … */
export interface Subject {
  /** The object's kind, as findings name it: Node, Service, Deployment, PrometheusRule, … or Cluster. */
  kind: string
  /** Namespaced objects only. */
  namespace?: string
  name: string
  /** The subject kind rules name (`subject:` in a rule file) when it is not `kind`: Workload for a Deployment, a StatefulSet, …. */
  family?: string
  facts: FactSet
}
