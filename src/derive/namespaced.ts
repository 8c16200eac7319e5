/** What the derivers of namespaced objects (Services, workloads, PrometheusRules) share: the subject, and fact sets shared by objects alike. */
import type {FactValue} from '../contract/finding.js'
import type {ClusterFactPath} from '../facts/catalog.js'
import {FactSet} from '../facts/fact-set.js'
import type {KubeObject} from '../sources/cluster/snapshot.js'

/** An object a rule can be about, with its facts over the cluster's. */
export interface NamespacedSubject {
  namespace: string
  name: string
  facts: FactSet
}

/** The most items an object's list fact holds (a PrometheusRule's alerts): the finding names the object either way. */
export const OBJECTS_LISTED = 100

/**
 * The facts of objects that hold only these values: one fact set for every object of a kind that holds
 * the same (tens of thousands of plain Services, the workloads that ping nothing), which the rules then
 * see as one input.
 */
export class AlikeFacts {
  private readonly byValues = new Map<string, FactSet>()

  constructor(private readonly cluster: FactSet) {}

  of(values: ReadonlyArray<readonly [ClusterFactPath, FactValue]>): FactSet {
    const key = JSON.stringify(values)
    let facts = this.byValues.get(key)
    if (!facts) {
      facts = new FactSet(this.cluster)
      for (const [path, value] of values) facts.set(path, value)
      this.byValues.set(key, facts)
    }

    return facts
  }
}

export function objectRef(object: KubeObject): {name: string; namespace: string} {
  return {namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? ''}
}

/** An object as a rule subject: written out rather than spread from objectRef, which is slower over 30,000 Services. */
export function namespacedSubject(object: KubeObject, facts: FactSet): NamespacedSubject {
  return {namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '', facts}
}
