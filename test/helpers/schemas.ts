import {Ajv} from 'ajv'
import addFormats from 'ajv-formats'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {FLEET_SCHEMA} from '../../src/contract/fleet-schema.js'
import {REPORT_SCHEMA} from '../../src/contract/report-schema.js'
import {FIXTURES} from './paths.js'

export const SARIF_SCHEMA = JSON.parse(readFileSync(join(FIXTURES, 'schemas', 'sarif-schema-2.1.0.json'), 'utf8')) as object

/**
 * The OASIS schema is written in JSON Schema draft-04, for which ajv 8 has no meta-schema. ajv's
 * draft-07 validator reads it as draft-04 means it once the draft-04 `id` keyword (which ajv 8
 * refuses) is set aside and the meta-schema check is skipped; the SARIF tests check that the schema
 * uses nothing whose meaning changed between the two drafts.
 */
const sarifAjv = new Ajv({allErrors: true, strict: false, validateSchema: false})
sarifAjv.removeKeyword('id')
addFormats.default(sarifAjv)
export const validateSarif = sarifAjv.compile(SARIF_SCHEMA)

const reportAjv = new Ajv({allErrors: true, strict: false})
addFormats.default(reportAjv)
/** The published report schema (`kpx-check schema`). */
export const validateReport = reportAjv.compile(REPORT_SCHEMA)
/** The published fleet report schema (`kpx-check schema --fleet`), each cluster's report checked against the report schema inside it. */
export const validateFleet = reportAjv.compile(FLEET_SCHEMA)

/** The official JUnit schema the Jenkins xUnit plugin checks reports against; xmllint reads it. */
export const JUNIT_XSD = join(FIXTURES, 'schemas', 'junit-10.xsd')
