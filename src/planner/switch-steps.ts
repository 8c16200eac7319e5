/** The platform's switch: its recipe's steps that apply to this cluster, with the cluster's own names filled in. */
import semver from 'semver'
import {stringify as stringifyYaml} from 'yaml'

import type {GatedFinding} from '../contract/finding.js'
import type {ClusterSummary, NodeGroup, NodeRow, PlanStep, Wave} from '../contract/report.js'
import type {Component} from '../derive/components.js'
import type {KubeProxyConfig} from '../derive/kube-proxy-config.js'
import {someNames} from '../util/names.js'
import {type ClusterPlanInput, needsStep, type RulePlan} from './plan-input.js'
import {lineText, type PlanVariable, type PlatformRecipe, type RecipeCondition, type RecipeLine, recipeSnippets, recipeSteps, type WaveVariable} from './recipes.js'
import {CONTROL_PLANE_WAVE, LABEL_VALUE} from './waves.js'

/** The recipe's steps whose conditions hold, filled with the cluster's names and the new configuration. */
export function switchSteps(
  cluster: ClusterPlanInput,
  input: {findings: readonly GatedFinding[]; nodeGroups: NodeGroup[]; nodes: readonly NodeRow[]; rulePlans: ReadonlyMap<string, RulePlan>; waves: readonly Wave[]},
): PlanStep[] {
  const additions = configAdditions(input.findings, input.rulePlans)
  // The first wave's canary (the pool most ready to switch), a worker's if one can be; only ever a ready node.
  const canary = (input.waves.find((wave) => wave.canary !== null && wave.name !== CONTROL_PLANE_WAVE) ?? input.waves.find((wave) => wave.canary !== null))?.canary ?? undefined
  const held = input.waves.flatMap((wave) => [...wave.blocked, ...wave.undecided].map(({node}) => node))
  // The ready nodes but the canary, the control plane's first (servers before agents, where a platform switches nodes by hand).
  const ready = [...input.waves.filter((wave) => wave.name === CONTROL_PLANE_WAVE), ...input.waves.filter((wave) => wave.name !== CONTROL_PLANE_WAVE)].flatMap((wave) => wave.ready).filter((node) => node !== canary)
  const {variables, refused} = planVariables(cluster, additions, {canary, held, ready})
  const recipe = recipeFor(cluster.summary, cluster.recipes)
  const snippets = recipeSnippets(cluster.recipes, recipe)
  const holding = {held, canary}
  // A step is taken where its conditions hold; a line of it is left out only where one of its own is false.
  const applies = (line: RecipeLine) => typeof line === 'string' || line.when.every((condition) => holds(condition, cluster, holding) !== false)
  return recipeSteps(cluster.recipes, recipe)
    .filter((step) => (step.when ?? []).every((condition) => holds(condition, cluster, holding) === true))
    .flatMap((step): PlanStep[] => {
      const [title, commands, verify, undo] = [[step.title], step.commands, step.verify ?? [], step.undo ?? []].map((lines) => lines.filter((line) => applies(line)).map((line) => fillText(lineText(line), snippets)))
      const lines = [...title, ...commands, ...verify, ...undo]
      const filled = (values: Readonly<Record<string, string>>, notes: string[], subjects: PlanStep['subjects'], id = `${step.phase}/${step.id}`): PlanStep => {
        const fill = (texts: readonly string[]) => texts.filter((text) => !namesNothing(text, values)).map((text) => fillText(text, values))
        return {id, phase: step.phase, title: fill(title).join(' '), why: step.why, rules: [], subjects, actions: notes, commands: fill(commands), verify: fill(verify), undo: fill(undo)}
      }

      if (!step.forEachWave) {
        const subjects = step.phase === 'canary' ? [{kind: 'Node', name: variables.canaryNode}] : [{kind: 'Cluster', name: cluster.summary.context ?? 'cluster'}]
        const step_ = filled(variables, refusalNotes(lines, refused), subjects)
        const withheld = withheldBecause(step, lines, {held, canary, ready})
        return [withheld ? {...step_, actions: [...step_.actions, withheld], commands: [], verify: []} : step_]
      }

      return input.waves.map((wave) => {
        const ofWave = waveVariables(wave, canary)
        const notes = [...refusalNotes(lines, [...refused, ...ofWave.refused]), ...waveNotes(wave)]
        const ofPool = filled({...variables, ...ofWave.values}, notes, [{kind: 'NodePool', name: wave.name}], `${step.phase}/${step.id}/${slug(wave.name)}`)
        // Every node of the pool is blocked: nothing of it can switch yet, so there is nothing to run.
        return wave.canary === null ? {...ofPool, commands: [], verify: []} : ofPool
      })
    })
}

/**
 * Why a step's commands are left out: a canary with no node ready to switch, or a step that restarts
 * kube-proxy on every node at once (one configuration for the cluster) while nodes are blocked or not checked.
 */
function withheldBecause(step: PlatformRecipe['steps'][number], lines: readonly string[], {held, canary, ready}: PlanNodes): string | undefined {
  const shown = someNames(held, 5)
  if (step.restartsEveryNode && held.length > 0) {
    return `Not yet: this restarts kube-proxy on every node at once, and ${shown} ${held.length === 1 ? 'is' : 'are'} blocked or not checked (the nodes table and the prerequisites steps say why). The platform keeps no node on the old mode: fix, replace or drain them first, then run kpx-check again.`
  }

  const named = variablesIn(lines)
  const names = (variable: PlanVariable) => named.has(variable)
  if (canary === undefined && (names('canaryNode') || names('readyNodes'))) return 'No node is ready to switch: fix the blockers and check the unchecked nodes first, then run kpx-check again.'
  if (names('readyNodes') && ready.length === 0) return `No node but the canary (${canary}) is ready to switch: fix the blockers and check the unchecked nodes, then run kpx-check again.`
  return undefined
}

/** A wave's name as a step id part: `eks-node-group-workers-a`. */
function slug(name: string): string {
  return name.toLowerCase().replaceAll(/[^a-z0-9]+/g, '-').replaceAll(/^-|-$/g, '')
}

/**
 * What the wave variables say for one wave, and the names that could not go into a command as they are. The
 * nodes still to switch leave out the plan's canary (switched by then) and, after it, the wave's own: empty
 * when there is none, which leaves the loop over them out (no loop that skips its only node).
 */
function waveVariables(wave: Wave, planCanary: string | undefined): {refused: Refusal[]; values: Record<WaveVariable, string>} {
  const refused: Refusal[] = []
  const canary = passing('waveCanary', wave.canary ?? 'NODE', {rule: NAME_RULES.subdomain, placeholder: 'NODE'}, refused)

  // The ready nodes, named as the report judged them: a selector evaluated when the loop runs would also pick
  // the pool's blocked, unchecked and new nodes. Valid names only.
  const valid = passingNodes('waveNodes', wave.ready, 'its other ready nodes', refused)
  const nodes = valid.join(' ') || 'NODE'
  const first = canary === planCanary ? '' : canary
  const others = valid.filter((name) => name !== planCanary && name !== wave.canary).join(' ') || (valid.length < wave.ready.length ? 'NODE' : '')

  // The name holds the pool label's value, which only a valid label value may bring into a command.
  let name = wave.name
  if (wave.pool && !LABEL_VALUE.test(wave.pool.name)) {
    refused.push({variable: 'waveName', value: wave.pool.name, placeholder: 'POOL'})
    name = 'POOL'
  }

  return {values: {waveName: name, waveCanary: canary, waveNodes: nodes, waveFirst: first, waveOthers: others}, refused}
}

/**
 * Which of the wave's nodes cannot switch yet, and why: nodes held back by the same rules together, a few
 * named with a few of their rules (the findings name them all, and plan.waves lists each node's), then how many more.
 */
function waveNotes(wave: Wave): string[] {
  const listed = (entries: Wave['blocked']) => {
    const alike = new Map<string, {nodes: string[]; rules: string[]}>()
    for (const {node, rules} of entries) {
      const key = rules.join(' ')
      if (alike.has(key)) alike.get(key)!.nodes.push(node)
      else alike.set(key, {nodes: [node], rules})
    }

    const groups = [...alike.values()]
    const shown = groups.slice(0, 5)
    const more = groups.slice(5).reduce((count, group) => count + group.nodes.length, 0)
    return `${shown.map(({nodes, rules}) => `${someNames(nodes, 5)} (${someNames(rules)})`).join('; ')}${more > 0 ? `; and ${more} more` : ''}`
  }

  const notes: string[] = []
  if (wave.canary === null) notes.push(`No node of ${wave.name} is ready to switch: fix what blocks it and check what is not checked first (the prerequisites steps).`)
  if (wave.blocked.length > 0) notes.push(`Blocked, fix before this wave: ${listed(wave.blocked)}.`)
  if (wave.undecided.length > 0) notes.push(`Not checked, probe before this wave: ${listed(wave.undecided)}.`)
  return notes
}

/** The platform's recipe; self-managed clusters kpx-check cannot name get the plain DaemonSet recipe. */
export function recipeFor(summary: ClusterSummary, recipes: ReadonlyMap<string, PlatformRecipe>): PlatformRecipe {
  return recipes.get(summary.platform ?? '') ?? recipes.get('generic')!
}

/** The nodes the plan holds back (blocked or not checked), and the canary, if a node is ready to switch. */
interface Holding {
  held: readonly string[]
  canary: string | undefined
}

/** Whether the condition holds for this cluster; undefined where what it depends on could not be read. */
function holds(condition: RecipeCondition, cluster: ClusterPlanInput, {held, canary}: Holding): boolean | undefined {
  const {kubeProxy} = cluster
  switch (condition) {
    case 'nodes-held': {
      // Nodes to keep on the old mode while others switch: with no node ready, nothing switches.
      return held.length > 0 && canary !== undefined
    }

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
      return cniSwitches(cluster, 'calico', (cni) => cni.daemonSet.namespace === 'calico-system')
    }

    case 'calico-manifest-iptables': {
      return cniSwitches(cluster, 'calico', (cni) => cni.daemonSet.namespace !== 'calico-system')
    }

    case 'flannel-iptables': {
      return cniSwitches(cluster, 'flannel', () => true)
    }

    case 'node-local-dns': {
      return (cluster.addons ?? []).includes('node-local-dns')
    }
  }
}

/**
 * Whether the CNI (of that install) must switch its dataplane with kube-proxy; undefined where the
 * DaemonSets could not be listed, or where it runs and its dataplane could not be read.
 */
function cniSwitches(cluster: ClusterPlanInput, name: string, install: (cni: Component) => boolean): boolean | undefined {
  if (cniToSwitch(cluster).some((cni) => cni.name === name && install(cni))) return true
  const unread = cluster.cnis.some((cni) => cni.name === name && install(cni) && cni.unread?.dataplane !== undefined)
  return cluster.unlistedDaemonSets !== undefined || unread ? undefined : false
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

/**
 * What the cluster may name objects, as Kubernetes validates names: a value that matches is safe in a
 * shell command as it is (letters, digits, `-`, `.`, `_`); one that does not (a hostile snapshot, a
 * server that does not validate) is left out of the commands.
 */
const NAME_RULES = {
  label: /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/,
  subdomain: /^(?=.{1,253}$)[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/,
  configKey: /^[-._a-zA-Z0-9]{1,253}$/,
  version: /^\d{1,3}\.\d{1,3}(?:\.\d{1,5})?$/,
} as const

/** A `{{variable}}` in a recipe line. */
const VARIABLE = /{{\s*(\w+)\s*}}/g

/** A cluster value that did not pass its name rule: the commands say `placeholder` instead. */
interface Refusal {
  variable: PlanVariable | WaveVariable
  value: string
  placeholder: string
}

/** The rule a value must pass to go into a command, and what the command says instead. */
interface NameCheck {
  rule: RegExp
  placeholder: string
}

/** The value, if it passes its name rule (or is the placeholder already); else the placeholder, with the refusal noted. */
function passing(variable: Refusal['variable'], value: string, check: NameCheck, refused: Refusal[]): string {
  if (check.rule.test(value) || value === check.placeholder) return value
  refused.push({variable, value, placeholder: check.placeholder})
  return check.placeholder
}

/**
 * The node names of a list that pass the name rule, in order; the first that does not is noted as refused, with
 * `placeholder` (or what it says given the names that pass) for the rest.
 */
function passingNodes(variable: Refusal['variable'], names: readonly string[], placeholder: ((valid: readonly string[]) => string) | string, refused: Refusal[]): string[] {
  const valid = names.filter((name) => NAME_RULES.subdomain.test(name))
  const first = names.find((name) => !NAME_RULES.subdomain.test(name))
  if (first !== undefined) refused.push({variable, value: first, placeholder: typeof placeholder === 'string' ? placeholder : placeholder(valid)})
  return valid
}

/** The {{variables}} some lines name. */
function variablesIn(lines: readonly string[]): Set<string> {
  return new Set(lines.flatMap((line) => [...line.matchAll(VARIABLE)].map((match) => match[1])))
}

/** What to tell the reader of a step whose commands lost a value to its name rule. */
function refusalNotes(lines: readonly string[], refused: readonly Refusal[]): string[] {
  const used = variablesIn(lines)
  return refused
    .filter(({variable}) => used.has(variable))
    .map(({value, placeholder}) => `The cluster names an object ${JSON.stringify(value)}, which is not a valid Kubernetes name: the commands say ${placeholder} instead; put the real name there by hand.`)
}

/** The nodes the plan names: its canary, the nodes it holds back, and the other ready nodes. */
interface PlanNodes {
  canary: string | undefined
  held: readonly string[]
  ready: readonly string[]
}

function planVariables(cluster: ClusterPlanInput, additions: Record<string, unknown>, {canary: canaryNode, held, ready}: PlanNodes): {refused: Refusal[]; variables: Record<PlanVariable, string>} {
  const {kubeProxy, summary} = cluster
  const daemonSet = kubeProxy.daemonSet ?? {namespace: 'kube-system', name: 'kube-proxy'}
  const configMap = kubeProxy.configMap ?? {namespace: 'kube-system', name: 'kube-proxy', key: 'config.conf'}
  const carried = carriedSettings(kubeProxy)
  const config = {mode: 'nftables', ...(carried.length > 0 ? {nftables: Object.fromEntries(carried)} : {}), ...additions}
  const cnis = cniToSwitch(cluster)
  const calico = cnis.find((cni) => cni.name === 'calico')?.daemonSet
  const flannel = cnis.find((cni) => cni.name === 'flannel')?.daemonSet
  // Pods restarted together on each node: kube-proxy, and the CNI agents whose dataplane follows it
  // (the Calico operator rolls its own pods, so only a manifest install's are listed).
  const switchPods = [daemonSet, ...(calico && calico.namespace !== 'calico-system' ? [calico] : []), ...(flannel ? [flannel] : [])]
  const values: Record<PlanVariable, string> = {
    kubeProxyNamespace: daemonSet.namespace,
    kubeProxyDaemonSet: daemonSet.name,
    switchPods: '',
    calicoNamespace: calico?.namespace ?? 'kube-system',
    calicoDaemonSet: calico?.name ?? 'calico-node',
    flannelNamespace: flannel?.namespace ?? 'kube-flannel',
    flannelDaemonSet: flannel?.name ?? 'kube-flannel-ds',
    configMapNamespace: configMap.namespace,
    configMapName: configMap.name,
    configMapKey: configMap.key,
    canaryNode: canaryNode ?? 'NODE',
    heldNodes: '',
    readyNodes: '',
    fromMode: summary.proxyMode === 'ipvs' ? 'ipvs' : 'iptables',
    kubernetesVersion: summary.kubernetesVersion ?? 'VERSION',
    nftablesConfig: stringifyYaml(config).trimEnd(),
  }
  const rules: Partial<Record<PlanVariable, NameCheck>> = {
    kubeProxyNamespace: {rule: NAME_RULES.label, placeholder: 'NAMESPACE'},
    kubeProxyDaemonSet: {rule: NAME_RULES.subdomain, placeholder: 'DAEMONSET'},
    calicoNamespace: {rule: NAME_RULES.label, placeholder: 'NAMESPACE'},
    calicoDaemonSet: {rule: NAME_RULES.subdomain, placeholder: 'DAEMONSET'},
    flannelNamespace: {rule: NAME_RULES.label, placeholder: 'NAMESPACE'},
    flannelDaemonSet: {rule: NAME_RULES.subdomain, placeholder: 'DAEMONSET'},
    configMapNamespace: {rule: NAME_RULES.label, placeholder: 'NAMESPACE'},
    configMapName: {rule: NAME_RULES.subdomain, placeholder: 'CONFIGMAP'},
    configMapKey: {rule: NAME_RULES.configKey, placeholder: 'KEY'},
    canaryNode: {rule: NAME_RULES.subdomain, placeholder: 'NODE'},
    kubernetesVersion: {rule: NAME_RULES.version, placeholder: 'VERSION'},
  }
  const refused: Refusal[] = []
  for (const [variable, check] of Object.entries(rules) as Array<[PlanVariable, NameCheck]>) values[variable] = passing(variable, values[variable], check, refused)

  // The pods restarted with kube-proxy are matched by the DaemonSets that own them, namespace/name: only valid ones.
  const named = switchPods.map(({namespace, name}) => `${namespace}/${name}`)
  const validPods = switchPods.filter(({namespace, name}) => NAME_RULES.label.test(namespace) && NAME_RULES.subdomain.test(name)).map(({namespace, name}) => `${namespace}/${name}`)
  if (validPods.length < named.length) refused.push({variable: 'switchPods', value: named.find((pair) => !validPods.includes(pair))!, placeholder: validPods.join(' ') || 'kube-system/kube-proxy'})
  values.switchPods = validPods.join(' ') || 'kube-system/kube-proxy'

  // The ready nodes are named in a command as the report judged them: valid names only, the others by hand.
  const validReady = passingNodes('readyNodes', ready, 'NODE', refused)
  values.readyNodes = validReady.join(' ') || (validReady.length < ready.length ? 'NODE' : '')

  // The held nodes are named in a command (labelled): valid names only, the others by hand.
  const validHeld = passingNodes('heldNodes', held, (valid) => `${valid.length > 0 ? 'its other' : 'the'} held nodes`, refused)
  values.heldNodes = validHeld.join(' ') || 'NODE'
  return {variables: values, refused}
}

/** A text that names a list of nodes that is empty (no node left to switch): it has nothing to do, and is left out. */
function namesNothing(text: string, values: Readonly<Record<string, string>>): boolean {
  return [...text.matchAll(VARIABLE)].some((match) => values[match[1]] === '')
}

/** Replaces the {{names}} that `values` has in each line of a text, and leaves the others for a later pass. */
function fillText(text: string, values: Readonly<Record<string, string>>): string {
  return text
    .split('\n')
    .flatMap((line) => fillLine(line, values))
    .join('\n')
}

/** A multi-line value repeats the text before and after it on each of its lines (comment markers, indentation). */
function fillLine(line: string, values: Readonly<Record<string, string>>): string[] {
  const multiLine = /^(.*?){{\s*(\w+)\s*}}(.*)$/.exec(line)
  if (multiLine && values[multiLine[2]]?.includes('\n')) {
    return values[multiLine[2]].split('\n').map((part) => `${multiLine[1]}${part}${multiLine[3]}`)
  }

  return [line.replaceAll(VARIABLE, (match, name: string) => values[name] ?? match)]
}
