import {EXIT_CODES} from './exit-codes.js'
import {CONFIDENCES, ENGINE_UNKNOWN_REASONS, REFERENCES_SCHEMA, SEVERITIES, UNKNOWN_REASONS} from './finding.js'
import {JSON_SCHEMA_DRAFT_07} from './json-schema.js'
import {PLAN_PHASES} from './phases.js'
import {REPORT_SCHEMA_VERSION, VERIFY_STATES} from './report.js'

const nullableString = {type: ['string', 'null']}
const count = {type: 'integer', minimum: 0}
const stringList = {type: 'array', items: {type: 'string'}}
/** Nodes, each with the rules that hold it back. */
const nodeRulesList = {type: 'array', items: {type: 'object', required: ['node', 'rules'], additionalProperties: false, properties: {node: {type: 'string'}, rules: stringList}}}
const subjectSchema = {
  type: 'object',
  description:
    'What the finding is about: the cluster (kind Cluster), a Node, or one object (Service, Deployment, StatefulSet, DaemonSet, Job, CronJob, PrometheusRule, …): ' +
    'a rule that judges many objects has one finding per object. Waivers and baselines name it as kind/namespace/name in lower case (service/default/web).',
  required: ['kind', 'name'],
  additionalProperties: false,
  properties: {kind: {type: 'string'}, namespace: {type: 'string', description: 'Namespaced objects only.'}, name: {type: 'string'}},
}

const statusSchema = {enum: ['pass', 'fail', 'unknown', 'skip']}
const reasonSchema = {enum: [...UNKNOWN_REASONS, 'not-applicable', ...ENGINE_UNKNOWN_REASONS], description: 'Why the status is unknown or skip.'}
const waiverSchema = {
  type: 'object',
  description: 'The --waivers entry that matches this finding. Active: not counted; expired: counted again.',
  required: ['reason', 'expired', 'source'],
  additionalProperties: false,
  properties: {reason: {type: 'string'}, expires: {type: 'string', format: 'date'}, expired: {type: 'boolean'}, source: {type: 'string', description: 'FILE:LINE'}},
}
const verdictSchema = {enum: ['go', 'no-go', 'incomplete']}

/** JSON Schema (draft-07) of the report `--json` prints. `kpx-check schema` prints it. */
export const REPORT_SCHEMA = {
  $schema: JSON_SCHEMA_DRAFT_07,
  $id: 'https://kpx-check.dev/schemas/report.v1.json',
  title: 'kpx-check report',
  description: 'Whether kube-proxy can switch to nftables mode, the findings behind the verdict, and the plan.',
  type: 'object',
  required: ['schemaVersion', 'tool', 'generatedAt', 'verdict', 'exitCode', 'summary', 'rules', 'nodes', 'findings', 'plan'],
  additionalProperties: false,
  properties: {
    schemaVersion: {const: REPORT_SCHEMA_VERSION},
    tool: {
      type: 'object',
      required: ['name', 'version'],
      additionalProperties: false,
      properties: {name: {type: 'string'}, version: {type: 'string'}},
    },
    generatedAt: {type: 'string', format: 'date-time'},
    config: {
      type: 'object',
      description: 'Present when a configuration file (.kpx-check.yaml or --config) was read: the file, the flags whose values it gave, and (lowers) those that lower the bar the gate sets, as the command line would give them.',
      required: ['file', 'flags'],
      additionalProperties: false,
      properties: {file: {type: 'string'}, flags: stringList, lowers: stringList},
    },
    verdict: {...verdictSchema, description: 'no-go: a blocker failed; incomplete: a blocker could not be checked.'},
    exitCode: {enum: [EXIT_CODES.go, EXIT_CODES.noGo, EXIT_CODES.warnings, EXIT_CODES.incomplete], description: 'The process exit code for this report (see --help).'},
    summary: {
      type: 'object',
      required: ['blockers', 'warnings', 'info', 'unknown', 'unknownBlockers', 'passed', 'skipped', 'waived'],
      additionalProperties: false,
      properties: {
        blockers: count,
        warnings: count,
        info: count,
        unknown: count,
        unknownBlockers: count,
        passed: count,
        skipped: count,
        waived: {...count, description: 'Failed or unknown findings a --waivers entry accepts; not counted in the other figures.'},
      },
    },
    rules: {
      type: 'object',
      required: ['evaluated', 'skipped', 'severityOverrides'],
      additionalProperties: false,
      properties: {
        evaluated: count,
        skipped: {type: 'array', items: {type: 'string'}, description: 'Rules dropped with --skip.'},
        severityOverrides: {type: 'object', additionalProperties: {enum: [...SEVERITIES]}},
      },
    },
    cluster: {
      type: 'object',
      description: 'Present for cluster runs.',
      required: ['context', 'kubernetesVersion', 'platform', 'proxyMode', 'kubeProxy', 'nothingToMigrate', 'unreadable'],
      additionalProperties: false,
      properties: {
        context: nullableString,
        server: {type: 'string', description: 'The API server read (https://HOST:PORT/PATH, without credentials): which cluster this is. A --baseline of another is refused.'},
        kubernetesVersion: nullableString,
        platform: nullableString,
        proxyMode: {
          enum: ['iptables', 'ipvs', 'nftables', 'none', 'unknown'],
          description: 'The mode to migrate from: what the Linux nodes still to switch run (as they show it, else as kube-proxy\'s configuration sets it); nftables only when every Linux node is seen running it; unknown when the configuration says nftables and no source showed what the other nodes run.',
        },
        kubeProxy: {
          type: 'object',
          required: ['workload', 'version', 'replacedBy'],
          additionalProperties: false,
          properties: {workload: nullableString, version: nullableString, replacedBy: nullableString},
        },
        nothingToMigrate: {type: 'boolean', description: 'Every Linux node is seen running kube-proxy in nftables mode (nodes[].proxyMode.running), or no kube-proxy runs (a known replacement, or every node seen without one). Never from kube-proxy\'s configuration alone.'},
        rollout: {
          type: 'object',
          required: ['nftables', 'notSwitched', 'unknown'],
          additionalProperties: false,
          description:
            'Where a rollout stands: Linux nodes seen running nftables (switched), seen running another mode or no kube-proxy (not switched), and whose running mode no source showed. A mid-rollout report (some switched, some not) is about the nodes still to switch: their pre-switch checks and blockers stay, and proxyMode is the mode they run; the switched ones skip those checks.',
          properties: {nftables: {type: 'integer', minimum: 0}, notSwitched: {type: 'integer', minimum: 0}, unknown: {type: 'integer', minimum: 0}},
        },
        unreadable: {type: 'array', items: {type: 'string'}, description: 'API reads that failed, with the API\'s message and the permission needed.'},
        unmatchedInventory: {type: 'array', items: {type: 'string'}, description: 'With --node-probe ssh and --inventory: inventory hosts that match no Node, by name or InternalIP.'},
        unmatchedBundles: {type: 'array', items: {type: 'string'}, description: 'With --facts: bundles (hostname and file) whose hostname names no Linux Node, by name or short name, or a Node another bundle is for.'},
        probeLeftovers: {
          type: 'array',
          items: {type: 'string'},
          description: "With --node-probe pod: what the probe made in the cluster and could not delete, with why ('pod NS/NAME: …', 'namespace NS: …'); each probe pod ends at its activeDeadlineSeconds, and the next run deletes it.",
        },
      },
    },
    nodes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'source', 'origin', 'kernelRelease', 'os', 'nftVersion', 'reachable', 'verdict', 'checks'],
        additionalProperties: false,
        properties: {
          name: {type: 'string'},
          source: {enum: ['local', 'facts', 'ssh', 'exec', 'api', 'pod']},
          origin: {type: 'string'},
          kernelRelease: nullableString,
          os: {
            type: 'object',
            required: ['id', 'versionId', 'prettyName'],
            additionalProperties: false,
            properties: {id: nullableString, versionId: nullableString, prettyName: nullableString},
          },
          nftVersion: {...nullableString, description: 'Host nft version, normalised (1.0.6); null when not installed or unknown (a node probed in its kube-proxy pod cannot run it).'},
          kubeProxyNftVersion: {type: 'string', description: 'The nft kube-proxy runs, normalised: its image\'s, read in its pod (--node-probe exec), or the host\'s for kube-proxy on the host; absent when not read.'},
          reachable: {type: 'boolean'},
          proxyMode: {
            type: 'object',
            required: ['running', 'evidence'],
            additionalProperties: false,
            description: 'The mode kube-proxy on the node runs in, as the node showed it, never its configuration (absent for Windows nodes).',
            properties: {
              running: {enum: ['iptables', 'ipvs', 'nftables', 'kernelspace', 'none', null], description: 'null: no source showed it (the API shows only the configured mode).'},
              evidence: {type: 'string', description: 'What showed it (/proxyMode, metric families, flags, nft tables), or why nothing did (reason: detail).'},
              configured: {type: 'string', description: 'Cluster runs: the mode kube-proxy\'s configuration makes (iptables, ipvs, nftables, none, unknown); during a rollout it differs from the running one.'},
            },
          },
          kubeProxyMetrics: {
            type: 'object',
            required: ['origin'],
            additionalProperties: false,
            description: "Cluster runs with --kube-proxy-metrics: where kube-proxy's /proxyMode and /metrics were asked through the API server's pod proxy (kube-system/<pod>:<port>), and why none could be read, when none could.",
            properties: {origin: {type: 'string'}, reason: {type: 'string'}},
          },
          controlPlane: {type: 'boolean', description: 'Cluster runs: the node has the control-plane role label.'},
          pool: {
            type: 'object',
            required: ['label', 'name'],
            additionalProperties: false,
            description: 'Cluster runs: the node pool its labels name (EKS node group, Karpenter NodePool, AKS agent pool, GKE node pool, kOps instance group, ACK/TKE/CCE node pool), else its role.',
            properties: {label: {type: 'string'}, name: {type: 'string'}},
          },
          windows: {const: true, description: 'Cluster runs: a Windows node, which the switch does not concern (it is in no wave).'},
          cutShort: {const: true, description: 'The node\'s bundle, or the collector\'s output, ends before its "### end" line: none of its facts is known (reason says where it ends).'},
          reason: {type: 'string'},
          verdict: {...verdictSchema, description: "This node's own, from its checks: no-go if a blocker fails on it, incomplete if one is unknown (waived ones apart)."},
          checks: {
            type: 'object',
            description: 'Every node rule evaluated on this node, by rule id, in node and cluster runs alike; in `kpx-check verify`, every verify rule.',
            propertyNames: {pattern: '^(node|verify)/'},
            additionalProperties: {
              type: 'object',
              required: ['status', 'severity', 'message'],
              additionalProperties: false,
              properties: {
                status: statusSchema,
                severity: {enum: [...SEVERITIES]},
                message: {type: 'string'},
                reason: reasonSchema,
                waiver: waiverSchema,
                baseline: {enum: ['new', 'existing'], description: 'With --baseline: whether the baseline report had this failed or unknown check on this node.'},
                evidence: {type: 'object', description: '`kpx-check verify`: the facts the check read, as collected.'},
              },
            },
          },
          state: {
            enum: [...VERIFY_STATES],
            description:
              '`kpx-check verify`: verified (runs the expected mode, every blocker check passes), failed (a blocker check failed), not-switched (still runs the mode it was to leave), unknown (a blocker check could not be decided).',
          },
        },
      },
    },
    findings: {
      type: 'array',
      description:
        'One entry per rule and subject: a rule that judges Services, workloads or PrometheusRules fails or is unknown once per object. ' +
        'Passes and skips over many objects (and over many nodes, in a cluster run), and unknowns a cluster run cannot tell on any node, are summed up in one finding about the cluster with a count and an example.',
      items: {
        type: 'object',
        required: ['rule', 'title', 'status', 'severity', 'confidence', 'subject', 'message', 'evidence', 'remediation', 'references'],
        additionalProperties: false,
        properties: {
          rule: {type: 'string', pattern: '^(node|cluster|verify)/'},
          title: {type: 'string'},
          status: statusSchema,
          severity: {enum: [...SEVERITIES]},
          confidence: {enum: [...CONFIDENCES]},
          subject: subjectSchema,
          message: {type: 'string'},
          evidence: {type: 'object', description: 'The facts the rule read, by fact path.'},
          remediation: {type: 'array', items: {type: 'string'}},
          reason: reasonSchema,
          references: {
            type: 'array',
            items: {
              type: 'object',
              required: ['title', 'url'],
              additionalProperties: false,
              properties: {title: {type: 'string'}, url: {type: 'string'}},
            },
          },
          waiver: waiverSchema,
          baseline: {enum: ['new', 'existing'], description: 'With --baseline: whether the baseline report already had this failed or unknown finding.'},
        },
      },
    },
    waivers: {
      type: 'object',
      description: 'Present with --waivers.',
      required: ['file', 'applied', 'expired', 'unused'],
      additionalProperties: false,
      properties: {
        file: {type: 'string'},
        applied: count,
        expired: count,
        unused: {
          type: 'array',
          description: 'Waivers that matched no failed or unknown finding.',
          items: {
            type: 'object',
            required: ['rule', 'subject', 'source'],
            additionalProperties: false,
            properties: {rule: {type: 'string'}, subject: {type: 'string'}, source: {type: 'string'}},
          },
        },
        notes: {...stringList, description: 'How waivers matched that a reader should know: a `cluster` waiver that accepts each object of a rule whose findings are per object.'},
      },
    },
    baseline: {
      type: 'object',
      description: 'Present with --baseline: the exit code gates only on new findings.',
      required: ['file', 'generatedAt', 'new', 'existing', 'fixed'],
      additionalProperties: false,
      properties: {
        file: {type: 'string'},
        generatedAt: {type: 'string'},
        new: count,
        existing: count,
        fixed: {
          type: 'array',
          items: {
            type: 'object',
            required: ['rule', 'subject', 'was'],
            additionalProperties: false,
            properties: {rule: {type: 'string'}, subject: subjectSchema, was: {enum: ['fail', 'unknown']}},
          },
        },
        notes: {...stringList, description: 'How the comparison went that a reader should know: a baseline from before findings named their objects compares by rule.'},
      },
    },
    verify: {
      type: 'object',
      description: '`kpx-check verify` reports: what was verified, and the nodes counted per state.',
      required: ['direction', 'expectedModes', 'allowNotSwitched', 'states'],
      additionalProperties: false,
      properties: {
        direction: {enum: ['switch', 'rollback'], description: 'switch: to nftables; rollback: back to iptables or IPVS (--rollback).'},
        expectedModes: stringList,
        allowNotSwitched: {type: 'boolean', description: '--allow-not-switched: nodes still on the old mode do not fail the run.'},
        states: {
          type: 'object',
          required: [...VERIFY_STATES],
          additionalProperties: false,
          properties: Object.fromEntries(VERIFY_STATES.map((state) => [state, count])),
        },
        baseline: {
          type: 'object',
          description: '--baseline: the pre-switch report each node was compared with (the verify/baseline-* checks say what changed on it), and which nodes came and went since.',
          required: ['file', 'generatedAt', 'newNodes'],
          additionalProperties: false,
          properties: {
            file: {type: 'string'},
            generatedAt: {type: 'string', description: 'When the baseline report was made, as it says.'},
            newNodes: {...stringList, description: 'Nodes in scope the baseline does not have: verified like the others, with nothing to compare.'},
            goneNodes: {...stringList, description: 'Nodes the baseline has and the cluster (or the node run) no longer does; absent when --node or --selector limits the run.'},
          },
        },
      },
    },
    plan: {
      type: 'object',
      description: 'The ordered migration plan: fix what blocks, prepare the CNI, switch, canary, roll out, verify, clean up; and how to roll back.',
      required: ['platform', 'summary', 'confidence', 'references', 'nodeGroups', 'waves', 'steps'],
      additionalProperties: false,
      properties: {
        platform: {...nullableString, description: 'The platform the commands are for; null for node runs.'},
        summary: {type: 'string'},
        deadline: {type: 'string', description: 'With --target-version: what that release means for IPVS and nftables.'},
        confidence: {enum: [...CONFIDENCES, null], description: 'How sure the platform\'s switch steps are; null without switch steps.'},
        references: {...REFERENCES_SCHEMA, description: 'Sources of the platform\'s switch steps.'},
        nodeGroups: {
          type: 'array',
          description: 'Nodes alike in OS and kernel.',
          items: {
            type: 'object',
            required: ['name', 'os', 'kernelRelease', 'nodes', 'blockers', 'warnings', 'unknown'],
            additionalProperties: false,
            properties: {
              name: {type: 'string'},
              os: nullableString,
              kernelRelease: nullableString,
              nodes: stringList,
              blockers: {...stringList, description: 'Rules failing as blockers on a node of the group.'},
              warnings: stringList,
              unknown: stringList,
            },
          },
        },
        waves: {
          type: 'array',
          description: 'The order nodes switch in: one wave per node pool (the control plane last), each with its canary and what blocks its nodes.',
          items: {
            type: 'object',
            required: ['name', 'pool', 'selector', 'nodes', 'canary', 'ready', 'blocked', 'undecided'],
            additionalProperties: false,
            properties: {
              name: {type: 'string'},
              pool: {
                oneOf: [{type: 'null'}, {type: 'object', required: ['label', 'name'], additionalProperties: false, properties: {label: {type: 'string'}, name: {type: 'string'}}}],
              },
              selector: {...nullableString, description: 'A kubectl label selector for exactly this wave\'s nodes, as information: no command uses it (it would also pick the blocked, unchecked and new nodes of the pool when it runs). Null for the control plane and for labels that cannot be written safely.'},
              nodes: stringList,
              canary: {...nullableString, description: 'Switches first: a ready node; null when none is (blocked, not checked, or switched already).'},
              ready: {...stringList, description: 'Nodes on which nothing blocks the switch.'},
              blocked: {...nodeRulesList, description: 'Nodes a blocker fails on, with those rules: no command of the plan restarts them, and the hold-back step (configure/hold-back, where the recipe has one) keeps them on the old mode.'},
              undecided: {...nodeRulesList, description: 'Nodes with a blocker that could not be checked, with those rules: held back as the blocked ones are.'},
              switched: {type: 'array', items: {type: 'string'}, description: 'Nodes seen running nftables already (nodes[].proxyMode.running): no command of the plan restarts them.'},
            },
          },
        },
        steps: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'phase', 'title', 'why', 'rules', 'subjects', 'actions', 'commands', 'verify', 'undo'],
            additionalProperties: false,
            properties: {
              id: {type: 'string'},
              phase: {enum: [...PLAN_PHASES]},
              title: {type: 'string'},
              why: {type: 'string'},
              rules: {...stringList, description: 'Rules whose findings the step answers.'},
              subjects: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['kind', 'name'],
                  additionalProperties: false,
                  properties: {kind: {type: 'string'}, name: {type: 'string'}, members: stringList},
                },
              },
              actions: {...stringList, description: 'What to do, in words (the rules\' remediation).'},
              commands: {...stringList, description: 'Shell commands; lines starting with # are comments.'},
              verify: stringList,
              undo: stringList,
              finding: {
                type: 'object',
                required: ['rule', 'status'],
                additionalProperties: false,
                description: 'Set on a step made from one rule\'s findings: those of this rule with this status (fail: the step fixes them; unknown: it finds out). Its why and actions restate them, so the text and Markdown reports name the rule and point to its findings instead.',
                properties: {rule: {type: 'string'}, status: {enum: ['fail', 'unknown']}},
              },
            },
          },
        },
      },
    },
  },
} as const
