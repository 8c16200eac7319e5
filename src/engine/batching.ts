/**
 * Evaluating subjects alike once. A rule reads only the facts it declares (rules lint enforces it),
 * so subjects whose declared facts are equal get the same finding: 5,000 nodes of a few pools are a
 * few evaluations per rule, not 5,000. The equivalence with evaluating each subject alone is tested
 * over every fixture and the corpus (test/engine/batching.test.ts).
 */
import type {Finding, UnknownReason} from '../contract/finding.js'
import type {FactSet} from '../facts/fact-set.js'
import type {Subject} from '../facts/subject.js'
import type {LoadedRule} from './rule-lint.js'
import {skipStageReads} from './run-rule.js'

/** Subjects (by their index among the rule's subjects) whose inputs are equal, and their finding. */
export interface Group {
  finding: Finding
  members: readonly number[]
}

/** A group as its batches join it: most groups are one batch (5,000 nodes alike), whose members are not copied. */
interface Joining {
  finding: Finding
  batches: Array<readonly number[]>
}

/** A rule's two stages on one subject, run when a group needs its finding. */
interface StagedRun {
  skipStage(): Finding | undefined
  decide(): Finding
}

/**
 * Subjects (by index) over one parent fact set that hold the same paths themselves: the nodes of a
 * pool, each holding its name over the pool's facts. A rule that reads none of `own` has equal
 * inputs on all of them; one that reads some still has on those that share one fact set (`bySet`:
 * the plain Services, thousands over a few sets).
 */
interface Siblings {
  own: ReadonlySet<string>
  members: number[]
  /** The members by fact set, each in index order, in the order of their first members. */
  bySet: number[][]
}

/** The groups of each rule over subjects, with what is worked out once for all the rules of a run. */
export class Batching {
  private readonly inputKeys = new InputKeys()
  private readonly siblingsOf = new WeakMap<readonly Subject[], Siblings[]>()
  /** Each kind's batches, by which of its sibling sets a rule reads apart (most rules of a kind read the same). */
  private readonly batchesOf = new WeakMap<readonly Siblings[], Map<string, Array<readonly number[]>>>()

  /**
   * The rule's groups over `subjects`, in the order of their first members. With `shareSkips`,
   * subjects alike in what the skip stage reads share its skip, however else they differ: 30,000
   * Services skip an IPVS rule on one look at the cluster's mode.
   */
  groups(rule: LoadedRule, subjects: readonly Subject[], run: (subject: Subject) => StagedRun, shareSkips: boolean): Group[] {
    const declared = [...rule.needs, ...(rule.uses ?? [])]
    let siblings = this.siblingsOf.get(subjects)
    if (!siblings) this.siblingsOf.set(subjects, (siblings = siblingSets(subjects)))
    const groups = new Map<string, Joining>()
    const skipReads = shareSkips ? skipStageReads(rule) : undefined
    const skipStages = new Map<string, Finding | null>()
    for (const members of this.batchesFor(siblings, declared)) {
      const subject = subjects[members[0]]
      if (skipReads) {
        const skipKey = this.inputKeys.of(subject.facts, skipReads)
        let ended = skipStages.get(skipKey)
        if (ended === undefined) skipStages.set(skipKey, (ended = run(subject).skipStage() ?? null))
        if (ended) {
          joinGroup(groups, `\u0002${skipKey}`, members, () => ended)
          continue
        }
      }

      joinGroup(groups, this.inputKeys.of(subject.facts, declared), members, () => {
        const staged = run(subject)
        return staged.skipStage() ?? staged.decide()
      })
    }

    return Array.from(groups.values(), ({finding, batches}) => ({finding, members: batches.length === 1 ? batches[0] : batches.flat()}))
  }

  /**
   * The subjects a rule is worked out for together: siblings whole where the rule reads none of the
   * paths they hold themselves, else by fact set; in the order of their first subjects, so that the
   * groups come in that order too and each group's first member is its first subject.
   */
  private batchesFor(siblings: readonly Siblings[], declared: readonly string[]): Array<readonly number[]> {
    const apart = siblings.map(({own}) => declared.some((path) => own.has(path)))
    let byPattern = this.batchesOf.get(siblings)
    if (!byPattern) this.batchesOf.set(siblings, (byPattern = new Map()))
    const pattern = apart.map((reads) => (reads ? '1' : '0')).join('')
    let batches = byPattern.get(pattern)
    if (!batches) {
      batches = siblings.flatMap(({members, bySet}, index) => (apart[index] ? bySet : [members])).toSorted((a, b) => a[0] - b[0])
      byPattern.set(pattern, batches)
    }

    return batches
  }
}

function siblingSets(subjects: readonly Subject[]): Siblings[] {
  const byParent = new Map<FactSet | undefined, Map<string, Siblings>>()
  // Each fact set's siblings and its own members: its paths are looked at once, however many subjects share it.
  const ofSet = new Map<FactSet, {siblings: Siblings; members: number[]}>()
  // Not entries(): in code that runs once, cold, its pair for each of 35,000 subjects took 3 times as long.
  // eslint-disable-next-line unicorn/no-for-loop -- the index is what is kept
  for (let index = 0; index < subjects.length; index++) {
    const {facts} = subjects[index]
    let set = ofSet.get(facts)
    if (!set) {
      const own = facts.ownPaths().toSorted()
      let byOwn = byParent.get(facts.parentSet)
      if (!byOwn) byParent.set(facts.parentSet, (byOwn = new Map()))
      const signature = own.join('\u0000')
      let siblings = byOwn.get(signature)
      if (!siblings) byOwn.set(signature, (siblings = {own: new Set(own), members: [], bySet: []}))
      ofSet.set(facts, (set = {siblings, members: []}))
      siblings.bySet.push(set.members)
    }

    set.siblings.members.push(index)
    set.members.push(index)
  }

  return [...byParent.values()].flatMap((byOwn) => [...byOwn.values()])
}

/** Puts a batch in the group of its key, evaluating the group's finding when it is the first. */
function joinGroup(groups: Map<string, Joining>, key: string, batch: readonly number[], evaluate: () => Finding): void {
  const group = groups.get(key)
  if (group) group.batches.push(batch)
  else groups.set(key, {finding: evaluate(), batches: [batch]})
}

/**
 * A rule's inputs as one string, to find the subjects whose inputs are equal. Why-unknowns become
 * short tokens (no JSON starts with ?): their details are sentences, which thousands of keys would
 * each carry and hash.
 */
class InputKeys {
  private readonly unknowns = new Map<string, Map<UnknownReason, string>>()
  private tokens = 0
  /** Keys made, by the fact set that holds the paths and by the paths (a rule's own list). */
  private readonly made = new WeakMap<FactSet, Map<readonly string[], string>>()

  of(facts: FactSet, paths: readonly string[]): string {
    const holder = facts.holderOf(paths)
    let byPaths = this.made.get(holder)
    if (!byPaths) this.made.set(holder, (byPaths = new Map()))
    let key = byPaths.get(paths)
    if (key === undefined) {
      key = ''
      for (const path of paths) key += `${this.input(holder, path)}\u0001`
      byPaths.set(paths, key)
    }

    return key
  }

  private input(facts: FactSet, path: string): string {
    const value = facts.get(path)
    if (value !== undefined) return JSON.stringify(value)
    const {reason, detail} = facts.whyUnknown(path)!
    let byReason = this.unknowns.get(detail)
    if (!byReason) this.unknowns.set(detail, (byReason = new Map()))
    let token = byReason.get(reason)
    if (token === undefined) byReason.set(reason, (token = `?${++this.tokens}`))
    return token
  }
}
