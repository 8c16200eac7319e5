import {Command, type Interfaces} from '@oclif/core'
import {fstatSync, writeFileSync} from 'node:fs'

import {EXIT_CODES} from '../contract/exit-codes.js'
import type {FleetReport} from '../contract/fleet.js'
import type {Report} from '../contract/report.js'
import {type ReportFormat} from '../report/formats.js'
import {writeJson} from '../report/json.js'
import {printableLines} from '../report/printable.js'
import type {RenderOptions} from '../report/render.js'
import type {StepRunner} from '../services/progress.js'
import {UsageError} from '../util/errors.js'
import {colorWanted} from './color.js'
import type {OutputTarget} from './output-targets.js'
import {progressMode, progressRunner} from './progress.js'

/** stdout redirected to a file or a device (not a terminal, pipe or socket). */
function stdoutIsFile(): boolean {
  const stat = fstatSync(1)
  return stat.isFile() || (stat.isCharacterDevice() && !process.stdout.isTTY)
}

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
      this.writeStdout(pending.join(''))
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
   * What stdout carries: --format, which --json makes json. Given both, they must agree: `--json --format
   * markdown` would otherwise print JSON to whoever asked for Markdown.
   */
  protected stdoutFormat(parsed: {flags: {format: string}; metadata: Interfaces.ParserOutput['metadata']}): ReportFormat {
    const {format} = parsed.flags
    if (this.jsonEnabled() && format !== 'json' && !parsed.metadata.flags.format?.setFromDefault) {
      throw new UsageError(`--json and --format ${format} ask for different outputs on stdout`, [
        `Drop --json for ${format}, or drop --format for JSON (--json is the same as --format json); --output writes more formats from the same run.`,
      ])
    }

    return format as ReportFormat
  }

  /**
   * Hands a finished report to every sink: the --output files, the GitHub step summary, and stdout
   * in the --format asked for (with --json, oclif prints the returned report).
   */
  protected async emitReport(report: Report, format: ReportFormat, outputs: readonly OutputTarget[], sarifLocation?: string): Promise<Report> {
    // The renderers bring the rule engine's modules along: loaded once the report is there.
    const {renderReport} = await import('../report/render.js')
    await this.emit(report, report.exitCode, (as, options) => renderReport(report, as, options), format, outputs, sarifLocation)
    return report
  }

  /** A fleet's report, to the same sinks as one cluster's; its exit code is its worst cluster's. */
  protected async emitFleetReport(fleet: FleetReport, format: ReportFormat, outputs: readonly OutputTarget[], sarifLocation?: string): Promise<FleetReport> {
    const {renderFleet} = await import('../report/fleet.js')
    await this.emit(fleet, fleet.summary.exitCode, (as, options) => renderFleet(fleet, as, options), format, outputs, sarifLocation)
    return fleet
  }

  private async emit(result: object, exitCode: number, render: (format: ReportFormat, options: RenderOptions) => string, format: ReportFormat, outputs: readonly OutputTarget[], sarifLocation?: string): Promise<void> {
    process.exitCode = exitCode
    const {appendStepSummary, writeOutputs} = await import('./outputs.js')
    if (!this.jsonEnabled()) {
      if (format === 'json') this.logJson(result)
      else {
        // A terminal gets its width; a pipe or a file gets lines whole, for grep.
        const width = process.stdout.isTTY ? process.stdout.columns : undefined
        this.writeStdout(render(format, {color: format === 'text' && colorWanted(process.stdout), sarifLocation, width}))
      }
    }

    // The report is out first; a file that could not be written is then said, and exit 2 wins over the
    // verdict's code: a pipeline that reads that file must not go on without it.
    try {
      const uncolored = (as: ReportFormat) => render(as, {sarifLocation})
      await writeOutputs(uncolored, outputs)
      await appendStepSummary(uncolored)
    } catch (error) {
      if (!(error instanceof UsageError)) throw error
      process.stderr.write(`kpx-check: ${printableLines(error.message)}\n`)
      process.exitCode = EXIT_CODES.usageError
    }
  }

  /** Set once stdout has failed: nothing more is written there. */
  private stdoutFailed = false
  /** Whether stdout goes to a file or a device, looked at once (the JSON comes in many chunks). */
  private stdoutToFile?: boolean

  /**
   * Writes the result to stdout. Redirected to a file or a device, it is written here, synchronously, so that a
   * full disk is said in one line on stderr with exit 2 and nothing more is tried (Node's stream would
   * raise it where nothing can catch it). A pipe closed early (`| head`) is oclif's to ignore.
   */
  protected writeStdout(text: string): void {
    if (this.stdoutFailed) return
    try {
      this.stdoutToFile ??= stdoutIsFile()
      if (this.stdoutToFile) writeFileSync(1, text)
      else process.stdout.write(text)
    } catch (error) {
      this.stdoutFailed = true
      process.stderr.write(`kpx-check: cannot write to standard output: ${(error as Error).message}\n`)
      process.exitCode = EXIT_CODES.usageError
    }
  }

  /** How this run shows progress on stderr: not at all with --json, live on a terminal, in lines in logs. */
  protected progress(): StepRunner {
    return progressRunner(progressMode({json: this.jsonEnabled(), stderrIsTTY: Boolean(process.stderr.isTTY)}))
  }

  protected async catch(error: OclifError): Promise<unknown> {
    const exitCode = error.oclif?.exit ?? error.exitCode ?? 1
    process.exitCode = exitCode
    if (this.jsonEnabled()) {
      this.logJson({error: {name: error.name, message: error.message, exitCode, suggestions: error.suggestions ?? []}})
      return
    }

    // A message may quote a file, a name or an answer from a server: shown with its controls visible.
    if (error instanceof UsageError) this.error(printableLines(error.message), {exit: exitCode, suggestions: error.suggestions.map((line) => printableLines(line))})
    error.message = printableLines(error.message)
    return super.catch(error)
  }
}
