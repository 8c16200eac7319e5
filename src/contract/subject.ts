/**
 * A finding's subject as one path: `cluster`, `node/worker-1`, `service/default/web`,
 * `daemonset/kube-system/aws-node`. SARIF logical locations, JUnit test names, waiver patterns and
 * baseline comparison all use this one spelling.
 */
export function subjectPath(subject: {kind: string; name: string}): string {
  return subject.kind === 'Cluster' ? 'cluster' : `${subject.kind.toLowerCase()}/${subject.name}`
}

/** The identity of a finding across runs: its rule and its subject. */
export function findingKey(finding: {rule: string; subject: {kind: string; name: string}}): string {
  return `${finding.rule} ${subjectPath(finding.subject)}`
}
