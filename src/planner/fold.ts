/**
 * Grouped results in a report: a rule's failures and unknowns on thousands of Services or nodes listed
 * one by one, and its passes and skips summed up in one finding about the cluster (with a count and
 * an example), as are the unknowns every subject has for one reason (a node rule over the API alone).
 */
import {type Finding, type GroupedResults, type Status, type SubjectRef, toldOf, type UnknownReason} from '../contract/finding.js'
import {subjectName} from '../contract/subject.js'

type Group = GroupedResults['groups'][number]

/**
 * Findings of every grouped result: `listed`, rule by rule, each rule's failures and unknowns and its
 * sum of passes and skips; `folded`, the unknowns of the `foldUnknown` reasons summed up.
 */
export function foldGroups(results: readonly GroupedResults[], foldUnknown: ReadonlySet<UnknownReason> = new Set()): {listed: Finding[]; folded: Finding[]} {
  const listed: Finding[] = []
  const folded: Finding[] = []
  for (const result of results) {
    const fold = foldResult(result, foldUnknown)
    listed.push(...fold.listed)
    folded.push(...fold.folded)
  }

  return {listed, folded}
}

const CLUSTER: SubjectRef = {kind: 'Cluster', name: 'cluster'}

function foldResult({rule, kind, subjects, groups}: GroupedResults, foldUnknown: ReadonlySet<UnknownReason>): {listed: Finding[]; folded: Finding[]} {
  const [fine, unknown, problems]: Group[][] = [[], [], []]
  for (const group of groups) {
    const {status, reason} = group.finding
    if (status === 'pass' || status === 'skip') fine.push(group)
    else if (status === 'unknown' && foldUnknown.has(reason as UnknownReason)) unknown.push(group)
    else problems.push(group)
  }

  const listed = problems
    .flatMap(({finding, members}) => members.map((index) => ({finding, index})))
    .toSorted((a, b) => a.index - b.index)
    .map(({finding, index}) => toldOf(finding, subjects[index]))
  const count = (some: Group[]) => some.reduce((total, group) => total + group.members.length, 0)
  // Groups come in the order of their first subjects: the first group holds the first subject.
  const earliest = (some: Group[]) => ({finding: some[0].finding, subject: subjects[some[0].members[0]]})

  const folded: Finding[] = []
  if (unknown.length > 0) {
    const example = earliest(unknown)
    folded.push({...example.finding, subject: CLUSTER, message: `${count(unknown)} ${kind.toLowerCase()}(s), e.g. ${subjectName(example.subject)}: ${example.finding.message}`, evidence: {}})
  }

  if (fine.length === 0 && (listed.length > 0 || folded.length > 0)) return {listed, folded}
  const status: Status = fine.some(({finding}) => finding.status === 'pass') ? 'pass' : 'skip'
  const apart = listed.length + count(unknown)
  let message = `No ${kind} in the cluster is concerned.`
  if (fine.length > 0) {
    const example = earliest(fine)
    message = `${count(fine)} ${kind}(s) ${status === 'pass' ? 'pass' : 'do not apply'}${apart > 0 ? ` (${apart} reported apart)` : ''}; for example ${subjectName(example.subject)}: ${example.finding.message}`
  }

  const summary: Finding = {
    rule: rule.rule,
    title: rule.title,
    status,
    severity: rule.severity,
    confidence: rule.confidence,
    subject: CLUSTER,
    message,
    evidence: {},
    remediation: [],
    references: rule.references,
    ...(status === 'skip' ? {reason: 'not-applicable'} : {}),
  }
  return {listed: [...listed, summary], folded}
}

