import type {UnknownReason} from '../contract/finding.js'
import type {ClusterFactPath} from '../facts/catalog.js'
import type {FactSet, UnknownFact} from '../facts/fact-set.js'
import type {KeptObject} from '../sources/cluster/kept-objects.js'
import {objectName, type ResourceName, RESOURCES} from '../sources/cluster/resources.js'
import type {ClusterSnapshot, FailedStatus} from '../sources/cluster/snapshot.js'

/** Why facts read from a resource are unknown, by how its read failed. */
const FAILURE_REASONS: Record<FailedStatus, UnknownReason> = {forbidden: 'permission-denied', unauthorized: 'permission-denied', malformed: 'malformed-response', error: 'failed'}

/** A named object as read: found, absent (a 404, which is a fact), or why it could not be read. */
type NamedRead<R extends ResourceName> = {failure: UnknownFact; object?: undefined} | {failure?: undefined; object?: KeptObject<R>}

/** What a snapshot holds of each resource, and why what it lacks is missing. */
export class SnapshotReads {
  constructor(private readonly snapshot: ClusterSnapshot) {}

  /** Its objects, as the kind the derivers read (kept-objects.ts: every field still to be checked). */
  items<R extends ResourceName>(name: R): Array<KeptObject<R>> {
    const outcome = this.snapshot.resources[name]
    return outcome?.status === 'ok' ? (outcome.items as Array<KeptObject<R>>) : []
  }

  /** Why a resource could not be read, as an unknown reason; undefined when it was. */
  failure(name: ResourceName): undefined | UnknownFact {
    const outcome = this.snapshot.resources[name]
    if (!outcome) return {reason: 'not-collected', detail: `${name} are not in this snapshot`}
    if (outcome.status === 'ok') return undefined
    return {reason: FAILURE_REASONS[outcome.status], detail: outcome.message}
  }

  /**
   * One object of a resource read by name (resources.ts `objects`): only its own failed read makes it
   * unknown, never another object's. An object kpx-check does not read by name is not-collected.
   */
  object<R extends ResourceName>(resource: R, name: string, namespace?: string): NamedRead<R> {
    const wanted = objectName({name, namespace})
    const declared = RESOURCES.find((candidate) => candidate.name === resource)
    if (declared?.kind !== 'get' || !declared.objects.some((object) => objectName(object) === wanted)) {
      return {failure: {reason: 'not-collected', detail: `kpx-check does not read ${resource} ${wanted}`}}
    }

    const outcome = this.snapshot.resources[resource]
    if (outcome?.status !== 'ok') return {failure: this.failure(resource)!}
    const unreadable = outcome.unreadable?.find((object) => objectName(object) === wanted)
    if (unreadable) return {failure: {reason: FAILURE_REASONS[unreadable.status], detail: unreadable.message}}
    return {object: this.items(resource).find((item) => objectName({name: item.metadata?.name ?? '', namespace: item.metadata?.namespace}) === wanted)}
  }

  /** Sets facts from resources, or marks them unknown with the first failed resource's reason. */
  derive(facts: FactSet, needs: ResourceName[], paths: readonly ClusterFactPath[], set: () => void): void {
    const failed = needs.map((name) => this.failure(name)).find(Boolean)
    if (failed) facts.unknownAll(paths, failed.reason, failed.detail)
    else set()
  }
}
