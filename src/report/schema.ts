import {UNKNOWN_REASONS} from '../facts/fact-set.js'
import {CONFIDENCES, SEVERITIES} from '../engine/rule-schema.js'
import {REPORT_SCHEMA_VERSION} from './report.js'

const nullableString = {type: ['string', 'null']}
const count = {type: 'integer', minimum: 0}

/** JSON Schema (draft-07) of the report `--json` prints. `kpx-check schema` prints it. */
export const REPORT_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
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
    verdict: {enum: ['go', 'no-go', 'incomplete'], description: 'no-go: a blocker failed; incomplete: a blocker could not be checked.'},
    exitCode: {enum: [0, 3, 4, 5], description: 'The process exit code for this report (see --help).'},
    summary: {
      type: 'object',
      required: ['blockers', 'warnings', 'info', 'unknown', 'unknownBlockers', 'passed', 'skipped'],
      additionalProperties: false,
      properties: {
        blockers: count,
        warnings: count,
        info: count,
        unknown: count,
        unknownBlockers: count,
        passed: count,
        skipped: count,
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
        kubernetesVersion: nullableString,
        platform: nullableString,
        proxyMode: {enum: ['iptables', 'ipvs', 'nftables', 'none', 'unknown']},
        kubeProxy: {
          type: 'object',
          required: ['workload', 'version', 'replacedBy'],
          additionalProperties: false,
          properties: {workload: nullableString, version: nullableString, replacedBy: nullableString},
        },
        nothingToMigrate: {type: 'boolean', description: 'kube-proxy is absent or already in nftables mode.'},
        unreadable: {type: 'array', items: {type: 'string'}, description: 'API reads that failed, with the API\'s message and the permission needed.'},
        unmatchedInventory: {type: 'array', items: {type: 'string'}, description: 'With --node-probe ssh and --inventory: inventory hosts that match no Node, by name or InternalIP.'},
      },
    },
    nodes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'source', 'origin', 'kernelRelease', 'os', 'nftVersion', 'reachable'],
        additionalProperties: false,
        properties: {
          name: {type: 'string'},
          source: {enum: ['local', 'facts', 'ssh', 'api', 'pod']},
          origin: {type: 'string'},
          kernelRelease: nullableString,
          os: {
            type: 'object',
            required: ['id', 'versionId', 'prettyName'],
            additionalProperties: false,
            properties: {id: nullableString, versionId: nullableString, prettyName: nullableString},
          },
          nftVersion: {...nullableString, description: 'Host nft version, normalised (1.0.6); null when not installed or unknown.'},
          reachable: {type: 'boolean'},
          reason: {type: 'string'},
        },
      },
    },
    findings: {
      type: 'array',
      items: {
        type: 'object',
        required: ['rule', 'title', 'status', 'severity', 'confidence', 'subject', 'message', 'evidence', 'remediation', 'references'],
        additionalProperties: false,
        properties: {
          rule: {type: 'string', pattern: '^(node|cluster)/'},
          title: {type: 'string'},
          status: {enum: ['pass', 'fail', 'unknown', 'skip']},
          severity: {enum: [...SEVERITIES]},
          confidence: {enum: [...CONFIDENCES]},
          subject: {
            type: 'object',
            required: ['kind', 'name'],
            additionalProperties: false,
            properties: {kind: {type: 'string'}, name: {type: 'string'}},
          },
          message: {type: 'string'},
          evidence: {type: 'object', description: 'The facts the rule read, by fact path.'},
          remediation: {type: 'array', items: {type: 'string'}},
          reason: {
            enum: [...UNKNOWN_REASONS, 'not-applicable', 'rule-error'],
            description: 'Why the status is unknown or skip.',
          },
          references: {
            type: 'array',
            items: {
              type: 'object',
              required: ['title', 'url'],
              additionalProperties: false,
              properties: {title: {type: 'string'}, url: {type: 'string'}},
            },
          },
        },
      },
    },
    plan: {
      type: 'object',
      required: ['steps'],
      additionalProperties: false,
      properties: {
        steps: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'phase', 'title'],
            properties: {id: {type: 'string'}, phase: {type: 'string'}, title: {type: 'string'}},
          },
        },
      },
    },
  },
} as const
