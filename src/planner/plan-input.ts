/** What the plan is made from. */
import {type GatedFinding, isWaived} from '../contract/finding.js'
import type {ClusterSummary, NodeReport} from '../contract/report.js'
import type {Component} from '../derive/components.js'
import type {KubeProxyConfig} from '../derive/kube-proxy-config.js'
import type {RuleDefinition} from '../engine/rule-schema.js'
import type {UnknownFact} from '../facts/fact-set.js'
import type {PlatformRecipe} from './recipes.js'

type RulePhase = NonNullable<RuleDefinition['phase']>

/** What the plan does with a rule's failures. */
export interface RulePlan {
  phase: RulePhase
  /** What the rule's subjects are (Node, Cluster, Service, DaemonSet): rules over Nodes wait on the Node list. */
  subjectKind: string
  /** KubeProxyConfiguration fields the new configuration gets when the rule fails. */
  config?: Record<string, unknown>
}

export interface PlanInput {
  /** Findings after waivers: a waived finding needs no step. */
  findings: readonly GatedFinding[]
  nodes: readonly NodeReport[]
  /** Where each rule's fix goes (the rule's `phase`, default prerequisites) and the configuration it adds. */
  rulePlans: ReadonlyMap<string, RulePlan>
  /** Cluster runs: what the API showed; node runs have none and get no switch steps. */
  cluster?: ClusterPlanInput
}

export interface ClusterPlanInput {
  summary: ClusterSummary
  /** Where kube-proxy runs and is configured: the commands edit exactly that. */
  kubeProxy: KubeProxyConfig
  /** Why the Nodes could not be listed, when they could not: every rule over Nodes is then unknown for that one reason. */
  unlistedNodes?: UnknownFact
  /** The CNIs: their dataplanes may have to switch with kube-proxy. */
  cnis: readonly Component[]
  /** Why the DaemonSets could not be listed, when they could not: which CNI runs is then not known. */
  unlistedDaemonSets?: UnknownFact
  /** Other node-level networking found (cluster.components: node-local-dns, metallb, …): some want a test of their own. */
  addons?: readonly string[]
  /** How each platform switches (platforms/, loadRecipes). */
  recipes: ReadonlyMap<string, PlatformRecipe>
  targetVersion?: string
}

/** Findings that call for a step: failed blockers and warnings, and anything that could not be decided. */
export function needsStep(finding: GatedFinding): boolean {
  if (isWaived(finding)) return false
  return (finding.status === 'fail' && finding.severity !== 'info') || finding.status === 'unknown'
}
