import {Listr, ListrLogger, type ListrTask, ProcessOutput} from 'listr2'

/**
 * How a run shows progress. stdout carries only the result, so progress always goes to stderr:
 * nothing with --json, a live task list on a terminal, plain lines otherwise (CI logs).
 */
export type ProgressMode = 'lines' | 'live' | 'silent'

export function progressMode(options: {json: boolean; stderrIsTTY: boolean}): ProgressMode {
  if (options.json) return 'silent'
  return options.stderrIsTTY ? 'live' : 'lines'
}

const RENDERERS = {live: 'default', lines: 'simple', silent: 'silent'} as const

/** Runs the tasks in order with the chosen renderer on stderr; the first error stops the run and is rethrown. */
export async function runWithProgress<Context extends object>(mode: ProgressMode, tasks: Array<ListrTask<Context>>, context: Context): Promise<Context> {
  const logger = new ListrLogger({processOutput: new ProcessOutput(process.stderr, process.stderr)})
  const list = new Listr<Context, 'default' | 'silent' | 'simple', 'simple'>(tasks, {
    ctx: context,
    renderer: RENDERERS[mode],
    rendererOptions: {logger},
    fallbackRenderer: 'simple',
    fallbackRendererOptions: {logger},
    // The mode was chosen from stderr, where the output goes; listr2 would look at stdout.
    fallbackRendererCondition: false,
    silentRendererCondition: mode === 'silent',
    exitOnError: true,
    registerSignalListeners: false,
  })
  return list.run()
}
