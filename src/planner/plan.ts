import semver from 'semver'
import {stringify as stringifyYaml} from 'yaml'

import type {GatedFinding} from '../contract/finding.js'
import {PLAN_PHASES} from '../contract/phases.js'
import type {ClusterSummary, NodeGroup, NodeReport, Plan, PlanStep, PlanSubject} from '../contract/report.js'
import type {Component} from '../derive/components.js'
import type {KubeProxyConfig} from '../derive/kube-proxy-config.js'
import {groupByRule} from '../engine/evaluate.js'
import type {RuleDefinition} from '../engine/rule-schema.js'
import {type PlanVariable, type PlatformRecipe, type RecipeCondition, recipeSteps} from './recipes.js'
import {isWaived} from './verdict.js'

export type RulePhase = NonNullable<RuleDefinition['phase']>

/** What the plan does with a rule's failures. */
export interface RulePlan {
  phase: RulePhase
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
  /** The CNIs: their dataplanes may have to switch with kube-proxy. */
  cnis: readonly Component[]
  /** How each platform switches (platforms/, loadRecipes). */
  recipes: ReadonlyMap<string, PlatformRecipe>
  targetVersion?: string
}

/** Findings that call for a step: failed blockers and warnings, and anything that could not be decided. */
function needsStep(finding: GatedFinding): boolean {
  if (isWaived(finding)) return false
  return (finding.status === 'fail' && finding.severity !== 'info') || finding.status === 'unknown'
}

/**
 * Findings and facts → the ordered migration plan: fix what blocks (per node group), prepare the CNI,
 * change the configuration, switch one canary node, roll out, verify, clean up; and how to roll back.
 */
export function buildPlan(input: PlanInput): Plan {
  const nodeGroups = groupNodes(input.nodes, input.findings)
  const {cluster} = input
  if (cluster?.summary.nothingToMigrate) {
    return {platform: cluster.summary.platform, summary: nothingToMigrate(cluster.summary), confidence: null, references: [], nodeGroups, steps: []}
  }

  const findingSteps = stepsForFindings(input.findings.filter((finding) => needsStep(finding)), nodeGroups, input.rulePlans, cluster !== undefined)
  const blockers = input.findings.filter((finding) => needsStep(finding) && finding.status === 'fail' && finding.severity === 'blocker')
  const blockingRules = [...groupByRule(blockers).keys()]
  const before = blockingRules.length > 0 ? `Fix what blocks first (${blockingRules.join(', ')}). ` : ''
  if (!cluster) {
    return {
      platform: null,
      summary: `${before}These steps cover the nodes; kpx-check cluster adds the switch steps for your platform.`,
      confidence: null,
      references: [],
      nodeGroups,
      steps: inPhaseOrder(findingSteps),
    }
  }

  const recipe = recipeFor(cluster.summary, cluster.recipes)
  const controlPlane = new Set(input.nodes.filter((node) => node.controlPlane).map((node) => node.name))
  const additions = configAdditions(input.findings, input.rulePlans)
  const variables = planVariables(cluster, nodeGroups, controlPlane, additions)
  const fill = (lines: readonly string[] = []) => lines.flatMap((line) => fillLine(line, variables))
  const switchSteps = recipeSteps(cluster.recipes, recipe)
    .filter((step) => (step.when ?? []).every((condition) => holds(condition, cluster)))
    .map(
      (step): PlanStep => ({
        id: `${step.phase}/${step.id}`,
        phase: step.phase,
        title: fill([step.title]).join(' '),
        why: step.why,
        rules: [],
        subjects: step.phase === 'canary' ? [{kind: 'Node', name: variables.canaryNode}] : [{kind: 'Cluster', name: cluster.summary.context ?? 'cluster'}],
        actions: [],
        commands: fill(step.commands),
        verify: fill(step.verify),
        undo: fill(step.undo),
      }),
    )

  return {
    platform: cluster.summary.platform,
    summary: `${before}${recipe.title}: ${recipe.summary}`,
    ...(cluster.targetVersion ? {deadline: deadline(cluster.targetVersion, cluster.summary)} : {}),
    confidence: recipe.confidence,
    references: recipe.references,
    nodeGroups,
    steps: inPhaseOrder([...findingSteps, ...switchSteps]),
  }
}

function nothingToMigrate(summary: ClusterSummary): string {
  if (summary.proxyMode === 'nftables') return 'Nothing to migrate: kube-proxy already runs in nftables mode.'
  return `Nothing to migrate: this cluster runs no kube-proxy${summary.kubeProxy.replacedBy ? ` (${summary.kubeProxy.replacedBy} implements Services)` : ''}.`
}

/** The platform's recipe; self-managed clusters kpx-check cannot name get the plain DaemonSet recipe. */
function recipeFor(summary: ClusterSummary, recipes: ReadonlyMap<string, PlatformRecipe>): PlatformRecipe {
  return recipes.get(summary.platform ?? '') ?? recipes.get('generic')!
}

/** Stable sort by phase: within a phase, findings' fixes come before the platform's steps. */
function inPhaseOrder(steps: PlanStep[]): PlanStep[] {
  return steps.map((step, index) => ({step, index})).toSorted((a, b) => PLAN_PHASES.indexOf(a.step.phase) - PLAN_PHASES.indexOf(b.step.phase) || a.index - b.index).map(({step}) => step)
}

/** Nodes alike in OS and kernel, each with the rules that fail or cannot decide on its nodes. */
export function groupNodes(nodes: readonly NodeReport[], findings: readonly GatedFinding[]): NodeGroup[] {
  const groups = new Map<string, NodeGroup>()
  const groupOfNode = new Map<string, NodeGroup>()
  for (const node of nodes) {
    const os = node.os.prettyName ?? node.os.id
    const name = `${os ?? 'unknown OS'}, kernel ${node.kernelRelease ?? 'unknown'}`
    let group = groups.get(name)
    if (!group) {
      group = {name, os, kernelRelease: node.kernelRelease, nodes: [], blockers: [], warnings: [], unknown: []}
      groups.set(name, group)
    }

    group.nodes.push(node.name)
    groupOfNode.set(node.name, group)
  }

  for (const finding of findings) {
    const group = finding.subject.kind === 'Node' ? groupOfNode.get(finding.subject.name) : undefined
    if (!group || !needsStep(finding)) continue
    const list = finding.status === 'unknown' ? group.unknown : (finding.severity === 'blocker' ? group.blockers : group.warnings)
    if (!list.includes(finding.rule)) list.push(finding.rule)
  }

  return [...groups.values()].toSorted((a, b) => b.blockers.length - a.blockers.length || b.nodes.length - a.nodes.length || a.name.localeCompare(b.name))
}

/**
 * One step per rule with failures (its remediation, for the subjects it failed on). Rules that could
 * not decide get a step saying how to find out; those that only a node shell can decide share one.
 */
function stepsForFindings(findings: GatedFinding[], nodeGroups: NodeGroup[], rulePlans: ReadonlyMap<string, RulePlan>, clusterRun: boolean): PlanStep[] {
  const steps: Array<PlanStep & {urgency: number}> = []
  const shellOnly: GatedFinding[] = []
  for (const [rule, ofRule] of groupByRule(findings)) {
    const failed = ofRule.filter((finding) => finding.status === 'fail')
    if (failed.length === 0 && ofRule.every((finding) => finding.reason === 'not-collected')) {
      shellOnly.push(...ofRule)
      continue
    }

    const concerned = failed.length > 0 ? failed : ofRule
    const phase = rulePlans.get(rule)?.phase ?? 'prerequisites'
    steps.push({
      urgency: Math.min(...concerned.map((finding) => urgencyOf(finding))),
      id: `${phase}/${rule.replace('/', '-')}`,
      phase,
      title: `${failed.length > 0 ? 'Fix' : 'Find out'}: ${concerned[0].title}`,
      why: whyOf(concerned),
      rules: [rule],
      subjects: planSubjects(concerned, nodeGroups),
      actions: failed.length > 0 ? [...new Set(concerned.flatMap((finding) => finding.remediation))] : [concerned[0].message],
      commands: failed.length > 0 ? [] : probeCommands(clusterRun),
      verify: [`kpx-check ${clusterRun ? 'cluster' : 'node'} reports ${rule} passed`],
      undo: [],
    })
  }

  if (shellOnly.length > 0) {
    const rules = [...groupByRule(shellOnly).keys()]
    steps.push({
      urgency: Math.min(...shellOnly.map((finding) => urgencyOf(finding))),
      id: 'prerequisites/probe-nodes',
      phase: 'prerequisites',
      title: 'Find out what only the nodes can show (nft, kernel features, firewalls, IPVS users)',
      why: `${rules.length} check(s) need a shell on the nodes, which the Kubernetes API does not give: their answer is not known yet.`,
      rules,
      subjects: [{kind: 'Cluster', name: 'cluster'}],
      actions: ['Run the read-only collector on the nodes, over SSH or from offline bundles, and evaluate it with the cluster.'],
      commands: probeCommands(clusterRun),
      verify: ['The checks listed here are no longer unknown'],
      undo: [],
    })
  }

  // Blockers first: they decide whether the switch can happen at all.
  return steps.toSorted((a, b) => a.urgency - b.urgency).map(({urgency: _urgency, ...step}) => step)
}

/** Failed blockers, then blockers nobody could check, then failed warnings, then the other unknowns. */
function urgencyOf(finding: GatedFinding): number {
  const blocker = finding.severity === 'blocker'
  if (finding.status === 'fail') return blocker ? 0 : 2
  return blocker ? 1 : 3
}

/** The first finding's message, after the subjects it stands for (a cluster-wide finding needs none). */
function whyOf(findings: GatedFinding[]): string {
  const nodes = findings.filter((finding) => finding.subject.kind === 'Node').length
  const others = findings.filter((finding) => finding.subject.kind !== 'Node' && finding.subject.kind !== 'Cluster')
  const subjects = [...(nodes > 0 ? [`${nodes} node(s)`] : []), ...others.map((finding) => `${finding.subject.kind} ${finding.subject.name}`)]
  return subjects.length > 0 ? `${subjects.join(', ')}: ${findings[0].message}` : findings[0].message
}

/** Node findings become the node groups they fall in (with only those nodes); the others stay as they are. */
function planSubjects(findings: GatedFinding[], nodeGroups: NodeGroup[]): PlanSubject[] {
  const nodes = new Set(findings.filter((finding) => finding.subject.kind === 'Node').map((finding) => finding.subject.name))
  const groups = nodeGroups
    .map((group) => ({kind: 'NodeGroup', name: group.name, members: group.nodes.filter((node) => nodes.has(node))}))
    .filter((group) => group.members.length > 0)
  const others = findings.filter((finding) => finding.subject.kind !== 'Node').map((finding) => ({kind: finding.subject.kind, name: finding.subject.name}))
  return [...groups, ...others]
}

function probeCommands(clusterRun: boolean): string[] {
  return clusterRun
    ? ['kpx-check cluster --node-probe ssh --ssh-user USER --sudo', '# or, on air-gapped nodes: kpx-check collect | ssh NODE sudo sh > facts/NODE.facts, then kpx-check node --facts facts/']
    : ['sudo kpx-check node', '# or: kpx-check node --ssh USER@NODE --sudo']
}

function holds(condition: RecipeCondition, cluster: ClusterPlanInput): boolean {
  const {kubeProxy} = cluster
  switch (condition) {
    case 'from-ipvs': {
      return kubeProxy.mode === 'ipvs'
    }

    case 'from-iptables': {
      return kubeProxy.mode === 'iptables'
    }

    case 'carry-over': {
      return carriedSettings(kubeProxy).length > 0
    }

    case 'old-kube-proxy': {
      const version = semver.coerce(kubeProxy.version ?? '')
      return version !== null && semver.lt(version, '1.29.0')
    }

    case 'calico-operator-iptables': {
      return cniToSwitch(cluster).some((cni) => cni.name === 'calico' && cni.daemonSet.namespace === 'calico-system')
    }

    case 'calico-manifest-iptables': {
      return cniToSwitch(cluster).some((cni) => cni.name === 'calico' && cni.daemonSet.namespace !== 'calico-system')
    }

    case 'flannel-iptables': {
      return cniToSwitch(cluster).some((cni) => cni.name === 'flannel')
    }
  }
}

/**
 * CNIs whose own dataplane must move to nftables with kube-proxy: Calico on its iptables dataplane
 * (the operator's runs in calico-system) and flannel without EnableNFTables.
 */
function cniToSwitch(cluster: ClusterPlanInput): Component[] {
  return cluster.cnis.filter((cni) => (cni.name === 'calico' && cni.dataplane === 'Iptables') || (cni.name === 'flannel' && cni.dataplane === 'iptables'))
}

/** nftables counterparts of the iptables/ipvs settings in use (KubeProxyConfiguration v1alpha1). */
const NFTABLES_COUNTERPART: Record<string, string> = {
  masqueradeAll: 'masqueradeAll',
  masqueradeBit: 'masqueradeBit',
  syncPeriod: 'syncPeriod',
  minSyncPeriod: 'minSyncPeriod',
}

/** The carried-over settings that have an nftables counterpart, as [field, value]. */
function carriedSettings(kubeProxy: KubeProxyConfig): Array<[string, unknown]> {
  return kubeProxy.carryOver.flatMap(({field, value}) => {
    const counterpart = NFTABLES_COUNTERPART[field.replace(/^(?:iptables|ipvs)\./, '')]
    return counterpart ? [[counterpart, value] as [string, unknown]] : []
  })
}

/** The configuration the failed rules ask the new KubeProxyConfiguration to have (conntrack, nodePortAddresses, …). */
function configAdditions(findings: readonly GatedFinding[], rulePlans: ReadonlyMap<string, RulePlan>): Record<string, unknown> {
  const failed = new Set(findings.filter((finding) => needsStep(finding) && finding.status === 'fail').map((finding) => finding.rule))
  return Object.assign({}, ...[...failed].toSorted().map((rule) => rulePlans.get(rule)?.config ?? {}))
}

function planVariables(cluster: ClusterPlanInput, nodeGroups: NodeGroup[], controlPlane: ReadonlySet<string>, additions: Record<string, unknown>): Record<PlanVariable, string> {
  const {kubeProxy, summary} = cluster
  const daemonSet = kubeProxy.daemonSet ?? {namespace: 'kube-system', name: 'kube-proxy'}
  const configMap = kubeProxy.configMap ?? {namespace: 'kube-system', name: 'kube-proxy', key: 'config.conf'}
  const carried = carriedSettings(kubeProxy)
  const config = {mode: 'nftables', ...(carried.length > 0 ? {nftables: Object.fromEntries(carried)} : {}), ...additions}
  // The canary is a worker of the largest group with nothing failing, so that it stands for many
  // and a failure there spares the control plane.
  const canaryGroup = nodeGroups.filter((group) => group.blockers.length === 0).toSorted((a, b) => b.nodes.length - a.nodes.length)[0] ?? nodeGroups[0]
  const canaryNode = canaryGroup?.nodes.find((name) => !controlPlane.has(name)) ?? canaryGroup?.nodes[0]
  const cnis = cniToSwitch(cluster)
  const calico = cnis.find((cni) => cni.name === 'calico')?.daemonSet
  const flannel = cnis.find((cni) => cni.name === 'flannel')?.daemonSet
  // Pods restarted together on each node: kube-proxy, and the CNI agents whose dataplane follows it
  // (the Calico operator rolls its own pods, so only a manifest install's are listed).
  const switchPods = [daemonSet.name, ...(calico && calico.namespace !== 'calico-system' ? [calico.name] : []), ...(flannel ? [flannel.name] : [])]
  return {
    kubeProxyNamespace: daemonSet.namespace,
    kubeProxyDaemonSet: daemonSet.name,
    switchPods: switchPods.join('|'),
    calicoNamespace: calico?.namespace ?? 'kube-system',
    calicoDaemonSet: calico?.name ?? 'calico-node',
    flannelNamespace: flannel?.namespace ?? 'kube-flannel',
    flannelDaemonSet: flannel?.name ?? 'kube-flannel-ds',
    configMapNamespace: configMap.namespace,
    configMapName: configMap.name,
    configMapKey: configMap.key,
    canaryNode: canaryNode ?? 'NODE',
    fromMode: summary.proxyMode === 'ipvs' ? 'ipvs' : 'iptables',
    kubernetesVersion: summary.kubernetesVersion ?? 'VERSION',
    nftablesConfig: stringifyYaml(config).trimEnd(),
  }
}

/** Replaces {{variables}}; a multi-line value repeats the text before it on each line (comment markers, indentation). */
function fillLine(line: string, variables: Record<PlanVariable, string>): string[] {
  const multiLine = /^(.*?){{\s*(\w+)\s*}}(.*)$/.exec(line)
  if (multiLine && variables[multiLine[2] as PlanVariable]?.includes('\n')) {
    return variables[multiLine[2] as PlanVariable].split('\n').map((part) => `${multiLine[1]}${part}${multiLine[3]}`)
  }

  return [line.replaceAll(/{{\s*(\w+)\s*}}/g, (_match, name: string) => variables[name as PlanVariable])]
}

/** What the target release means for the current mode (KEP-5495 for IPVS; nftables GA in 1.33). */
function deadline(target: string, summary: ClusterSummary): string {
  const version = semver.coerce(target)!
  const atLeast = (minor: string) => semver.gte(version, `${minor}.0`)
  if (summary.proxyMode === 'ipvs') {
    if (atLeast('1.40')) return `Kubernetes ${target} turns IPVS mode off by default: kube-proxy in ipvs mode exits. Migrate to nftables before upgrading to 1.40.`
    if (atLeast('1.35')) return `IPVS mode is deprecated in Kubernetes ${target} (an error in kube-proxy's log, Node event IPVSDeprecation) and off by default from 1.40: migrate before upgrading to 1.40.`
    return `IPVS mode still works in Kubernetes ${target}; it is deprecated from 1.35 and off by default from 1.40: migrate before upgrading to 1.40.`
  }

  const ga = atLeast('1.33') ? '' : ` nftables mode is GA from 1.33 (beta in 1.31–1.32 with a kernel-check bug); prefer switching on 1.33 or later.`
  return `iptables mode stays supported in Kubernetes ${target}.${ga}`
}
