/** The flags the checking commands share, and what the check services make of them. */
import * as Flags from '@oclif/core/flags'

import {EXIT_CODE_HELP} from '../contract/exit-codes.js'
import type {Severity} from '../contract/finding.js'
import type {GatePolicy} from '../planner/verdict.js'
import {MIN_WAIVER_REASON_LENGTH} from '../planner/waivers.js'
import {REPORT_FORMATS} from '../report/formats.js'
import {type CheckOptions} from '../services/check-options.js'
import type {ConnectionOptions} from '../services/cluster-reads.js'
import {UsageError} from '../util/errors.js'
import {durationFlag} from './duration.js'
import {CLUSTER_ACCESS, OUTPUT, RULES} from './flag-groups.js'

/** Flags shared by the commands that evaluate rules and gate on the verdict. */
export const checkFlags = {
  rules: Flags.string({
    helpGroup: RULES,
    description: 'Extra rule files or folders to load besides the built-in rules (repeatable).',
    multiple: true,
    helpValue: 'PATH',
  }),
  skip: Flags.string({helpGroup: RULES, description: 'Do not evaluate this rule (repeatable).', multiple: true, helpValue: 'RULE-ID'}),
  severity: Flags.string({
    helpGroup: RULES,
    description: 'Override a rule\'s severity (repeatable).',
    multiple: true,
    helpValue: 'RULE-ID=blocker|warning|info',
  }),
  'fail-on': Flags.string({
    helpGroup: RULES,
    description: 'Lowest failed severity that fails the run: blocker (exit 3) or warning (also exit 4).',
    options: ['blocker', 'warning'],
    default: 'blocker',
  }),
  'allow-incomplete': Flags.boolean({helpGroup: RULES, description: 'Exit 0 instead of 5 when a blocker could not be checked.', default: false}),
  waivers: Flags.string({
    helpGroup: RULES,
    description: `YAML file of accepted risks (rule, subject pattern, reason of at least ${MIN_WAIVER_REASON_LENGTH} characters such as a ticket or a name, expires): waived findings are reported, not counted, until they expire.`,
    helpValue: 'FILE',
  }),
  baseline: Flags.string({helpGroup: RULES, description: 'An earlier JSON report: the exit code gates only on findings new since then; fixed ones are listed.', helpValue: 'FILE'}),
  format: Flags.string({helpGroup: OUTPUT, description: 'What stdout carries, as -o FORMAT says it (--json is the same as --format json, and cannot go with another format).', options: [...REPORT_FORMATS], default: 'text'}),
  details: Flags.boolean({
    helpGroup: OUTPUT,
    description: 'Text on stdout: the long form, with every finding\'s message and fix, every node, and the plan\'s commands (default: one screen; -o wide is the same; --output text=FILE has the long form).',
  }),
  output: Flags.string({
    helpGroup: OUTPUT,
    char: 'o',
    description: `FORMAT (${REPORT_FORMATS.join(', ')}; md for markdown; wide for the long text form, as --details): what stdout carries, as kubectl's -o. FORMAT=PATH: also write the report to PATH in FORMAT; repeatable, all from one run.`,
    multiple: true,
    helpValue: 'FORMAT|FORMAT=PATH',
  }),
  'sarif-location': Flags.string({
    helpGroup: OUTPUT,
    description: 'In SARIF, place every result at this file of your repository as well (GitHub code scanning takes only results with one: the workflow file, say).',
    helpValue: 'REPO-PATH',
  }),
}

interface CheckFlagValues {
  rules?: string[]
  skip?: string[]
  severity?: string[]
  'fail-on': string
  'allow-incomplete': boolean
  waivers?: string
  baseline?: string
}

/** What the check services take from the check flags. */
export function checkOptions(flags: CheckFlagValues): CheckOptions {
  return {
    rulePaths: flags.rules ?? [],
    skip: flags.skip ?? [],
    severity: parseSeverityOverrides(flags.severity ?? []),
    policy: gatePolicy(flags),
    gateFiles: {...(flags.waivers === undefined ? {} : {waiversPath: flags.waivers}), ...(flags.baseline === undefined ? {} : {baselinePath: flags.baseline})},
  }
}

/** Flags that say how to reach the cluster, as kubectl's do. */
export const connectionFlags = {
  kubeconfig: Flags.string({helpGroup: CLUSTER_ACCESS, description: 'Path to the kubeconfig file (default: KUBECONFIG, then ~/.kube/config, then in-cluster).', helpValue: 'FILE'}),
  context: Flags.string({helpGroup: CLUSTER_ACCESS, description: 'The kubeconfig context to use.', helpValue: 'NAME'}),
  'request-timeout': durationFlag({helpGroup: CLUSTER_ACCESS, description: 'How long to wait for each API request: 30s, 2m, 1m30s, or a number of seconds.', default: 30, min: 1}),
  'api-concurrency': Flags.integer({helpGroup: CLUSTER_ACCESS, description: 'API lists read at once.', default: 4, min: 1, max: 16}),
}

export function connectionOptions(flags: {'api-concurrency': number; context?: string; kubeconfig?: string; 'request-timeout': number}): ConnectionOptions {
  return {kubeconfig: flags.kubeconfig, context: flags.context, requestTimeoutSeconds: flags['request-timeout'], concurrency: flags['api-concurrency']}
}

/** Parses --severity values: RULE-ID=blocker|warning|info. */
function parseSeverityOverrides(values: readonly string[]): Map<string, Severity> {
  const overrides = new Map<string, Severity>()
  for (const value of values) {
    const match = /^([^=]+)=(blocker|warning|info)$/.exec(value)
    if (!match) throw new UsageError(`--severity ${value}: expected RULE-ID=blocker|warning|info`)
    overrides.set(match[1], match[2] as Severity)
  }

  return overrides
}

function gatePolicy(flags: {'allow-incomplete': boolean; 'fail-on': string}): GatePolicy {
  return {failOn: flags['fail-on'] === 'warning' ? 'warning' : 'blocker', allowIncomplete: flags['allow-incomplete']}
}

/** What the checking commands' --help says of the plan and the outputs: one paragraph. */
export const PLAN_AND_OUTPUTS_DESCRIPTION = [
  'The report ends with the migration plan: fixes first, then (for clusters) the switch for the detected platform,',
  'canary, rollout, verification, cleanup and rollback. --format picks what stdout carries; --output writes more',
  'formats from the same run; in GitHub Actions the Markdown report is added to the step summary.',
].join(' ')

/** The exit-code table as it appears at the end of a command's --help. */
export const EXIT_CODES_DESCRIPTION = ['Exit codes:', ...EXIT_CODE_HELP.map((line) => `  ${line}`)].join('\n')

/** --target-version: a Kubernetes minor version such as 1.35, or v1.35 as kubectl version prints it. */
export function targetVersion(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const match = /^v?(1\.\d{1,2})$/.exec(value)
  if (!match) throw new UsageError(`--target-version ${value}: expected a Kubernetes minor version such as 1.35 (or v1.35)`, ['Give the major.minor of the release you are upgrading to: 1.35, not 1.35.2 or 1.x.'])
  return match[1]
}
