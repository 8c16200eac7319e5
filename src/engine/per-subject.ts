/**
 * Each subject's own finding per rule, for the kinds that get a verdict of their own (nodes), made
 * from the groups batching found: subjects whose findings agree on every rule share one map.
 */
import type {SharedFindings} from '../contract/finding.js'
import {subjectPath} from '../contract/subject.js'
import type {Subject} from '../facts/subject.js'
import type {Group} from './batching.js'

export class PerSubjectFindings {
  /** By kind (its subjects, in the order every rule of the kind sees them): each rule's findings, and which of them each subject has. */
  private readonly kinds = new Map<readonly Subject[], Array<{rule: string; findings: Group['finding'][]; findingOf: Uint32Array}>>()

  add(rule: string, subjects: readonly Subject[], groups: Iterable<Group>): void {
    let rules = this.kinds.get(subjects)
    if (!rules) this.kinds.set(subjects, (rules = []))
    const findings: Group['finding'][] = []
    const findingOf = new Uint32Array(subjects.length)
    for (const {finding, members} of groups) {
      for (const index of members) findingOf[index] = findings.length
      findings.push(finding)
    }

    rules.push({rule, findings, findingOf})
  }

  /** By subject path (`node/worker-1`). */
  bySubject(): Map<string, SharedFindings> {
    const bySubject = new Map<string, SharedFindings>()
    for (const [subjects, rules] of this.kinds) {
      // A subject's class: which finding it has of each rule so far, as one number. Equal classes, equal maps.
      const classOf = new Uint32Array(subjects.length)
      for (const {findings, findingOf} of rules) {
        // A rule all the subjects share one finding of tells none apart: their classes stay as they are.
        if (findings.length === 1) continue
        const classes = new Map<number, number>()
        for (let index = 0; index < subjects.length; index++) {
          const pair = classOf[index] * findings.length + findingOf[index]
          let id = classes.get(pair)
          if (id === undefined) classes.set(pair, (id = classes.size))
          classOf[index] = id
        }
      }

      const maps: SharedFindings[] = []
      // Not entries(), whose pair for each subject takes 3 times as long in code that runs once, cold.
      // eslint-disable-next-line unicorn/no-for-loop -- the index is what is read
      for (let index = 0; index < subjects.length; index++) {
        const subject = subjects[index]
        let map = maps[classOf[index]]
        if (!map) maps[classOf[index]] = map = new Map(rules.map(({rule, findings, findingOf}) => [rule, findings[findingOf[index]]])) as unknown as SharedFindings
        bySubject.set(subjectPath(subject), map)
      }
    }

    return bySubject
  }
}
