import type {AppliedWaiver, Confidence, FactValue, GatedFinding, RuleReference, Severity, Status, SubjectRef} from './finding.js'
import type {PlanPhase} from './phases.js'

export const REPORT_SCHEMA_VERSION = 'kpx-check/v1'

/** go: nothing blocks; no-go: a blocker failed; incomplete: a blocker could not be checked. */
export type Verdict = 'go' | 'incomplete' | 'no-go'

/** The findings counted: waived ones apart. */
export interface Summary {
  blockers: number
  warnings: number
  info: number
  unknown: number
  /** Unknown findings of blocker severity: these make the verdict incomplete. */
  unknownBlockers: number
  passed: number
  skipped: number
  /** Failed or unknown findings a --waivers entry accepts: reported, not counted above. */
  waived: number
}

export type NodeSource = 'api' | 'exec' | 'facts' | 'local' | 'pod' | 'ssh'

/** What a report says of a node before its checks: where its facts came from, and what it is. */
export interface NodeRow {
  name: string
  source: NodeSource
  /** Where the facts came from: the bundle path, the SSH target, … */
  origin: string
  kernelRelease: null | string
  os: {id: null | string; prettyName: null | string; versionId: null | string}
  nftVersion: null | string
  /** The nft kube-proxy runs, when read: its image's (in its pod), or the host's for kube-proxy on the host. */
  kubeProxyNftVersion?: string
  /**
   * The mode kube-proxy on the node runs in, as the node showed it (null: no source showed it), with what
   * showed it or why nothing did; in cluster runs, also the mode kube-proxy's configuration sets. Every
   * report since the running mode was read has it (a Windows node's has none).
   */
  proxyMode?: {running: null | string; evidence: string; configured?: string}
  reachable: boolean
  /** Cluster runs: the node carries the control-plane role label. */
  controlPlane?: boolean
  /** Cluster runs: the node pool its labels name (EKS node group, Karpenter NodePool, …, else its role). */
  pool?: NodePool
  /** Cluster runs: a Windows node, which kube-proxy's switch does not concern (it is in no wave). */
  windows?: true
  /** Its bundle, or the collector's output, was cut short (no end line): none of its facts is known. */
  cutShort?: true
  /** Why the node could not be probed (reachable false), where its bundle was cut short, or why it is not checked (Windows). */
  reason?: string
  /**
   * Cluster runs with --kube-proxy-metrics: where kube-proxy's /proxyMode and /metrics were asked through the API
   * server's pod proxy (`kube-system/<pod>:<port>`), and why none of them could be read, when none could.
   */
  kubeProxyMetrics?: {origin: string; reason?: string}
}

/** A node pool, as a node's labels name it. */
export interface NodePool {
  /** The label that names it: eks.amazonaws.com/nodegroup, karpenter.sh/nodepool, …, or node-role.kubernetes.io/ROLE. */
  label: string
  /** The label's value, or the role. */
  name: string
}

/** A node rule's result on one node. */
export interface NodeCheck {
  status: Status
  severity: Severity
  message: string
  /** Why it is unknown, or does not apply. */
  reason?: string
  waiver?: AppliedWaiver
  /** With --baseline: whether the baseline report had this failed or unknown check on this node. */
  baseline?: 'existing' | 'new'
  /** `kpx-check verify`: the facts the check read, as collected: its proof. */
  evidence?: Record<string, FactValue>
}

/** A node in the report: its row, its verdict of its own, and every node rule's result on it. */
export interface NodeReport extends NodeRow {
  /** From its checks alone, as the report's verdict is from all findings: can this node switch now? */
  verdict: Verdict
  /** By node rule id (by verify rule id in `kpx-check verify`). */
  checks: Record<string, NodeCheck>
  /** `kpx-check verify`: whether the node switched cleanly (or rolled back cleanly, with --rollback). */
  state?: VerifyState
}

/**
 * A node after the switch: `verified` (it runs the expected mode and every check passes), `failed` (a check
 * failed), `not-switched` (it still runs the mode it was to leave), `unknown` (its state could not be seen).
 */
export const VERIFY_STATES = ['verified', 'failed', 'not-switched', 'unknown'] as const
export type VerifyState = (typeof VERIFY_STATES)[number]

/** What `kpx-check verify` verified, and the nodes counted per state: a rollout's progress at a glance. */
export interface VerifySummary {
  /** switch: iptables or IPVS → nftables; rollback: back from nftables (--rollback). */
  direction: 'rollback' | 'switch'
  /** The mode(s) a node must run to be verified. */
  expectedModes: string[]
  /** --allow-not-switched: nodes still on the old mode do not fail the run (mid-rollout). */
  allowNotSwitched: boolean
  states: Record<VerifyState, number>
  /**
   * --baseline: the pre-switch report each node was compared with (by the verify/baseline-* checks), the nodes new
   * since it (verified like the others), and the nodes it had that are gone (absent when --node or --selector limits the run).
   */
  baseline?: {file: string; generatedAt: string; newNodes: string[]; goneNodes?: string[]}
}

/** What a step applies to: a node group (nodes alike in OS and kernel), a DaemonSet, a Service, the cluster. */
export interface PlanSubject {
  kind: string
  name: string
  /** For node groups: the node names in the group. */
  members?: string[]
}

export interface PlanStep {
  /** Stable within a plan and across runs of the same cluster: `prerequisites/node-kernel-version`. */
  id: string
  phase: PlanPhase
  title: string
  /** Why the step is there, in a sentence. */
  why: string
  /** Ids of the rules whose findings the step answers (empty for the steps every migration has). */
  rules: string[]
  subjects: PlanSubject[]
  /** What to do, in words: the rules' remediation for these subjects. */
  actions: string[]
  /** Copy-pasteable shell commands for the detected platform; lines starting with # are comments. */
  commands: string[]
  /** How to tell the step worked. */
  verify: string[]
  /** How to undo the step. */
  undo: string[]
  /**
   * Set on a step made from one rule's findings (a fix for its failures, or a way to find out what it could
   * not tell): its `why` and `actions` say again what those findings say, so a long report names the rule
   * and points to its findings instead of restating them.
   */
  finding?: StepFinding
}

/** The findings a step was made from: those of `rule` with `status`. */
export interface StepFinding {
  rule: string
  status: 'fail' | 'unknown'
}

/** Nodes alike in OS and kernel, which one fix serves. */
export interface NodeGroup {
  name: string
  os: null | string
  kernelRelease: null | string
  nodes: string[]
  /** Rules that fail (blocker), fail (warning) or cannot decide on a node of the group. */
  blockers: string[]
  warnings: string[]
  unknown: string[]
}

/** The nodes of one pool, switched together: the canary first, then the others. */
export interface Wave {
  /** How the plan names it: `EKS node group workers-a`, `role infra`, `control plane`, `nodes in no pool`. */
  name: string
  pool: NodePool | null
  /** A kubectl label selector for exactly this wave's nodes; null when the labels cannot be written in one safely. */
  selector: null | string
  nodes: string[]
  /** The node that switches first: a ready one; null when none is (every node blocked, not checked, or switched already). */
  canary: null | string
  /** Nodes whose checks find nothing that blocks the switch. */
  ready: string[]
  /** Nodes a blocker fails on, with those blocker rules. */
  blocked: Array<{node: string; rules: string[]}>
  /** Nodes with no failed blocker but a blocker that could not be checked, with those rules. */
  undecided: Array<{node: string; rules: string[]}>
  /** Nodes seen running nftables already: no command restarts them. */
  switched: string[]
}

export interface Plan {
  /** The platform the switch commands are for (kubeadm, eks, …); null for node runs. */
  platform: null | string
  /** One sentence: what the plan amounts to. */
  summary: string
  /** With --target-version: what the target release means for IPVS and nftables. */
  deadline?: string
  /** How sure the platform's switch steps are (verified, derived, heuristic); null without switch steps. */
  confidence: Confidence | null
  /** The sources of the platform's switch steps. */
  references: RuleReference[]
  nodeGroups: NodeGroup[]
  /** The order nodes switch in: a wave per node pool, each with its canary and what blocks its nodes. */
  waves: Wave[]
  steps: PlanStep[]
}

/** What a cluster run learnt about the cluster as a whole. */
export interface ClusterSummary {
  context: null | string
  /** The API server read, without credentials: which cluster this is, so that a baseline of another is refused. */
  server?: string
  kubernetesVersion: null | string
  platform: null | string
  proxyMode: 'iptables' | 'ipvs' | 'nftables' | 'none' | 'unknown'
  kubeProxy: {replacedBy: null | string; version: null | string; workload: null | string}
  /** Every Linux node is seen running kube-proxy in nftables mode, or no kube-proxy runs. */
  nothingToMigrate: boolean
  /** Linux nodes by what they were seen running: switched (nftables), not switched (another mode, or no kube-proxy), and not seen. */
  rollout?: {nftables: number; notSwitched: number; unknown: number}
  /** API reads that failed (forbidden, errors), with the message. */
  unreadable: string[]
  /** With --node-probe ssh and --inventory: inventory hosts that match no Node (by name or InternalIP). */
  unmatchedInventory?: string[]
  /** With --facts: bundles whose hostname names no Linux Node. */
  unmatchedBundles?: string[]
  /** With --node-probe pod: what the probe made in the cluster and could not delete (`pod NS/NAME: why`, `namespace NS: why`). */
  probeLeftovers?: string[]
}

/** What --waivers did in this run. */
export interface WaiverSummary {
  file: string
  /** Findings an active waiver accepted. */
  applied: number
  /** Findings whose waiver has expired: they count again. */
  expired: number
  /** Waivers that matched no failed or unknown finding (fixed, or mistyped). */
  unused: Array<{rule: string; subject: string; source: string}>
  /** What a reader should know of how waivers matched: a `cluster` waiver that accepts each object of a rule judged per object. */
  notes?: string[]
}

/** What --baseline found: the exit code gates only on findings that are new since the baseline report. */
export interface BaselineSummary {
  file: string
  generatedAt: string
  /** Failed or unknown results not in the baseline (or there with another status): each node's checks, and the findings that are not their sum. */
  new: number
  /** Failed or unknown results the baseline already had, with the same status. */
  existing: number
  /** Findings that failed or were unknown in the baseline and no longer are. */
  fixed: Array<{rule: string; subject: SubjectRef; was: 'fail' | 'unknown'}>
  /** What a reader should know of the comparison: a baseline from before findings named their objects compares by rule. */
  notes?: string[]
}

export interface Report {
  schemaVersion: typeof REPORT_SCHEMA_VERSION
  tool: {name: string; version: string}
  generatedAt: string
  /**
   * The configuration file the run read (`.kpx-check.yaml` or --config), the flags it set, and those of them that
   * lower the bar the gate sets (`--skip RULE`, `--severity RULE=LEVEL`, `--allow-incomplete`, `--waivers FILE`,
   * `--baseline FILE`), as the verdict line and the Markdown summary say too.
   */
  config?: {file: string; flags: string[]; lowers?: string[]}
  verdict: Verdict
  exitCode: number
  summary: Summary
  rules: {
    evaluated: number
    skipped: string[]
    severityOverrides: Record<string, Severity>
  }
  cluster?: ClusterSummary
  nodes: NodeReport[]
  findings: GatedFinding[]
  waivers?: WaiverSummary
  baseline?: BaselineSummary
  /** `kpx-check verify` reports: what was verified, and how many nodes are in each state. */
  verify?: VerifySummary
  plan: Plan
}
