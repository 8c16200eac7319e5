/** The steps the findings call for: a fix per failed rule, a way to find out per undecided one. */
import {type GatedFinding, groupByRule} from '../contract/finding.js'
import type {NodeGroup, PlanStep, PlanSubject} from '../contract/report.js'
import {subjectName} from '../contract/subject.js'
import type {UnknownFact} from '../facts/fact-set.js'
import {someNames} from '../util/names.js'
import type {RulePlan} from './plan-input.js'

/** What the run could see: a cluster run or a node run, and why the Nodes could not be listed, if they could not. */
interface FindingStepContext {
  clusterRun: boolean
  /** Cluster runs: the platform, which decides how its nodes are best reached. */
  platform?: null | string
  unlistedNodes?: UnknownFact
}

type UrgentStep = PlanStep & {urgency: number}

/**
 * One step per rule with failures (its remediation, for the subjects it failed on). Rules that could
 * not decide get a step saying how to find out; those that only a node shell can decide share one, and
 * so do the rules over Nodes when the Nodes could not be listed.
 */
export function stepsForFindings(findings: GatedFinding[], nodeGroups: NodeGroup[], rulePlans: ReadonlyMap<string, RulePlan>, context: FindingStepContext): PlanStep[] {
  const {clusterRun, platform, unlistedNodes} = context
  const steps: UrgentStep[] = []
  const shellOnly: GatedFinding[] = []
  const waitingOnNodes: GatedFinding[] = []
  for (const [rule, ofRule] of groupByRule(findings)) {
    const failed = ofRule.filter((finding) => finding.status === 'fail')
    // Only a node rule waits on a node shell; a cluster rule's not-collected read is the cluster's (a snapshot without it).
    const overNodes = rulePlans.get(rule)?.subjectKind === 'Node'
    if (failed.length === 0 && overNodes && ofRule.every((finding) => finding.reason === 'not-collected')) {
      shellOnly.push(...ofRule)
      continue
    }

    if (unlistedNodes && failed.length === 0 && rulePlans.get(rule)?.subjectKind === 'Node') {
      waitingOnNodes.push(...ofRule)
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
      actions: failed.length > 0 ? remediationFor(concerned, nodeGroups) : [concerned[0].message],
      commands: failed.length > 0 || !overNodes ? [] : probeCommands(clusterRun, platform),
      verify: [`\`kpx-check ${clusterRun ? 'cluster' : 'node'}\` reports ${rule} passed`],
      undo: [],
      finding: {rule, status: failed.length > 0 ? 'fail' : 'unknown'},
    })
  }

  if (unlistedNodes && waitingOnNodes.length > 0) steps.push(listNodesStep(waitingOnNodes, unlistedNodes))
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
      actions: ['Run the read-only collector on the nodes (in their kube-proxy pods, in probe pods kpx-check makes and deletes, over SSH, or from bundles collected on them) and evaluate it with the cluster.'],
      commands: probeCommands(clusterRun, platform),
      verify: ['The checks listed here are no longer unknown'],
      undo: [],
    })
  }

  // Blockers first: they decide whether the switch can happen at all.
  return steps.toSorted((a, b) => a.urgency - b.urgency).map(({urgency: _urgency, ...step}) => step)
}

/** The rules over Nodes, when the Nodes could not be listed: one reason, so one step, which names them all. */
function listNodesStep(findings: GatedFinding[], why: UnknownFact): UrgentStep {
  const rules = [...groupByRule(findings).keys()]
  const forbidden = why.reason === 'permission-denied'
  return {
    urgency: Math.min(...findings.map((finding) => urgencyOf(finding))),
    id: 'prerequisites/list-nodes',
    phase: 'prerequisites',
    title: `Find out what the Nodes are: kpx-check could not list them (${why.reason})`,
    why: `${rules.length} node check(s) have no node to run on, so their answer is not known yet: ${why.detail}`,
    rules,
    subjects: [{kind: 'Cluster', name: 'cluster'}],
    actions: [
      forbidden
        ? 'Let kpx-check list Nodes: `kpx-check rbac` prints the read-only ClusterRole and binding it needs (list nodes among them); apply it for the user kpx-check runs as.'
        : 'Find out why the API server did not list the Nodes (`kubectl get nodes` shows whether it does now).',
      'Then run `kpx-check cluster` again; or probe the nodes without the list: `kpx-check node` over SSH, or on facts bundles collected on the nodes.',
    ],
    commands: [
      ...(forbidden ? ['kubectl auth can-i list nodes', 'kpx-check rbac --user USER | kubectl apply -f -   # or --group, --service-account'] : ['kubectl get nodes']),
      'kpx-check cluster',
      '# or, without the Node list: kpx-check node --ssh USER@NODE --sudo, or kpx-check node --facts facts/',
    ],
    verify: ['`kpx-check cluster` lists the Nodes, and the checks listed here are no longer unknown'],
    undo: [],
  }
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
  // Other objects by kind, a few named: a rule can fail on thousands of Services.
  const others = new Map<string, string[]>()
  for (const {subject} of findings) {
    if (subject.kind === 'Node' || subject.kind === 'Cluster') continue
    const names = others.get(subject.kind)
    if (names) names.push(subjectName(subject))
    else others.set(subject.kind, [subjectName(subject)])
  }

  const subjects = [...(nodes > 0 ? [`${nodes} node(s)`] : []), ...[...others].map(([kind, names]) => `${kind} ${someNames(names)}`)]
  return subjects.length > 0 ? `${subjects.join(', ')}: ${findings[0].message}` : findings[0].message
}

/**
 * Each remediation line once. A rule's remediation is templated per subject (the distribution upgrade
 * differs by node), so a line that only some of the subjects call for says which: their node groups with
 * the nodes in them, or the other subjects by name.
 */
function remediationFor(findings: GatedFinding[], nodeGroups: NodeGroup[]): string[] {
  const concernedNodes = new Set(findings.filter((finding) => finding.subject.kind === 'Node').map((finding) => finding.subject.name))
  const groupOf = new Map<string, string>()
  for (const group of nodeGroups) {
    const members = group.nodes.filter((node) => concernedNodes.has(node))
    for (const node of members) groupOf.set(node, `${group.name} (${someNames(members)})`)
  }

  const subjectsOf = new Map<string, Set<string>>()
  const every = new Set<string>()
  for (const {subject, remediation} of findings) {
    const label = (subject.kind === 'Node' ? groupOf.get(subject.name) : undefined) ?? `${subject.kind} ${subjectName(subject)}`
    every.add(label)
    for (const line of remediation) {
      if (!subjectsOf.has(line)) subjectsOf.set(line, new Set())
      subjectsOf.get(line)!.add(label)
    }
  }

  return [...subjectsOf].map(([line, subjects]) => (subjects.size === every.size ? line : `For ${[...subjects].join('; ')}: ${line}`))
}

/** Node findings become the node groups they fall in (with only those nodes); the others stay as they are. */
function planSubjects(findings: GatedFinding[], nodeGroups: NodeGroup[]): PlanSubject[] {
  const nodes = new Set(findings.filter((finding) => finding.subject.kind === 'Node').map((finding) => finding.subject.name))
  const groups = nodeGroups
    .map((group) => ({kind: 'NodeGroup', name: group.name, members: group.nodes.filter((node) => nodes.has(node))}))
    .filter((group) => group.members.length > 0)
  const others = findings.filter((finding) => finding.subject.kind !== 'Node').map((finding) => ({kind: finding.subject.kind, name: subjectName(finding.subject)}))
  return [...groups, ...others]
}

/** Where nobody logs in to nodes: the managed platforms, whose nodes are reached through Kubernetes first. */
const MANAGED_PLATFORMS: ReadonlySet<string> = new Set(['eks', 'aks', 'gke', 'ack', 'tke', 'cce', 'openshift'])

function probeCommands(clusterRun: boolean, platform?: null | string): string[] {
  if (!clusterRun) return ['sudo kpx-check node', '# or: kpx-check node --ssh USER@NODE --sudo']
  const inKubernetes = 'kpx-check cluster --node-probe exec,pod   # in each node\'s kube-proxy pod, else a probe pod kpx-check makes and deletes; permissions: kpx-check rbac --node-probe exec,pod'
  const ssh = 'kpx-check cluster --node-probe ssh --ssh-user USER --sudo'
  const bundles = '# or, on air-gapped nodes: kpx-check collect | ssh NODE sudo sh > facts/NODE.facts, then kpx-check cluster --facts facts/'
  return MANAGED_PLATFORMS.has(platform ?? '') ? [inKubernetes, `# or, where you can log in to the nodes: ${ssh}`, bundles] : [ssh, `# or: ${inKubernetes}`, bundles]
}
