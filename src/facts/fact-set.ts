import type {FactValue, UnknownReason} from '../contract/finding.js'
import type {FactPath} from './catalog.js'

export interface UnknownFact {
  reason: UnknownReason
  detail: string
}

/**
 * The facts gathered about one subject (a node, the cluster, a Service, …), keyed by the dotted
 * paths of the catalogue (`kernel.version`). A path is either known (a value) or unknown (a reason);
 * a path that is neither was not asked for. Only catalogue paths can be set; any path can be read
 * (rules name theirs as text, which the rule lint checks against the catalogue).
 */
export class FactSet {
  private readonly values = new Map<FactPath, FactValue>()
  private readonly unknowns = new Map<FactPath, UnknownFact>()

  /** A parent holds facts shared by many subjects (the cluster's, under each Service's). */
  constructor(private readonly parent?: FactSet) {}

  set(path: FactPath, value: FactValue): this {
    this.unknowns.delete(path)
    this.values.set(path, value)
    return this
  }

  unknown(path: FactPath, reason: UnknownReason, detail = ''): this {
    this.values.delete(path)
    this.unknowns.set(path, {reason, detail})
    return this
  }

  /** Marks every path unknown with one reason (a section that could not be read feeds several facts). */
  unknownAll(paths: readonly FactPath[], reason: UnknownReason, detail = ''): this {
    for (const path of paths) this.unknown(path, reason, detail)
    return this
  }

  get(path: string): FactValue | undefined {
    return this.values.get(path as FactPath) ?? (this.unknowns.has(path as FactPath) ? undefined : this.parent?.get(path))
  }

  has(path: string): boolean {
    return this.get(path) !== undefined
  }

  /** Why a path has no value; a path never mentioned counts as `not-collected`. */
  whyUnknown(path: string): UnknownFact | undefined {
    if (this.values.has(path as FactPath)) return undefined
    const own = this.unknowns.get(path as FactPath)
    if (own) return own
    if (this.parent) return this.parent.whyUnknown(path)
    return {reason: 'not-collected', detail: `no source reported ${path}`}
  }

  /**
   * The fact set `paths` are answered from: the nearest of this one and its parents that holds any of
   * them. Fact sets that share it answer alike on them (nodes of a pool, under their shared facts).
   */
  holderOf(paths: readonly string[]): FactSet {
    for (const path of paths) if (this.values.has(path as FactPath) || this.unknowns.has(path as FactPath)) return this
    return this.parent?.holderOf(paths) ?? this
  }

  /** The fact set this one falls back on, shared with its siblings. */
  get parentSet(): FactSet | undefined {
    return this.parent
  }

  /** The paths this set answers itself, known or unknown, without its parent's. */
  ownPaths(): FactPath[] {
    return [...this.values.keys(), ...this.unknowns.keys()]
  }

  knownPaths(): FactPath[] {
    const own = [...this.values.keys()]
    if (!this.parent) return own
    return [...new Set([...this.parent.knownPaths().filter((path) => !this.unknowns.has(path)), ...own])]
  }

  unknownEntries(): Array<[FactPath, UnknownFact]> {
    return [...this.unknowns.entries()]
  }
}
