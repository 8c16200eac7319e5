import {groupByRule} from '../contract/finding.js'
import {PLAN_PHASES} from '../contract/phases.js'
import type {ClusterSummary, Plan, PlanStep} from '../contract/report.js'
import {deadline} from './deadline.js'
import {stepsForFindings} from './finding-steps.js'
import {groupNodes} from './node-groups.js'
import {needsStep, type PlanInput} from './plan-input.js'
import {rollbackReadinessStep} from './rollback-readiness.js'
import {recipeFor, switchSteps} from './switch-steps.js'
import {planWaves} from './waves.js'

/**
 * Findings and facts → the ordered migration plan: fix what blocks (per node group), prepare the CNI,
 * change the configuration, switch one canary node, roll out, verify, clean up; and how to roll back.
 */
export function buildPlan(input: PlanInput): Plan {
  const nodeGroups = groupNodes(input.nodes, input.findings)
  const {cluster} = input
  if (cluster?.summary.nothingToMigrate) {
    return {platform: cluster.summary.platform, summary: nothingToMigrate(cluster.summary), confidence: null, references: [], nodeGroups, waves: [], steps: []}
  }

  const waves = planWaves(input.nodes.filter((node) => !node.windows))

  const findingSteps = stepsForFindings(input.findings.filter((finding) => needsStep(finding)), nodeGroups, input.rulePlans, {clusterRun: cluster !== undefined, platform: cluster?.summary.platform, unlistedNodes: cluster?.unlistedNodes})
  const blockers = input.findings.filter((finding) => needsStep(finding) && finding.status === 'fail' && finding.severity === 'blocker')
  const blockingRules = [...groupByRule(blockers).keys()]
  const before = blockingRules.length > 0 ? `Fix what blocks first (${blockingRules.join(', ')}). ` : ''
  if (!cluster) {
    return {
      platform: null,
      summary: `${before}These steps cover the nodes; \`kpx-check cluster\` adds the switch steps for your platform.`,
      confidence: null,
      references: [],
      nodeGroups,
      waves,
      steps: inPhaseOrder([...findingSteps, rollbackReadinessStep(input)]),
    }
  }

  const recipe = recipeFor(cluster.summary, cluster.recipes)
  return {
    platform: cluster.summary.platform,
    summary: `${before}${recipe.title}: ${recipe.summary}`,
    ...(cluster.targetVersion ? {deadline: deadline(cluster.targetVersion, cluster.summary, cluster.kubeProxy)} : {}),
    confidence: recipe.confidence,
    references: recipe.references,
    nodeGroups,
    waves,
    steps: inPhaseOrder([...findingSteps, rollbackReadinessStep(input), ...switchSteps(cluster, {findings: input.findings, nodeGroups, nodes: input.nodes, rulePlans: input.rulePlans, waves})]),
  }
}

function nothingToMigrate(summary: ClusterSummary): string {
  if (summary.proxyMode === 'nftables') return 'Nothing to migrate: kube-proxy already runs in nftables mode.'
  return `Nothing to migrate: this cluster runs no kube-proxy${summary.kubeProxy.replacedBy ? ` (${summary.kubeProxy.replacedBy} implements Services)` : ''}.`
}

/** Stable sort by phase: within a phase, findings' fixes come before the platform's steps. */
function inPhaseOrder(steps: PlanStep[]): PlanStep[] {
  return steps.map((step, index) => ({step, index})).toSorted((a, b) => PLAN_PHASES.indexOf(a.step.phase) - PLAN_PHASES.indexOf(b.step.phase) || a.index - b.index).map(({step}) => step)
}
