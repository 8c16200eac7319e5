import {Command, Flags} from '@oclif/core'

import {UsageError} from '../util/errors.js'
import {EXIT_CODE_HELP, type GatePolicy} from '../planner/verdict.js'
import {writeJson} from '../report/json.js'
import {type OutputTarget, REPORT_FORMATS, type ReportFormat} from '../report/formats.js'
import type {Report} from '../contract/report.js'
import {type Severity} from '../contract/finding.js'

type OclifError = Error & {exitCode?: number; oclif?: {exit?: number}; suggestions?: string[]}

/**
 * Base of every kpx-check command: `--json` from oclif, and exit codes that survive `--json`
 * (oclif's own catch() reads err.exitCode and would turn a usage error into exit 1).
 */
export abstract class KpxCommand extends Command {
  static enableJsonFlag = true

  /**
   * Plain JSON on stdout. oclif's own logJson tokenises the text to colour it, which takes
   * gigabytes on a 5,000-node report; machines read this output, so it stays uncoloured.
   */
  logJson(json: unknown): void {
    let pending: string[] = []
    let size = 0
    const flush = () => {
      process.stdout.write(pending.join(''))
      pending = []
      size = 0
    }

    writeJson(json, (chunk) => {
      pending.push(chunk)
      size += chunk.length
      if (size > 1 << 20) flush()
    })
    flush()
  }

  /**
   * Hands a finished report to every sink: the --output files, the GitHub step summary, and stdout
   * in the --format asked for (with --json, oclif prints the returned report).
   */
  protected async emitReport(report: Report, format: ReportFormat, outputs: readonly OutputTarget[]): Promise<Report> {
    process.exitCode = report.exitCode
    // The renderers bring the rule engine's modules along: loaded once the report is there.
    const [{appendStepSummary, renderReport, writeOutputs}, {defaultColor}] = await Promise.all([import('../report/outputs.js'), import('../report/text.js')])
    await writeOutputs(report, outputs)
    await appendStepSummary(report)
    if (this.jsonEnabled()) return report
    if (format === 'json') this.logJson(report)
    else process.stdout.write(renderReport(report, format, {color: format === 'text' && defaultColor()}))
    return report
  }

  protected async catch(error: OclifError): Promise<unknown> {
    const exitCode = error.oclif?.exit ?? error.exitCode ?? 1
    process.exitCode = exitCode
    if (this.jsonEnabled()) {
      this.logJson({error: {name: error.name, message: error.message, exitCode, suggestions: error.suggestions ?? []}})
      return
    }

    if (error instanceof UsageError) this.error(error.message, {exit: exitCode, suggestions: error.suggestions})
    return super.catch(error)
  }
}

/** Flags shared by the commands that evaluate rules and gate on the verdict. */
export const checkFlags = {
  rules: Flags.string({
    description: 'Extra rule files or folders to load besides the built-in rules (repeatable).',
    multiple: true,
    helpValue: 'PATH',
  }),
  skip: Flags.string({description: 'Do not evaluate this rule (repeatable).', multiple: true, helpValue: 'RULE-ID'}),
  severity: Flags.string({
    description: 'Override a rule\'s severity (repeatable).',
    multiple: true,
    helpValue: 'RULE-ID=blocker|warning|info',
  }),
  'fail-on': Flags.string({
    description: 'Lowest failed severity that fails the run: blocker (exit 3) or warning (also exit 4).',
    options: ['blocker', 'warning'],
    default: 'blocker',
  }),
  'allow-incomplete': Flags.boolean({description: 'Exit 0 instead of 5 when a blocker could not be checked.', default: false}),
  waivers: Flags.string({
    description: 'YAML file of accepted risks (rule, subject pattern, reason, expires): waived findings are reported, not counted, until they expire.',
    helpValue: 'FILE',
  }),
  baseline: Flags.string({description: 'An earlier JSON report: the exit code gates only on findings new since then; fixed ones are listed.', helpValue: 'FILE'}),
  format: Flags.string({description: 'What stdout carries (--json is the same as --format json).', options: [...REPORT_FORMATS], default: 'text'}),
  output: Flags.string({
    description: `Also write the report to PATH, in FORMAT (${REPORT_FORMATS.join(', ')}); repeatable, all from one run.`,
    multiple: true,
    helpValue: 'FORMAT=PATH',
  }),
}

/** What the check services take from the gate flags. */
export function gateFiles(flags: {baseline?: string; waivers?: string}): {baselinePath?: string; waiversPath?: string} {
  return {...(flags.waivers === undefined ? {} : {waiversPath: flags.waivers}), ...(flags.baseline === undefined ? {} : {baselinePath: flags.baseline})}
}

/** Flags that say how to reach the cluster, as kubectl's do. */
export const connectionFlags = {
  kubeconfig: Flags.string({description: 'Path to the kubeconfig file (default: KUBECONFIG, then ~/.kube/config, then in-cluster).', helpValue: 'FILE'}),
  context: Flags.string({description: 'The kubeconfig context to use.', helpValue: 'NAME'}),
  'request-timeout': Flags.integer({description: 'Seconds to wait for each API request.', default: 30, min: 1}),
  'api-concurrency': Flags.integer({description: 'API lists read at once.', default: 4, min: 1, max: 16}),
}

export function connectionOptions(flags: {'api-concurrency': number; context?: string; kubeconfig?: string; 'request-timeout': number}) {
  return {kubeconfig: flags.kubeconfig, context: flags.context, requestTimeoutSeconds: flags['request-timeout'], concurrency: flags['api-concurrency']}
}

/** Parses --severity values: RULE-ID=blocker|warning|info. */
export function parseSeverityOverrides(values: readonly string[]): Map<string, Severity> {
  const overrides = new Map<string, Severity>()
  for (const value of values) {
    const match = /^([^=]+)=(blocker|warning|info)$/.exec(value)
    if (!match) throw new UsageError(`--severity ${value}: expected RULE-ID=blocker|warning|info`)
    overrides.set(match[1], match[2] as Severity)
  }

  return overrides
}

export function gatePolicy(flags: {'allow-incomplete': boolean; 'fail-on': string}): GatePolicy {
  return {failOn: flags['fail-on'] === 'warning' ? 'warning' : 'blocker', allowIncomplete: flags['allow-incomplete']}
}

/** What the checking commands' --help says of the plan and the outputs. */
export const PLAN_AND_OUTPUTS_DESCRIPTION = [
  'The report ends with the migration plan: fixes first, then (for clusters) the switch for the detected platform,',
  'canary, rollout, verification, cleanup and rollback. --format picks what stdout carries; --output writes more',
  'formats from the same run; in GitHub Actions the Markdown report is added to the step summary.',
].join('\n')

/** The exit-code table as it appears at the end of a command's --help. */
export const EXIT_CODES_DESCRIPTION = ['Exit codes:', ...EXIT_CODE_HELP.map((line) => `  ${line}`)].join('\n')
