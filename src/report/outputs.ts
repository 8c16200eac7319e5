import {appendFile, writeFile} from 'node:fs/promises'

import type {Report} from '../contract/report.js'
import {UsageError} from '../util/errors.js'
import type {OutputTarget, ReportFormat} from './formats.js'
import {writeJson} from './json.js'
import {renderJunit} from './junit.js'
import {renderMarkdown} from './markdown.js'
import {renderSarif} from './sarif.js'
import {renderText} from './text.js'

/** Every output renders the same report, so JSON, JUnit, SARIF and Markdown cannot disagree. */
export function renderReport(report: Report, format: ReportFormat, options: {color?: boolean} = {}): string {
  switch (format) {
    case 'text': {
      return `${renderText(report, {color: options.color ?? false})}\n`
    }

    case 'json': {
      const chunks: string[] = []
      writeJson(report, (chunk) => chunks.push(chunk))
      return chunks.join('')
    }

    case 'markdown': {
      return renderMarkdown(report)
    }

    case 'junit': {
      return renderJunit(report)
    }

    case 'sarif': {
      return renderSarif(report)
    }
  }
}

/**
 * Writes every output; one that fails does not stop the others (kube-linter's rule), and the
 * failures are reported together afterwards.
 */
export async function writeOutputs(report: Report, targets: readonly OutputTarget[]): Promise<void> {
  const failures: string[] = []
  for (const target of targets) {
    try {
      await writeFile(target.path, renderReport(report, target.format))
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
