import type {Report} from '../contract/report.js'
import type {ReportFormat} from './formats.js'
import {jsonText} from './json.js'
import {renderJunit} from './junit.js'
import {renderMarkdown} from './markdown.js'
import {renderSarif} from './sarif.js'
import {renderScreen} from './text-screen.js'
import {renderText} from './text.js'

/** How a format is rendered besides the report: colours on a terminal, the file SARIF results are placed at. */
export interface RenderOptions {
  color?: boolean
  sarifLocation?: string
  /** Text on a terminal: its width, to which prose lines are wrapped (--details) or cut (one screen). */
  width?: number
  /** Text: the long form, with every finding's message and fix and the plan's commands (--details). */
  details?: boolean
}

/** Every output renders the same report, so JSON, JUnit, SARIF and Markdown cannot disagree. */
export function renderReport(report: Report, format: ReportFormat, options: RenderOptions = {}): string {
  switch (format) {
    case 'text': {
      const text = {color: options.color ?? false, width: options.width}
      return `${options.details ? renderText(report, text) : renderScreen(report, text)}\n`
    }

    case 'json': {
      return jsonText(report, {pretty: true})
    }

    case 'markdown': {
      return renderMarkdown(report)
    }

    case 'junit': {
      return renderJunit(report)
    }

    case 'sarif': {
      return renderSarif(report, options.sarifLocation)
    }
  }
}
