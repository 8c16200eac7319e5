/**
 * How a service tells whoever waits what it is doing: it hands its steps to a StepRunner, which the
 * CLI supplies (a task list on stderr) and tests and --json leave silent. Services never draw.
 */
import type {ProbeProgress} from '../sources/probe.js'

/** The line a step shows while it runs, and what it says when done. */
export interface ProgressTask {
  /** The step's line; a step sets it to say what it did ("Read 12 resource kinds"). */
  title: string
  /** A detail under the line, kept until the next one. */
  output: string
  /** A figure that changes while the step runs ("3 done, 1 failed, 6 remaining"): shown live, or now and then in logs. */
  status(text: string): void
  /** The step is done, but part of it failed (`shortfall` says what): its line says so instead of wearing the tick of success. */
  fellShort(shortfall: string): void
}

/** A node probe's counts, shown as the step's status as they change; `last()` gives the latest (none yet: nothing probed, every node to go). */
export function showProbeProgress(task: ProgressTask, nodes: number): {last: () => ProbeProgress; onProgress: (progress: ProbeProgress) => void} {
  let latest: ProbeProgress = {succeeded: 0, failed: 0, remaining: nodes}
  return {
    last: () => latest,
    onProgress(progress) {
      latest = progress
      task.status(`${progress.succeeded} done, ${progress.failed} failed, ${progress.remaining} remaining`)
    },
  }
}

/** One step of a run, a line in the progress view. */
export interface ProgressStep<Context> {
  title: string
  task(context: Context, progress: ProgressTask): Promise<void> | void
}

/** Runs the steps in order on the same context; the first error stops the run and is rethrown. */
export type StepRunner = <Context extends object>(steps: Array<ProgressStep<Context>>, context: Context) => Promise<Context>

/** Nothing to show: the steps run in turn. */
export const runSilently: StepRunner = async (steps, context) => {
  for (const step of steps) await step.task(context, {title: step.title, output: '', status() {}, fellShort() {}})
  return context
}
