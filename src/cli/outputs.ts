/** Where a report goes besides stdout: --output files and the GitHub Actions step summary. Loaded once the report exists. */
import {appendFile, writeFile} from 'node:fs/promises'

import type {Report} from '../contract/report.js'
import {renderMarkdown} from '../report/markdown.js'
import {type RenderOptions, renderReport} from '../report/render.js'
import {UsageError} from '../util/errors.js'
import type {OutputTarget} from './output-targets.js'

/**
 * Writes every output; one that fails does not stop the others (kube-linter's rule), and the
 * failures are reported together afterwards.
 */
export async function writeOutputs(report: Report, targets: readonly OutputTarget[], options: RenderOptions = {}): Promise<void> {
  const failures: string[] = []
  for (const target of targets) {
    try {
      await writeFile(target.path, renderReport(report, target.format, options))
    } catch (error) {
      failures.push(`${target.format}=${target.path}: ${(error as Error).message}`)
    }
  }

  if (failures.length > 0) throw new UsageError(`could not write --output ${failures.join('; ')}`)
}

/** In GitHub Actions, the Markdown report goes on the run's summary page as well. */
export async function appendStepSummary(report: Report, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const path = env.GITHUB_STEP_SUMMARY
  if (!path) return
  try {
    await appendFile(path, `${renderMarkdown(report)}\n`)
  } catch (error) {
    throw new UsageError(`GITHUB_STEP_SUMMARY ${path}: ${(error as Error).message}`)
  }
}
