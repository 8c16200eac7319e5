import type {GatedFinding} from '../contract/finding.js'
import type {NodeReport, PlanStep, PlanSubject} from '../contract/report.js'
import type {NamespacedName} from '../derive/components.js'
import type {KubeProxyConfig} from '../derive/kube-proxy-config.js'
import type {PlanInput} from './plan-input.js'

/**
 * What decides whether the switch can be undone, before it is made: a rollback target in each node's kernel,
 * an old image that deletes the nftables tables, a configuration the old version accepts, iptables' tables
 * free of other tools' native rules.
 */
const ROLLBACK_READINESS_RULES = ['node/rollback-target', 'cluster/rollback-cleanup', 'cluster/rollback-config', 'node/native-nft-rules'] as const

/** Names kubectl takes as they are (DNS-1123 subdomains): a cluster value enters a command only when it is one. */
const KUBERNETES_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/

/** Subjects named in an action, at most; the rest are counted. */
const NAMED = 5

/**
 * The plan's rollback-readiness section, a step before anything changes: how each readiness check came out,
 * and the state to keep, which a verification after the switch or after a rollback compares with.
 */
export function rollbackReadinessStep(input: PlanInput): PlanStep {
  const byRule = new Map<string, GatedFinding[]>(ROLLBACK_READINESS_RULES.map((rule) => [rule, []]))
  for (const finding of input.findings) byRule.get(finding.rule)?.push(finding)

  const open = [...byRule].filter(([, findings]) => findings.some((finding) => finding.status === 'fail' || finding.status === 'unknown'))
  const subjects: PlanSubject[] = []
  for (const [, findings] of open) {
    for (const finding of findings) {
      if (finding.status !== 'pass' && !subjects.some((subject) => subject.kind === finding.subject.kind && subject.name === finding.subject.name)) subjects.push({kind: finding.subject.kind, name: finding.subject.name})
    }
  }

  const cluster = input.cluster !== undefined
  return {
    id: 'prerequisites/rollback-readiness',
    phase: 'prerequisites',
    title: 'Rollback readiness: check the way back, and keep the state before the switch',
    why:
      'A rollback starts kube-proxy in iptables or IPVS mode again: it works where the kernel can still run that mode, the image it starts deletes ' +
      "the nftables tables, the configuration is one that version accepts, and iptables can read its own tables. The state kept here is what the checks after the switch, and after a rollback, compare with.",
    rules: open.map(([rule]) => rule),
    subjects: subjects.length > 0 ? subjects : [{kind: cluster ? 'Cluster' : 'Node', name: cluster ? 'cluster' : 'all'}],
    actions: [
      ...[...byRule].map(([rule, findings]) => outcome(rule, findings, input.nodes, cluster)),
      'Keep, before the switch: this report; on every node a facts bundle (nft list tables, KUBE- rule counts per iptables backend, the IPVS virtual servers with ' +
        "other components' ones, the sysctls); kube-proxy's configuration and image (with its digest).",
    ],
    commands: [
      `kpx-check ${cluster ? 'cluster' : 'node'} --json > pre-switch-report.json`,
      'kpx-check collect > kpx-collect.sh',
      '# On every node, as root: sh kpx-collect.sh > "pre-switch-$(hostname).facts"',
      ...(cluster ? kubeProxyBackups(input.cluster!.kubeProxy) : []),
    ],
    verify: ['pre-switch-report.json and one pre-switch-<node>.facts per node exist, and each bundle ends with its "### end" line.'],
    undo: [],
  }
}

/**
 * `node/rollback-target: fails on 2 (a, b); passes on 3 (…)`, `cluster/rollback-config: passes`, or that it was not
 * evaluated. A node check is counted on the nodes themselves: a cluster run sums nodes alike up in one finding on the cluster.
 */
function outcome(rule: string, findings: readonly GatedFinding[], nodes: readonly NodeReport[], cluster: boolean): string {
  if (findings.length === 0) return `${rule}: not evaluated in this run${!cluster && rule.startsWith('cluster/') ? ' (kpx-check cluster checks it)' : ''}.`
  const checkedNodes = nodes.filter((node) => node.checks[rule] !== undefined)
  const results =
    checkedNodes.length > 0
      ? checkedNodes.map((node) => ({name: node.name, status: node.checks[rule].status}))
      : findings.map((finding) => ({name: finding.subject.kind === 'Cluster' ? undefined : finding.subject.name, status: finding.status}))
  const parts: string[] = []
  for (const [status, said] of [
    ['fail', 'fails'],
    ['unknown', 'could not be checked'],
    ['pass', 'passes'],
  ] as const) {
    const matching = results.filter((result) => result.status === status)
    if (matching.length === 0) continue
    const names = matching.flatMap((result) => (result.name === undefined ? [] : [result.name]))
    parts.push(names.length === 0 ? said : `${said} on ${names.length} (${names.slice(0, NAMED).join(', ')}${names.length > NAMED ? ', …' : ''})`)
  }

  return `${rule}: ${parts.length > 0 ? parts.join('; ') : 'skipped'}.`
}

/** kubectl commands that save kube-proxy's DaemonSet and ConfigMap, where their names can go into a command as they are. */
function kubeProxyBackups(kubeProxy: KubeProxyConfig): string[] {
  const saved: Array<[string, NamespacedName | null]> = [
    ['daemonset', kubeProxy.daemonSet],
    ['configmap', kubeProxy.configMap],
  ]
  return saved.flatMap(([kind, object]) =>
    object && KUBERNETES_NAME.test(object.namespace) && KUBERNETES_NAME.test(object.name) ? [`kubectl -n ${object.namespace} get ${kind} ${object.name} -o yaml > pre-switch-${kind}-${object.name}.yaml`] : [],
  )
}
