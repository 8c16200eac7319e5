/**
 * How a run shows progress. stdout carries only the result, so progress always goes to stderr:
 * nothing with --json, a live task list on a terminal, plain lines otherwise (CI logs).
 */
export type ProgressMode = 'lines' | 'live' | 'silent'

export function progressMode(options: {json: boolean; stderrIsTTY: boolean}): ProgressMode {
  if (options.json) return 'silent'
  return options.stderrIsTTY ? 'live' : 'lines'
}

/** What a task writes to its line in the progress view. */
export interface ProgressTask {
  title: string
  output: string
}

/** One step of a run, a line in the progress view. */
export interface ProgressStep<Context> {
  title: string
  task(context: Context, progress: ProgressTask): Promise<void> | void
}

const RENDERERS = {live: 'default', lines: 'simple'} as const

/** Runs the tasks in order with the chosen renderer on stderr; the first error stops the run and is rethrown. */
export async function runWithProgress<Context extends object>(mode: ProgressMode, tasks: Array<ProgressStep<Context>>, context: Context): Promise<Context> {
  if (mode === 'silent') {
    // Nothing to show: the tasks run in turn, without loading listr2.
    for (const step of tasks) await step.task(context, {title: step.title, output: ''})
    return context
  }

  const {Listr, ListrLogger, ProcessOutput} = await import('listr2')
  const logger = new ListrLogger({processOutput: new ProcessOutput(process.stderr, process.stderr)})
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
