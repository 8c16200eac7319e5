/** Where a report (or a fleet's) goes besides stdout: --output files and the GitHub Actions step summary. Loaded once the report exists. */
import {appendFile, writeFile} from 'node:fs/promises'

import type {ReportFormat} from '../report/formats.js'
import {UsageError} from '../util/errors.js'
import {checkWritesInside} from '../util/user-file.js'
import type {OutputTarget} from './output-targets.js'

/**
 * Writes every output; one that fails does not stop the others (kube-linter's rule), and the
 * failures are reported together afterwards.
 */
export async function writeOutputs(render: (format: ReportFormat) => Promise<string>, targets: readonly OutputTarget[]): Promise<void> {
  const failures: string[] = []
  for (const target of targets) {
    try {
      // Again, just before writing: a link made while the cluster was read leads out as well.
      checkWritesInside(`${target.format}`, target.path)
      await writeFile(target.path, await render(target.format))
    } catch (error) {
      failures.push(`${target.format}=${target.path}: ${(error as Error).message}`)
    }
  }

  if (failures.length > 0) throw new UsageError(`could not write --output ${failures.join('; ')}`)
}

/** In GitHub Actions, the Markdown report goes on the run's summary page as well. */
export async function appendStepSummary(render: (format: ReportFormat) => Promise<string>, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const path = env.GITHUB_STEP_SUMMARY
  if (!path) return
  try {
    await appendFile(path, `${await render('markdown')}\n`)
  } catch (error) {
    throw new UsageError(`GITHUB_STEP_SUMMARY ${path}: ${(error as Error).message}`)
  }
}
