import {EXIT_CODES} from './exit-codes.js'
import {FLEET_ERROR_REASONS, FLEET_SCHEMA_VERSION} from './fleet.js'
import {JSON_SCHEMA_DRAFT_07} from './json-schema.js'
import {REPORT_SCHEMA} from './report-schema.js'

const count = {type: 'integer', minimum: 0}
const verdictSchema = {enum: ['go', 'no-go', 'incomplete']}
const exitCodeSchema = {enum: [EXIT_CODES.go, EXIT_CODES.noGo, EXIT_CODES.warnings, EXIT_CODES.incomplete]}
// The report's schema inside this one: its dialect and identifier are this document's.
const {$schema: _dialect, $id: _id, ...reportSchema} = REPORT_SCHEMA

/** JSON Schema (draft-07) of what `cluster --all-contexts --json` (or several --context) prints. `kpx-check schema --fleet` prints it. */
export const FLEET_SCHEMA = {
  $schema: JSON_SCHEMA_DRAFT_07,
  $id: 'https://kpx-check.dev/schemas/fleet.v1.json',
  title: 'kpx-check fleet report',
  description: 'Each cluster of a fleet with its full report (or why it could not be checked), and the worst verdict and exit code among them.',
  type: 'object',
  required: ['schemaVersion', 'kind', 'tool', 'generatedAt', 'clusters', 'summary'],
  additionalProperties: false,
  definitions: {report: reportSchema},
  properties: {
    schemaVersion: {const: FLEET_SCHEMA_VERSION},
    kind: {const: 'fleet'},
    tool: REPORT_SCHEMA.properties.tool,
    generatedAt: {type: 'string', format: 'date-time'},
    config: REPORT_SCHEMA.properties.config,
    clusters: {
      type: 'array',
      description: 'In the order of --context, or of the kubeconfig\'s contexts with --all-contexts.',
      items: {
        type: 'object',
        required: ['context', 'verdict', 'exitCode'],
        additionalProperties: false,
        properties: {
          context: {type: 'string'},
          verdict: {...verdictSchema, description: 'The report\'s verdict; incomplete for a cluster that could not be checked.'},
          exitCode: {...exitCodeSchema, description: 'The exit code of a run on this cluster alone (one not checked: incomplete\'s, 0 with --allow-incomplete).'},
          report: {$ref: '#/definitions/report'},
          error: {
            type: 'object',
            description: 'Why the cluster could not be checked (then there is no report).',
            required: ['reason', 'message', 'suggestions'],
            additionalProperties: false,
            properties: {
              reason: {
                enum: [...FLEET_ERROR_REASONS],
                description:
                  'unreachable (no connection, no answer), TLS (the server\'s certificate is not trusted), unauthorized (credentials rejected or not obtained: expired?), forbidden, timeout (no whole answer within --request-timeout), api-error (another error answer), kubeconfig (the context\'s entry cannot be used), usage (what was asked makes no sense for this cluster, such as a --target-version older than it).',
              },
              message: {type: 'string'},
              suggestions: {type: 'array', items: {type: 'string'}},
            },
          },
        },
        oneOf: [{required: ['report']}, {required: ['error']}],
      },
    },
    summary: {
      type: 'object',
      required: ['verdict', 'exitCode', 'counts'],
      additionalProperties: false,
      properties: {
        verdict: {...verdictSchema, description: 'The worst of the clusters\' verdicts: no-go, then incomplete, then go.'},
        exitCode: {...exitCodeSchema, description: 'The process exit code: the worst of the clusters\', in the order 3, 5, 4, 0.'},
        counts: {
          type: 'object',
          required: ['clusters', 'go', 'noGo', 'incomplete', 'notChecked'],
          additionalProperties: false,
          properties: {clusters: count, go: count, noGo: count, incomplete: count, notChecked: {...count, description: 'Clusters with an error instead of a report; not counted as incomplete.'}},
        },
      },
    },
  },
} as const
