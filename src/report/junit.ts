import {type GatedFinding, groupByRule, isWaived} from '../contract/finding.js'
import type {Report} from '../contract/report.js'
import {subjectPath} from '../contract/subject.js'
import {messageOf, statusWithReason, waiverNote} from './finding-notes.js'
import {printableLines} from './printable.js'

// JUnit XML as the Jenkins xUnit plugin's junit-10.xsd has it, which GitLab and the GitHub test-report
// actions read too: a test suite per rule, a test case per finding (rule × subject). That schema has
// no `skipped` count and no properties on <testsuites>: they are on each <testsuite>.

/** How a test reads: a failure, a skip, a pass (with a note, for a failed info finding), or an error (a cluster not checked). */
type TestResult =
  | {kind: 'error'; message: string; type: string}
  | {kind: 'failure'; message: string; type: 'blocker' | 'warning'; details: string}
  | {kind: 'passed'; note?: string}
  | {kind: 'skipped'; message: string}

interface TestCase {
  classname: string
  name: string
  result: TestResult
}

/** A <testsuite>: its cases, when they ran, and what it says of the report they come from. */
export interface TestSuite {
  name: string
  cases: TestCase[]
  timestamp: string
  properties: Array<[string, number | string]>
}

export function renderJunit(report: Report): string {
  const suites = [...groupByRule(report.findings)].map(([rule, findings]) => ({
    name: rule,
    cases: findings.map((finding) => findingCase(finding)),
    timestamp: report.generatedAt,
    properties: reportProperties(report),
  }))
  return junitDocument('kpx-check', suites)
}

/** The JUnit document of these suites, its totals summed from them. */
export function junitDocument(name: string, suites: TestSuite[]): string {
  const cases = suites.flatMap((suite) => suite.cases)
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${attribute(name)}" tests="${cases.length}" failures="${count(cases, 'failure')}" errors="${count(cases, 'error')}" time="0">`,
    ...suites.flatMap((suite) => renderSuite(suite)),
    '</testsuites>',
  ].join('\n')
}

/** A report's verdict and exit code, as each of its suites carries them. */
export function reportProperties(report: Report): TestSuite['properties'] {
  return [
    ['verdict', report.verdict],
    ['exitCode', report.exitCode],
  ]
}

/** A finding as a test case: the rule is its class, the subject its name. */
export function findingCase(finding: GatedFinding): TestCase {
  return {classname: finding.rule, name: subjectPath(finding.subject), result: testResult(finding)}
}

function testResult(finding: GatedFinding): TestResult {
  if (isWaived(finding)) return {kind: 'skipped', message: waiverNote(finding.waiver!)}
  switch (finding.status) {
    case 'fail': {
      // Info findings are notes, not failures: the test passes and the note is in its output.
      if (finding.severity === 'info') return {kind: 'passed', note: details(finding)}
      return {kind: 'failure', type: finding.severity, message: `${finding.severity === 'warning' ? '[warning] ' : ''}${messageOf(finding)}`, details: details(finding)}
    }

    case 'unknown':
    case 'skip': {
      return {kind: 'skipped', message: `${statusWithReason(finding)}: ${messageOf(finding)}`}
    }

    case 'pass': {
      return {kind: 'passed'}
    }
  }
}

function count(cases: TestCase[], kind: TestResult['kind']): number {
  return cases.filter((testCase) => testCase.result.kind === kind).length
}

function renderSuite(suite: TestSuite): string[] {
  const {cases} = suite
  return [
    `  <testsuite name="${attribute(suite.name)}" tests="${cases.length}" failures="${count(cases, 'failure')}" errors="${count(cases, 'error')}" skipped="${count(cases, 'skipped')}" time="0" timestamp="${attribute(suite.timestamp)}">`,
    '    <properties>',
    ...suite.properties.map(([name, value]) => `      <property name="${attribute(name)}" value="${attribute(String(value))}"/>`),
    '    </properties>',
    ...cases.map((testCase) => renderCase(testCase)),
    '  </testsuite>',
  ]
}

function renderCase({classname, name, result}: TestCase): string {
  const open = `    <testcase classname="${attribute(classname)}" name="${attribute(name)}" time="0"`
  switch (result.kind) {
    case 'error': {
      return `${open}>\n      <error type="${attribute(result.type)}" message="${attribute(result.message)}"/>\n    </testcase>`
    }

    case 'failure': {
      return `${open}>\n      <failure type="${result.type}" message="${attribute(result.message)}">${text(result.details)}</failure>\n    </testcase>`
    }

    case 'skipped': {
      return `${open}>\n      <skipped message="${attribute(result.message)}"/>\n    </testcase>`
    }

    case 'passed': {
      return result.note === undefined ? `${open}/>` : `${open}>\n      <system-out>${text(result.note)}</system-out>\n    </testcase>`
    }
  }
}

/** What a reader of the CI log needs: the message, what to do, where to read more, and the facts behind it. */
function section(title: string, lines: string[]): string[] {
  return lines.length > 0 ? [`${title}:`, ...lines.map((line) => `  ${line}`)] : []
}

function details(finding: GatedFinding): string {
  return [
    messageOf(finding),
    ...section('What to do', finding.remediation),
    ...section('References', finding.references.map((reference) => `${reference.title}: ${reference.url}`)),
    ...section(
      'Evidence',
      Object.entries(finding.evidence).map(([fact, value]) => `${fact} = ${typeof value === 'string' ? value : JSON.stringify(value)}`),
    ),
  ].join('\n')
}

/**
 * XML 1.0 forbids U+FFFE and U+FFFF even as references; every other character it forbids (C0 controls, lone
 * surrogates) is a control that printable() has written as a visible escape already, as it has the C1 controls
 * and the bidi and zero-width characters XML allows.
 */
const NOT_XML = /[\uFFFE\uFFFF]/gu

function text(value: string): string {
  return printableLines(value).replaceAll(NOT_XML, '\uFFFD').replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

/** Attribute values also lose their line breaks to whitespace normalisation, unless written as references. */
function attribute(value: string): string {
  return text(value).replaceAll('"', '&quot;').replaceAll("'", '&apos;').replaceAll('\n', '&#10;')
}
