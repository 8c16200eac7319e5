import {Command} from '@oclif/core/command'
import type * as Interfaces from '@oclif/core/interfaces'
import {toConfiguredId} from '@oclif/core/util/ids'
import {fstatSync, writeFileSync} from 'node:fs'

import {EXIT_CODES} from '../contract/exit-codes.js'
import type {FleetReport} from '../contract/fleet.js'
import type {Report} from '../contract/report.js'
import {type ReportFormat} from '../report/formats.js'
import {writeJsonUtf8} from '../report/json.js'
import {printableLines} from '../report/printable.js'
import type {RenderOptions} from '../report/render.js'
import type {StepRunner} from '../services/progress.js'
import {UsageError} from '../util/errors.js'
import {colorWanted} from './color.js'
import {type ConfigFile, configFileOf, configFlags, configuredCommands, gateLowering, readConfigFile, withFileDefaults} from './config-file.js'
import {conciseParseError} from './flag-errors.js'
import {type OutputTarget, stdoutFormatsAsked, wideAsked} from './output-targets.js'
import {progressMode, progressRunner, shownByProgress} from './progress.js'

/** stdout redirected to a file or a device (not a terminal, pipe or socket). */
function stdoutIsFile(): boolean {
  const stat = fstatSync(1)
  return stat.isFile() || (stat.isCharacterDevice() && !process.stdout.isTTY)
}

/** What oclif's parser returns for flags and args (its FlagOutput, which @oclif/core does not export). */
type FlagValues = Record<string, unknown>

type OclifError = Error & {exitCode?: number; oclif?: {exit?: number}; suggestions?: string[]}

/** A report (or a fleet's) rendered in a format. */
type Renderer = (format: ReportFormat, options: RenderOptions) => string

/**
 * Base of every kpx-check command: `--json` from oclif, and exit codes that survive `--json`
 * (oclif's own catch() reads err.exitCode and would turn a usage error into exit 1).
 */
export abstract class KpxCommand extends Command {
  static enableJsonFlag = true

  /**
   * Plain JSON on stdout: laid out for a person on a terminal, on one line for a program (a pipe, a
   * file), which a 5,000-node report reaches a fifth sooner. oclif's own logJson tokenises the text
   * to colour it, which takes gigabytes on such a report, so it stays uncoloured.
   */
  logJson(json: unknown): void {
    writeJsonUtf8(json, (piece) => this.writeStdout(piece), {pretty: Boolean(process.stdout.isTTY)})
  }

  /** The configuration file this run read, if any, and the flags whose values it gave. */
  private configUsed?: {file: ConfigFile; flags: Set<string>}

  /**
   * oclif's parse, with the configuration file's values as the flags' defaults for the commands that take
   * --config: oclif then lets the command line win, a given list replace the file's, and says which came
   * from the file (setFromDefault). The file is validated against its schema first, so its mistakes name
   * FILE:LINE:COLUMN rather than a flag the user never typed.
   */
  protected async parse<F extends FlagValues, B extends FlagValues, A extends FlagValues>(
    options?: Interfaces.Input<F, B, A>,
    argv: string[] = this.argv,
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    const input = options ?? (this.ctor as unknown as Interfaces.Input<F, B, A>)
    const choice = input.flags?.config === configFlags.config ? configFileOf(argv) : undefined
    const file = choice && (await readConfigFile(choice, () => configuredCommands(this.config)))
    if (!file) return super.parse(input, argv)
    process.stderr.write(`kpx-check: configuration from ${printableLines(file.file)}\n`)
    this.configUsed = {file, flags: new Set()}
    const flags = withFileDefaults(input.flags as Interfaces.FlagInput, file.values(this.id ?? ''), this.configUsed.flags)
    // A command class's inherited statics are not spread: oclif reads these two by name.
    return super.parse({...input, baseFlags: input.baseFlags, enableJsonFlag: input.enableJsonFlag, flags: flags as Interfaces.FlagInput<F>}, argv)
  }

  /**
   * What stdout carries: --format, -o FORMAT (kubectl's habit), or --json. Given more than one, they must agree:
   * `--json --format markdown` would otherwise print JSON to whoever asked for Markdown.
   */
  protected stdoutFormat(parsed: {flags: {format: string; output?: string[]}; metadata: Interfaces.ParserOutput['metadata']}): ReportFormat {
    const {format} = parsed.flags
    const asked = [
      ...(this.jsonEnabled() ? [{flag: '--json', format: 'json'}] : []),
      ...(parsed.metadata.flags.format?.setFromDefault ? [] : [{flag: `--format ${format}`, format}]),
      ...stdoutFormatsAsked(parsed.flags.output ?? []).map((as) => ({flag: `-o ${as}`, format: as})),
    ]
    const other = asked.find(({format: as}) => as !== asked[0].format)
    if (other) {
      throw new UsageError(`${asked[0].flag} and ${other.flag} ask for different outputs on stdout`, [
        `Keep one of them (--json is the same as -o json and --format json); --output FORMAT=PATH writes more formats from the same run.`,
      ])
    }

    return (asked[0]?.format ?? format) as ReportFormat
  }

  /** The long form of the text report: --details, or -o wide as kubectl users type it. */
  protected detailsAsked(flags: {details?: boolean; output?: string[]}): boolean {
    return flags.details === true || wideAsked(flags.output ?? [])
  }

  /**
   * Hands a finished report to every sink: the --output files, the GitHub step summary, and stdout
   * in the --format asked for (with --json, oclif prints the returned report).
   */
  protected async emitReport(checked: Report, format: ReportFormat, outputs: readonly OutputTarget[], sarifLocation?: string, details = false): Promise<Report> {
    const report = this.withConfig(checked)
    await this.emit(report, report.exitCode, async () => {
      const {renderReport} = await import('../report/render.js')
      return (as, options) => renderReport(report, as, {details, ...options})
    }, format, outputs, sarifLocation)
    return report
  }

  /** A fleet's report, to the same sinks as one cluster's; its exit code is its worst cluster's. */
  protected async emitFleetReport(checked: FleetReport, format: ReportFormat, outputs: readonly OutputTarget[], sarifLocation?: string): Promise<FleetReport> {
    const fleet = this.withConfig(checked)
    await this.emit(fleet, fleet.summary.exitCode, async () => {
      const {renderFleet} = await import('../report/fleet.js')
      return (as, options) => renderFleet(fleet, as, options)
    }, format, outputs, sarifLocation)
    return fleet
  }

  /**
   * `loadRenderer` brings the renderers' modules: loaded only when something is rendered, not for the
   * JSON alone.
   */
  private async emit(result: object, exitCode: number, loadRenderer: () => Promise<Renderer>, format: ReportFormat, outputs: readonly OutputTarget[], sarifLocation?: string): Promise<void> {
    process.exitCode = exitCode
    if (!this.jsonEnabled()) {
      if (format === 'json') this.logJson(result)
      else {
        // A terminal gets its width; a pipe or a file gets lines whole, for grep.
        const width = process.stdout.isTTY ? process.stdout.columns : undefined
        const render = await loadRenderer()
        this.writeStdout(render(format, {color: format === 'text' && colorWanted(process.stdout), sarifLocation, width}))
      }
    }

    const {appendStepSummary, writeOutputs} = await import('./outputs.js')
    // The report is out first; a file that could not be written is then said, and exit 2 wins over the
    // verdict's code: a pipeline that reads that file must not go on without it.
    try {
      // A file is read at leisure, not on a screen: its text is the long form.
      const uncolored = async (as: ReportFormat) => (await loadRenderer())(as, {sarifLocation, details: true})
      await writeOutputs(uncolored, outputs)
      await appendStepSummary(uncolored)
    } catch (error) {
      if (!(error instanceof UsageError)) throw error
      process.stderr.write(`kpx-check: ${printableLines(error.message)}\n`)
      process.exitCode = EXIT_CODES.usageError
    }
  }

  /** The report (or the fleet's) with the configuration file named, after the run's other metadata. */
  private withConfig<T extends FleetReport | Report>(result: T): T {
    if (!this.configUsed) return result
    const lowers = gateLowering(this.configUsed.file, this.id ?? '', this.configUsed.flags)
    const config = {file: this.configUsed.file.file, flags: [...this.configUsed.flags].toSorted(), ...(lowers.length > 0 ? {lowers} : {})}
    const entries = Object.entries(result)
    const afterMetadata = entries.findIndex(([key]) => key === 'generatedAt') + 1
    return Object.fromEntries([...entries.slice(0, afterMetadata), ['config', config], ...entries.slice(afterMetadata)]) as T
  }

  /** Where the configuration file set the flags an error names: the user may not have typed them. */
  private configOrigins(message: string): string[] {
    if (!this.configUsed) return []
    const values = this.configUsed.file.values(this.id ?? '')
    const named = new Set([...message.matchAll(/--([a-z][a-z-]*)/g)].map((match) => match[1]))
    return [...named].filter((name) => this.configUsed!.flags.has(name)).map((name) => `--${name} is set by ${values.get(name)!.origin}.`)
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
  protected writeStdout(text: string | Uint8Array): void {
    if (this.stdoutFailed) return
    try {
      this.stdoutToFile ??= stdoutIsFile()
      if (this.stdoutToFile) writeFileSync(1, text)
      else process.stdout.write(text)
    } catch (error) {
      this.stdoutFailed = true
      // oclif's last flush writes '' to stdout once more, which a full device refuses too, and oclif rethrows that
      // (a stack trace, exit 1); Node never really closes stdout, so later writes are dropped here instead.
      process.stdout.write = () => true
      process.stderr.write(`kpx-check: cannot write to standard output: ${(error as Error).message}\n`)
      process.exitCode = EXIT_CODES.usageError
    }
  }

  /** How this run shows progress on stderr: not at all with --json, live on a terminal, in lines in logs. */
  protected progress(): StepRunner {
    return progressRunner(progressMode({json: this.jsonEnabled(), stderrIsTTY: Boolean(process.stderr.isTTY)}))
  }

  protected async catch(error: OclifError): Promise<unknown> {
    const parseError = conciseParseError(error, {...this.ctor.baseFlags, ...this.ctor.flags}, `${this.config.bin} ${toConfiguredId(this.id ?? '', this.config)}`)
    if (parseError) return this.catch(parseError)
    const exitCode = error.oclif?.exit ?? error.exitCode ?? 1
    process.exitCode = exitCode
    const suggestions = [...(error.suggestions ?? []), ...(error instanceof UsageError ? this.configOrigins(error.message) : [])]
    if (this.jsonEnabled()) {
      this.logJson({error: {name: error.name, message: error.message, exitCode, suggestions}})
      return
    }

    // The failed step's progress line said it (✖ and the message): only what to do is left to say.
    if (shownByProgress(error)) {
      for (const line of suggestions) process.stderr.write(`Try this: ${printableLines(line)}\n`)
      return
    }

    // A message may quote a file, a name or an answer from a server: shown with its controls visible.
    if (error instanceof UsageError) this.error(printableLines(error.message), {exit: exitCode, suggestions: suggestions.map((line) => printableLines(line))})
    error.message = printableLines(error.message)
    return super.catch(error)
  }
}
