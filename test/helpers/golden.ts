/**
 * Golden reports: a report in JSON, text and Markdown, compared byte for byte with the file recorded under
 * test/fixtures/golden/. A change that means to alter a report re-records them (KPX_UPDATE_GOLDEN=1 with the
 * golden test files, see test/golden/golden.test.ts) and the diff of test/fixtures/golden/ shows what it altered.
 */
import assert from 'node:assert/strict'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'

import type {Report} from '../../src/contract/report.js'
import {renderReport} from '../../src/report/render.js'
import {PACKAGE_ROOT} from '../../src/util/paths.js'
import {FIXTURES} from './paths.js'

const GOLDEN = join(FIXTURES, 'golden')
const UPDATE = process.env.KPX_UPDATE_GOLDEN === '1'

/** A report in each format a golden file holds, keyed by the file's extension. */
export type Outputs = Record<'json' | 'md' | 'txt', string>

/** The parts of a run that differ from one run or checkout to the next: the time, the test server's port, where the fixtures are. */
export function stable(text: string, generatedAt: string): string {
  return text.replaceAll(generatedAt, '<generatedAt>').replaceAll(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>').replaceAll(PACKAGE_ROOT, '<root>')
}

export function outputsOf(report: Report): Outputs {
  const {generatedAt} = report
  return {
    json: stable(renderReport(report, 'json'), generatedAt),
    txt: stable(renderReport(report, 'text'), generatedAt),
    md: stable(renderReport(report, 'markdown'), generatedAt),
  }
}

/** Compares each output with its golden file, `<name>.<key>` (a name may hold a folder), or writes it under KPX_UPDATE_GOLDEN=1. */
export function compareGolden(name: string, outputs: Readonly<Record<string, string>>): void {
  for (const [extension, actual] of Object.entries(outputs)) {
    const file = join(GOLDEN, `${name}.${extension}`)
    if (UPDATE) {
      mkdirSync(dirname(file), {recursive: true})
      writeFileSync(file, actual)
      continue
    }

    assert.ok(existsSync(file), `${file} is missing: record it with KPX_UPDATE_GOLDEN=1`)
    assert.equal(actual, readFileSync(file, 'utf8'), `${name}.${extension} differs from its golden file`)
  }
}
