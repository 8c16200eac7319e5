/**
 * `kpx-check verify`'s gate: each node's state from its checks and the mode it runs, the counts per
 * state, and the verdict and exit code they make. A node whose state could not be seen is never verified.
 */
import type {Finding} from '../contract/finding.js'
import {type NodeReport, type Plan, type Report, type Verdict, VERIFY_STATES, type VerifyState, type VerifySummary} from '../contract/report.js'
import {subjectPath} from '../contract/subject.js'
import type {Baseline} from './baseline.js'
import {exitCodeOf, type GatePolicy} from './verdict.js'

export type VerifyDirection = VerifySummary['direction']

/** The modes a node leaves and the modes it must run, per direction. */
const MODES: Record<VerifyDirection, {expected: readonly string[]; old: readonly string[]}> = {
  switch: {expected: ['nftables'], old: ['iptables', 'ipvs']},
  rollback: {expected: ['iptables', 'ipvs'], old: ['nftables']},
}

interface VerifyGateInput {
  direction: VerifyDirection
  allowNotSwitched: boolean
  policy: GatePolicy
  /** The mode each node's kube-proxy runs, by node name; absent when it could not be told. */
  runningModes: ReadonlyMap<string, string | undefined>
  /** Each subject's findings (the engine's `bySubject`): the nodes' checks get their evidence from it. */
  bySubject: ReadonlyMap<string, ReadonlyMap<string, Finding>>
  /** --baseline: the pre-switch report the nodes were compared with (their checks did, as rules); here, which nodes it had. */
  baseline?: Pick<Baseline, 'file' | 'generatedAt' | 'nodes'>
  /** Only some nodes are in scope (--node, --selector): the baseline's others are not gone, only not looked at. */
  scoped?: boolean
}

/**
 * A node still running the mode it was to leave has not switched, whatever its other checks say (they
 * are about the new mode); otherwise its blocker checks decide, as a node's verdict does: a failed one
 * makes it failed, an undecided one unknown. Waived checks do not count.
 */
function nodeState(node: Pick<NodeReport, 'verdict'>, runningMode: string | undefined, direction: VerifyDirection): VerifyState {
  if (runningMode !== undefined && MODES[direction].old.includes(runningMode)) return 'not-switched'
  return ({'no-go': 'failed', incomplete: 'unknown', go: 'verified'} as const)[node.verdict]
}

/** The run's verdict from its nodes' states: no-go for a failed (or, unless allowed, a not-switched) node, then incomplete for an unknown one. */
function verdictOfStates(states: VerifySummary['states'], allowNotSwitched: boolean): Verdict {
  // No node in scope (none listed, none matched): nothing was seen, so nothing is verified.
  if (Object.values(states).every((count) => count === 0)) return 'incomplete'
  if (states.failed > 0 || (!allowNotSwitched && states['not-switched'] > 0)) return 'no-go'
  return states.unknown > 0 ? 'incomplete' : 'go'
}

/** The report of the verify rules, with each node's state and evidence, the counts, and the verdict and exit code they make. */
export function applyVerifyGate(report: Report, input: VerifyGateInput): Report {
  const states = Object.fromEntries(VERIFY_STATES.map((state) => [state, 0])) as VerifySummary['states']
  const nodes = report.nodes.map((node) => {
    const state = nodeState(node, input.runningModes.get(node.name), input.direction)
    states[state]++
    const findings = input.bySubject.get(subjectPath({kind: 'Node', name: node.name}))
    const checks = Object.fromEntries(Object.entries(node.checks).map(([rule, check]) => [rule, {...check, evidence: findings?.get(rule)?.evidence ?? {}}]))
    return {...node, checks, state}
  })
  const verdict = verdictOfStates(states, input.allowNotSwitched)
  return {
    ...report,
    verdict,
    exitCode: exitCodeOf(verdict, report.summary, input.policy),
    nodes,
    verify: {
      direction: input.direction,
      expectedModes: [...MODES[input.direction].expected],
      allowNotSwitched: input.allowNotSwitched,
      states,
      ...(input.baseline ? {baseline: baselineNodes(input.baseline, nodes.map((node) => node.name), input.scoped ?? false)} : {}),
    },
    plan: verifyPlan(report, input.direction),
  }
}

/** Which nodes are new since the baseline, and, when every node is in scope, which of its nodes are gone. */
function baselineNodes(baseline: NonNullable<VerifyGateInput['baseline']>, names: readonly string[], scoped: boolean): NonNullable<VerifySummary['baseline']> {
  const earlier = new Set(baseline.nodes)
  const now = new Set(names)
  return {
    file: baseline.file,
    generatedAt: baseline.generatedAt,
    newNodes: names.filter((name) => !earlier.has(name)),
    ...(scoped ? {} : {goneNodes: [...earlier].filter((name) => !now.has(name))}),
  }
}

/** After the switch there are no waves to plan: only what to fix on the nodes that failed, each proved by verify passing again. */
function verifyPlan(report: Report, direction: VerifyDirection): Plan {
  const command = `kpx-check verify ${report.cluster ? 'cluster' : 'node'}${direction === 'rollback' ? ' --rollback' : ''}`
  const {steps} = report.plan
  return {
    ...report.plan,
    summary: steps.length === 0 ? 'Nothing to fix.' : `Fix what fails on the nodes below, or roll them back; then run \`${command}\` again.`,
    nodeGroups: [],
    waves: [],
    steps: steps.map((step) => ({...step, verify: [`\`${command}\` reports ${step.rules.join(', ')} passed`]})),
  }
}
