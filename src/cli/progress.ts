/**
 * How a run shows progress. stdout carries only the result, so progress always goes to stderr:
 * nothing with --json, a live task list on a terminal, plain lines otherwise (CI logs).
 */
import {printable, printableLines} from '../report/printable.js'
import {type ProgressStep, type ProgressTask, runSilently, type StepRunner} from '../services/progress.js'
import {colorWanted, uncoloredStderr} from './color.js'

type ProgressMode = 'lines' | 'live' | 'silent'

export function progressMode(options: {json: boolean; stderrIsTTY: boolean}): ProgressMode {
  if (options.json) return 'silent'
  return options.stderrIsTTY ? 'live' : 'lines'
}

const RENDERERS = {live: 'default', lines: 'simple'} as const

/** Errors the progress line has shown (✖ and the message): the command's error handler does not say them again. */
const shownFailures = new WeakSet<object>()

/** Whether a step's progress line has shown this error already. */
export function shownByProgress(error: unknown): boolean {
  return typeof error === 'object' && error !== null && shownFailures.has(error)
}

/** In logs, a changing status is written at most this often. */
const STATUS_LINE_EVERY_MS = 5000

/** The step runner for a mode: listr2 on stderr, loaded only when something is shown. */
export function progressRunner(mode: ProgressMode): StepRunner {
  if (mode === 'silent') return runSilently
  return async <Context extends object>(steps: Array<ProgressStep<Context>>, context: Context) => {
    const {Listr, ListrLogger, ProcessOutput} = await import('listr2')
    const stderr = colorWanted(process.stderr) ? process.stderr : uncoloredStderr()
    const logger = new ListrLogger({processOutput: new ProcessOutput(stderr, stderr)})
    const tasks = steps.map((step) => {
      let shortfall: string | undefined
      let endedShort = false
      return {
        title: step.title,
        task: async (shared: Context, task: {output: string; title: string}) => {
          const shown = statusShownAs(mode, task, (text) => (shortfall = text))
          try {
            await step.task(shared, shown.task)
          } catch (error) {
            // listr2 shows the message on the failed line as it is: with its controls visible, as every message.
            if (error instanceof Error) {
              error.message = printableLines(error.message)
              shownFailures.add(error)
            }

            throw error
          } finally {
            shown.stop()
          }

          // listr2 marks a task failed only when it throws: this error marks the line, and ends nothing.
          if (shortfall !== undefined) {
            endedShort = true
            throw new Error(shortfall)
          }
        },
        // A step that fell short is done, and the run goes on; any other error ends it.
        exitOnError: () => !endedShort,
      }
    })
    const list = new Listr<Context, 'default' | 'simple', 'simple'>(tasks, {
      ctx: context,
      renderer: RENDERERS[mode],
      rendererOptions: {logger},
      fallbackRenderer: 'simple',
      fallbackRendererOptions: {logger},
      // The mode was chosen from stderr, where the output goes; listr2 would look at stdout.
      fallbackRendererCondition: false,
      exitOnError: true,
      registerSignalListeners: false,
    })
    return list.run()
  }
}

/**
 * A listr task as a ProgressTask: on a terminal a status joins the title as it changes; in logs it
 * is written as the task's output every few seconds, so a long probe neither floods nor goes quiet.
 */
function statusShownAs(mode: 'lines' | 'live', task: {output: string; title: string}, fellShort: (shortfall: string) => void): {stop(): void; task: ProgressTask} {
  const baseTitle = task.title
  let latest: string | undefined
  const ticker =
    mode === 'lines'
      ? setInterval(() => {
          if (latest !== undefined) task.output = latest
        }, STATUS_LINE_EVERY_MS)
      : undefined
  return {
    task: {
      get title() {
        return task.title
      },
      set title(title: string) {
        task.title = printable(title)
      },
      get output() {
        return task.output
      },
      set output(output: string) {
        task.output = printable(output)
      },
      status(text) {
        latest = printable(text)
        if (mode === 'live') task.title = `${baseTitle}: ${latest}`
      },
      fellShort(shortfall) {
        fellShort(printable(shortfall))
      },
    },
    stop: () => clearInterval(ticker),
  }
}
