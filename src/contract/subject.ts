import type {SubjectRef} from './finding.js'

/**
 * A finding's subject as one path: `cluster`, `node/worker-1`, `service/default/web`,
 * `daemonset/kube-system/aws-node`. SARIF logical locations, JUnit test names, waiver patterns and
 * baseline comparison all use this one spelling.
 */
export function subjectPath(subject: SubjectRef): string {
  return subject.kind === 'Cluster' ? 'cluster' : `${subject.kind.toLowerCase()}/${subjectName(subject)}`
}

/** A subject's name as people and kubectl write it: `default/web` for a namespaced object, `worker-1` else. */
export function subjectName(subject: SubjectRef): string {
  return subject.namespace === undefined ? subject.name : `${subject.namespace}/${subject.name}`
}

/** The identity of a finding across runs: its rule and its subject. */
export function findingKey(finding: {rule: string; subject: SubjectRef}): string {
  return `${finding.rule} ${subjectPath(finding.subject)}`
}
