/**
 * The order nodes switch in: one wave per node pool (nodes of a pool share an image and a
 * configuration), each with a canary and, node by node, what blocks the switch there. Control-plane
 * nodes come last; nodes no label places in a pool go together.
 */
import {isWaived} from '../contract/finding.js'
import type {NodePool, NodeReport, Wave} from '../contract/report.js'
import {CONTROL_PLANE_ROLES, POOL_LABELS, ROLE_LABEL_PREFIX} from '../derive/node-pools.js'

/** What a selector may hold so that it is safe between single quotes in a shell: Kubernetes' own label syntax. */
const LABEL_KEY = /^(?:[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/
export const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/

export const CONTROL_PLANE_WAVE = 'control plane'

type WaveNode = Pick<NodeReport, 'checks' | 'controlPlane' | 'name' | 'pool' | 'proxyMode' | 'verdict'>

/** A wave before its selector: which nodes, and the label term that picks them. */
interface Draft {
  name: string
  pool: NodePool | null
  /** `key=value`, `key` (a role), or null for the nodes in no pool. */
  term: null | string
  /** The label keys this term rests on: the waves after it exclude them. */
  keys: string[]
  nodes: WaveNode[]
  controlPlane: boolean
}

export function planWaves(nodes: readonly WaveNode[]): Wave[] {
  const drafts = new Map<string, Draft>()
  // Nodes of a pool mostly share its object, and nodes alike their checks: each is looked at once.
  const poolDrafts = new Map<NodePool | undefined, Omit<Draft, 'nodes'>>()
  const blockers = new Map<WaveNode['checks'], BlockerRules>()
  const blockersOf = (node: WaveNode) => {
    let rules = blockers.get(node.checks)
    if (!rules) blockers.set(node.checks, (rules = blockerRules(node.checks)))
    return rules
  }

  for (const node of nodes) {
    let draft = node.controlPlane ? CONTROL_PLANE_DRAFT : poolDrafts.get(node.pool)
    if (!draft) poolDrafts.set(node.pool, (draft = poolDraft(node.pool)))
    const known = drafts.get(draft.name)
    if (known) known.nodes.push(node)
    else drafts.set(draft.name, {...draft, nodes: [node]})
  }

  const ordered = [...drafts.values()].toSorted(
    (a, b) => Number(a.controlPlane) - Number(b.controlPlane) || Number(a.term === null) - Number(b.term === null) || readyShare(b) - readyShare(a) || a.nodes.length - b.nodes.length || a.name.localeCompare(b.name),
  )
  return ordered.map((draft) => waveOf(draft, selectorOf(draft, ordered), blockersOf))
}

const CONTROL_PLANE_DRAFT: Omit<Draft, 'nodes'> = {
  name: CONTROL_PLANE_WAVE,
  pool: null,
  term: null,
  keys: CONTROL_PLANE_ROLES.map((role) => ROLE_LABEL_PREFIX + role),
  controlPlane: true,
}

function poolDraft(pool: NodePool | undefined): Omit<Draft, 'nodes'> {
  if (!pool) return {name: 'nodes in no pool', pool: null, term: null, keys: [], controlPlane: false}
  const title = POOL_LABELS.find(({label}) => label === pool.label)?.title
  if (!title) return {name: `role ${pool.name}`, pool, term: pool.label, keys: [pool.label], controlPlane: false}
  return {name: `${title} ${pool.name}`, pool, term: `${pool.label}=${pool.name}`, keys: [pool.label], controlPlane: false}
}

/**
 * A selector that picks exactly the draft's nodes: its own term, and none of the labels that put a
 * node in a wave of more weight (the control plane, then pool labels in their order, then roles).
 */
function selectorOf(draft: Draft, drafts: readonly Draft[]): null | string {
  // Control-plane nodes carry control-plane, master or both (by version and distribution): no one selector
  // picks them all, and they are few, so they are named.
  if (draft.controlPlane) return null
  const heavier = drafts.filter((other) => other !== draft && precedes(other, draft))
  const excluded = [...new Set(heavier.flatMap((other) => other.keys))].filter((key) => !draft.keys.includes(key))
  const terms = [draft.term ?? 'kubernetes.io/os=linux', ...excluded.map((key) => `!${key}`)]
  const safe = terms.every((term) => {
    const [key, value = ''] = term.replace(/^!/, '').split('=')
    return LABEL_KEY.test(key) && LABEL_VALUE.test(value)
  })
  return safe ? terms.join(',') : null
}

/**
 * Whether a node that qualifies for both waves is in `a` (nodePoolOf's order): the control plane first,
 * then pool labels in POOL_LABELS' order, then roles by name, then no pool.
 */
function precedes(a: Draft, b: Draft): boolean {
  const roles = POOL_LABELS.length
  const rank = (draft: Draft) => {
    if (draft.controlPlane) return -1
    if (draft.pool === null) return roles + 1
    const index = POOL_LABELS.findIndex(({label}) => label === draft.pool!.label)
    return index === -1 ? roles : index
  }

  return rank(a) < rank(b) || (rank(a) === roles && rank(b) === roles && a.pool!.label < b.pool!.label)
}

function readyShare(draft: Draft): number {
  return draft.nodes.filter((node) => node.verdict === 'go').length / draft.nodes.length
}

function waveOf(draft: Draft, selector: null | string, blockersOf: (node: WaveNode) => BlockerRules): Wave {
  const [names, switched, ready]: string[][] = [[], [], []]
  const [blocked, undecided]: Wave['blocked'][] = [[], []]
  // One pass over what can be thousands of nodes, each list in the nodes' name order.
  for (const node of draft.nodes.toSorted((a, b) => a.name.localeCompare(b.name))) {
    names.push(node.name)
    // A node seen running nftables has switched: no command of the plan restarts it again.
    if (node.proxyMode?.running === 'nftables') switched.push(node.name)
    else if (node.verdict === 'go') ready.push(node.name)
    if (node.verdict === 'no-go') blocked.push({node: node.name, rules: blockersOf(node).fail})
    else if (node.verdict === 'incomplete') undecided.push({node: node.name, rules: blockersOf(node).unknown})
  }

  return {
    name: draft.name,
    pool: draft.pool,
    selector,
    nodes: names,
    // Only a node whose checks all passed switches: an unchecked one may be as blocked as any.
    canary: ready[0] ?? null,
    ready,
    blocked,
    undecided,
    switched,
  }
}

/** A node's blocker rules that fail and that cannot decide: what its verdict rests on. */
interface BlockerRules {
  fail: string[]
  unknown: string[]
}

/** The node's unwaived blocker checks that fail or are unknown, by rule. */
function blockerRules(checks: WaveNode['checks']): BlockerRules {
  const rules: BlockerRules = {fail: [], unknown: []}
  for (const [rule, check] of Object.entries(checks)) {
    if (check.severity === 'blocker' && (check.status === 'fail' || check.status === 'unknown') && !isWaived(check)) rules[check.status].push(rule)
  }

  return rules
}
