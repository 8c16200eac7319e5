import {type Confidence, CONFIDENCES, REFERENCES_SCHEMA, RULE_STATUSES, type RuleReference, SEVERITIES, type Severity, UNKNOWN_REASONS, type UnknownReason} from '../contract/finding.js'
import {JSON_SCHEMA_DRAFT_07} from '../contract/json-schema.js'
import {CLUSTER_SUBJECT_KINDS} from '../facts/catalog.js'
import {formatCost, RULE_COST_BUDGET} from './cel-cost.js'

const template = {type: 'string', minLength: 1, description: 'Text; {{ cel-expression }} is replaced by its value.'}
const celExpression = {type: 'string', minLength: 1, description: 'A CEL expression over the facts.'}


const RULE_SCOPES = ['node', 'cluster', 'verify'] as const
export type RuleScope = (typeof RULE_SCOPES)[number]

/** What a verify rule proves: the switch to nftables, or the rollback from it. */
const VERIFY_DIRECTIONS = ['switch', 'rollback'] as const
type VerifyDirection = (typeof VERIFY_DIRECTIONS)[number]

/** JSON Schema of one rule file in rules/ (YAML). `kpx-check schema --rule` prints it. */
export const RULE_FILE_SCHEMA = {
  $schema: JSON_SCHEMA_DRAFT_07,
  $id: 'https://kpx-check.dev/schemas/rule.v1.json',
  title: 'kpx-check rule',
  description:
    `A readiness rule. Its CEL, the conditions and the {{ }} placeholders together, must cost at most ${formatCost(RULE_COST_BUDGET)} by kpx-check's ` +
    'estimate, worked out with the sizes `kpx-check rules facts` gives (`kpx-check rules lint` prints it): a comprehension (exists, all, ' +
    'exists_one, map, filter) costs what it holds once for every item of its list. On facts that would take it over, the rule is unknown, reason cost-limit.',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'scope', 'severity', 'title', 'description', 'needs', 'outcomes', 'unknown', 'remediation', 'references'],
  properties: {
    id: {
      type: 'string',
      pattern: '^(node|cluster|verify)/[a-z0-9]+(-[a-z0-9]+)*$',
      description: 'Stable id, <scope>/<kebab-name>. Never renamed once published.',
    },
    scope: {
      enum: [...RULE_SCOPES],
      description: 'node and cluster: checks before the switch; verify: checks of a node after it (kpx-check verify), on its node facts.',
    },
    verifies: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: {enum: [...VERIFY_DIRECTIONS]},
      description: 'Verify rules only: what they prove: the switch to nftables (switch), the way back to iptables or IPVS (rollback, verify --rollback), or both.',
    },
    subject: {
      enum: [...CLUSTER_SUBJECT_KINDS],
      default: 'Cluster',
      description: 'For cluster rules: evaluated once for the cluster, or for each LoadBalancer Service or networking DaemonSet.',
    },
    severity: {enum: [...SEVERITIES], description: 'Default severity of a failure; users can override it per rule.'},
    evaluate: {
      enum: ['always', 'when-migrating'],
      default: 'when-migrating',
      description:
        'when-migrating: a cluster rule only while a node is still to switch; a node rule only on nodes not seen running nftables (kubeProxy.runningMode). always: also when there is nothing to migrate (the rules that say so, and the checks of a switched node).',
    },
    phase: {
      enum: ['prerequisites', 'prepare-cni', 'configure'],
      default: 'prerequisites',
      description: 'Where the migration plan puts the fix for a failure of this rule: before anything changes, with the CNI, or in the new configuration.',
    },
    config: {
      type: 'object',
      description: 'KubeProxyConfiguration fields the migration plan adds to the new configuration when this rule fails (merged beside mode: nftables).',
    },
    confidence: {
      enum: [...CONFIDENCES],
      default: 'verified',
      description: 'verified: from Kubernetes source or docs; derived: reasoned from them; heuristic: a rule of thumb.',
    },
    title: {type: 'string', minLength: 1},
    description: {type: 'string', minLength: 1},
    needs: {
      type: 'array',
      items: {type: 'string'},
      uniqueItems: true,
      description: 'Facts the rule cannot decide without: if one is unknown, the rule is unknown.',
    },
    uses: {
      type: 'array',
      items: {type: 'string'},
      uniqueItems: true,
      description: 'Facts the rule reads when present (messages, refinements) but can decide without.',
    },
    versions: {
      type: 'object',
      additionalProperties: false,
      properties: {
        kubernetes: {type: 'string', description: 'Kubernetes versions the rule applies to, as a semver range (">=1.29 <1.37").'},
      },
    },
    data: {type: 'object', description: 'Constants the expressions read as `data` (tables, thresholds).'},
    skip: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['when', 'message'],
        properties: {when: celExpression, message: template},
      },
      description: 'Conditions under which the rule does not apply; checked before `needs`.',
    },
    outcomes: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['status', 'message'],
        properties: {
          status: {enum: [...RULE_STATUSES]},
          when: celExpression,
          severity: {enum: [...SEVERITIES], description: 'Severity of this outcome when it differs from the rule\'s.'},
          reason: {enum: [...UNKNOWN_REASONS], description: 'With status unknown: why the evidence cannot decide (default: the reason of the first unknown fact in `uses`).'},
          message: template,
        },
      },
      description: 'Checked in order; the first whose `when` holds (or that has none) decides.',
    },
    unknown: {
      type: 'object',
      additionalProperties: false,
      required: ['message'],
      properties: {
        message: template,
        byReason: {type: 'object', additionalProperties: template, description: 'Messages for particular reasons (not-installed, permission-denied, …).'},
      },
      description: 'What to say when a needed fact is missing. Templates can read `missing.fact`, `missing.reason`, `missing.detail`.',
    },
    remediation: {
      type: 'array',
      minItems: 1,
      items: {
        oneOf: [
          template,
          {
            type: 'object',
            additionalProperties: false,
            required: ['when', 'text'],
            properties: {when: celExpression, text: template},
            description:
              'A line that applies only where `when` holds (a platform, a version range, a CNI, a mode). Left out where it is false; kept where a fact it reads is missing, so its text says when it applies ("On Huawei CCE, …").',
          },
        ],
      },
      description: 'What to do about a failure, a line each; a rule whose fixes all depend on the case may have only conditional lines (each failing fixture must still be left some advice).',
    },
    references: {...REFERENCES_SCHEMA, minItems: 1},
  },
} as const

interface RuleOutcome {
  status: (typeof RULE_STATUSES)[number]
  when?: string
  severity?: Severity
  reason?: UnknownReason
  message: string
}

/** A rule file as written, after schema validation. */
export interface RuleDefinition {
  id: string
  scope: RuleScope
  /** Verify rules: the switch they prove (to nftables, back from it, or both). */
  verifies?: VerifyDirection[]
  subject?: (typeof CLUSTER_SUBJECT_KINDS)[number]
  severity: Severity
  /** Whether the rule runs when there is nothing to migrate (default when-migrating). */
  evaluate?: 'always' | 'when-migrating'
  /** The plan phase of this rule's fix (default prerequisites). */
  phase?: 'configure' | 'prepare-cni' | 'prerequisites'
  /** KubeProxyConfiguration fields the plan adds to the new configuration when the rule fails. */
  config?: Record<string, unknown>
  confidence?: Confidence
  title: string
  description: string
  needs: string[]
  uses?: string[]
  versions?: {kubernetes?: string}
  data?: Record<string, unknown>
  skip?: Array<{message: string; when: string}>
  outcomes: RuleOutcome[]
  unknown: {byReason?: Record<string, string>; message: string}
  remediation: RemediationLine[]
  references: RuleReference[]
}

/** One line of a rule's remediation: always shown, or only where its condition holds or cannot be decided. */
type RemediationLine = string | {text: string; when: string}
