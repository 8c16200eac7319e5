/**
 * `kpx-check verify --baseline REPORT`: what a pre-switch report saw of a node, as `baseline.*` facts of the
 * node now. The comparisons are rules like the others (rules/verify/baseline-*.yaml, with fixtures): they read
 * these facts beside the node's own, so a loss fails a check with both sides in its evidence, and a fact the
 * report does not record makes its comparison unknown, with which fact and why, never a pass.
 *
 * A report records a node's facts only as its findings' evidence: a node run's findings all have theirs; a
 * cluster run sums up the passes of a node rule in one finding about the cluster, so there only the failed and
 * unknown checks of each node keep their evidence (the report's `nodes[].checks` still give every status).
 */
import type {FactValue} from '../contract/finding.js'
import type {FactPath} from '../facts/catalog.js'
import type {FactSet} from '../facts/fact-set.js'

/** One node as a report has it: each check's result, and the facts its findings showed. */
export interface BaselineNode {
  /** By rule id: the check's status and message. */
  checks: Readonly<Record<string, {message: string; status: string}>>
  /** The facts the findings about the node show, by fact path (`ipvs.virtualServers`). */
  evidence: Readonly<Record<string, FactValue>>
}

/** The facts a comparison takes from the report, by the node rule whose evidence holds them. */
const RECORDED: ReadonlyArray<{rule: string; facts: ReadonlyArray<[from: string, to: FactPath, type: 'int' | 'list']>}> = [
  {
    rule: 'node/iptables-backend-mix',
    facts: [
      ['iptables.legacyRules', 'baseline.legacyRules', 'int'],
      ['iptables.legacyKubeRules', 'baseline.legacyKubeRules', 'int'],
      ['iptables.nftRules', 'baseline.nftRules', 'int'],
      ['iptables.nftKubeRules', 'baseline.nftKubeRules', 'int'],
    ],
  },
  {
    rule: 'node/nodeport-addresses',
    facts: [
      ['addresses.ipv4Global', 'baseline.ipv4Global', 'list'],
      ['addresses.ipv6Global', 'baseline.ipv6Global', 'list'],
    ],
  },
]

const IPVS_RULE = 'node/ipvs-other-users'

/** Sets the `baseline.*` facts of a node from the report's record of it (none: the node is new since the report). */
export function setBaselineFacts(facts: FactSet, record: BaselineNode | undefined): void {
  facts.set('baseline.node', record !== undefined)
  if (!record) return
  for (const {rule, facts: paths} of RECORDED) {
    for (const [from, to, type] of paths) {
      const value = record.evidence[from]
      if (type === 'int' ? Number.isSafeInteger(value) : isStringList(value)) facts.set(to, value!)
      else facts.unknown(to, 'not-collected', notRecorded(record, rule, from))
    }
  }

  setIpvsUsers(facts, record)
}

/**
 * Who used IPVS on the node besides kube-proxy, as node/ipvs-other-users judged it then: it passes when nothing
 * else did (or there was no virtual server) and fails naming them. Only a failure's evidence says who; a pass
 * needs none, so a cluster report, which keeps no evidence of passes, still records it.
 */
function setIpvsUsers(facts: FactSet, record: BaselineNode): void {
  const check = record.checks[IPVS_RULE]
  const servers = record.evidence['ipvs.virtualServers']
  if (Number.isSafeInteger(servers)) facts.set('baseline.ipvsVirtualServers', servers as number)
  else facts.unknown('baseline.ipvsVirtualServers', 'not-collected', notRecorded(record, IPVS_RULE, 'ipvs.virtualServers'))

  if (check?.status === 'pass') {
    facts.set('baseline.ipvsUsers', [])
  } else if (check?.status === 'fail' && Number.isSafeInteger(servers)) {
    facts.set('baseline.ipvsUsers', servers === 0 ? [] : ipvsUsersOf(record.evidence))
  } else {
    facts.unknown('baseline.ipvsUsers', 'not-collected', notRecorded(record, IPVS_RULE, 'ipvs.virtualServers'))
  }
}

/** The other IPVS users a failed node/ipvs-other-users names: kube-vip or lvscare, keepalived, else another component beside kube-proxy's mode. */
function ipvsUsersOf(evidence: BaselineNode['evidence']): string[] {
  const balancers = isStringList(evidence['ipvs.balancers']) ? evidence['ipvs.balancers'] : []
  const keepalived = isStringList(evidence['services.active']) && evidence['services.active'].includes('keepalived') ? ['keepalived'] : []
  const users = [...balancers, ...keepalived]
  if (users.length > 0) return users
  const mode = evidence['kubeProxy.mode']
  return [`another component (kube-proxy ${typeof mode === 'string' ? `was in ${mode} mode` : 'did not run'})`]
}

/** Why a comparison lacks the report's side: the check that would hold it, and what the report says of it. */
function notRecorded(record: BaselineNode, rule: string, fact: string): string {
  const check = record.checks[rule]
  if (check === undefined) return `the baseline does not record ${fact} for this node: it has no ${rule} check of the node`
  if (check.status !== 'pass' && check.status !== 'fail') return `the baseline does not record ${fact} for this node: its ${rule} was ${check.status}: ${check.message}`
  const decided = check.status === 'pass' ? 'passed' : 'failed'
  return `the baseline does not record ${fact} for this node: its ${rule} ${decided} without it (a cluster report keeps the evidence of failed and unknown checks only)`
}

function isStringList(value: FactValue | undefined): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
}
