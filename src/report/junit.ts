import type {GatedFinding} from '../contract/finding.js'
import type {Report} from '../contract/report.js'
import {subjectPath} from '../contract/subject.js'
import {groupByRule} from '../engine/evaluate.js'
import {isWaived} from '../planner/verdict.js'
import {messageOf, statusWithReason, waiverNote} from './finding-notes.js'

// JUnit XML as the Jenkins xUnit plugin's junit-10.xsd has it, which GitLab and the GitHub test-report
// actions read too: a test suite per rule, a test case per finding (rule × subject). That schema has
// no `skipped` count and no properties on <testsuites>: they are on each <testsuite>.

/** How a finding reads as a test: a failure, a skip, or a pass (with a note, for a failed info finding). */
type TestResult =
  | {kind: 'failure'; message: string; type: 'blocker' | 'warning'}
  | {kind: 'passed'; note: boolean}
  | {kind: 'skipped'; message: string}

interface TestCase {
  finding: GatedFinding
  result: TestResult
}

export function renderJunit(report: Report): string {
  const suites = [...groupByRule(report.findings)].map(([rule, findings]) => ({
    rule,
    cases: findings.map((finding) => ({finding, result: testResult(finding)})),
  }))
  const cases = suites.flatMap((suite) => suite.cases)
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="kpx-check" tests="${cases.length}" failures="${count(cases, 'failure')}" errors="0" time="0">`,
    ...suites.flatMap((suite) => renderSuite(suite.rule, suite.cases, report)),
    '</testsuites>',
  ].join('\n')
}

function testResult(finding: GatedFinding): TestResult {
  if (isWaived(finding)) return {kind: 'skipped', message: waiverNote(finding.waiver!)}
  switch (finding.status) {
    case 'fail': {
      // Info findings are notes, not failures: the test passes and the note is in its output.
      if (finding.severity === 'info') return {kind: 'passed', note: true}
      return {kind: 'failure', type: finding.severity, message: `${finding.severity === 'warning' ? '[warning] ' : ''}${messageOf(finding)}`}
    }

    case 'unknown':
    case 'skip': {
      return {kind: 'skipped', message: `${statusWithReason(finding)}: ${messageOf(finding)}`}
    }

    case 'pass': {
      return {kind: 'passed', note: false}
    }
  }
}

function count(cases: TestCase[], kind: TestResult['kind']): number {
  return cases.filter((testCase) => testCase.result.kind === kind).length
}

function renderSuite(rule: string, cases: TestCase[], report: Report): string[] {
  return [
    `  <testsuite name="${attribute(rule)}" tests="${cases.length}" failures="${count(cases, 'failure')}" errors="0" skipped="${count(cases, 'skipped')}" time="0" timestamp="${attribute(report.generatedAt)}">`,
    '    <properties>',
    `      <property name="verdict" value="${report.verdict}"/>`,
    `      <property name="exitCode" value="${report.exitCode}"/>`,
    '    </properties>',
    ...cases.map((testCase) => renderCase(testCase)),
    '  </testsuite>',
  ]
}

function renderCase({finding, result}: TestCase): string {
  const open = `    <testcase classname="${attribute(finding.rule)}" name="${attribute(subjectPath(finding.subject))}" time="0"`
  switch (result.kind) {
    case 'failure': {
      return `${open}>\n      <failure type="${result.type}" message="${attribute(result.message)}">${text(details(finding))}</failure>\n    </testcase>`
    }

    case 'skipped': {
      return `${open}>\n      <skipped message="${attribute(result.message)}"/>\n    </testcase>`
    }

    case 'passed': {
      return result.note ? `${open}>\n      <system-out>${text(details(finding))}</system-out>\n    </testcase>` : `${open}/>`
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

/** XML 1.0 forbids these characters even as references (C0 controls but tab and newlines, lone surrogates, U+FFFE/F). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu

function text(value: string): string {
  return value.replaceAll(NOT_XML, '\uFFFD').replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('\r', '&#13;')
}

/** Attribute values also lose their line breaks and tabs to whitespace normalisation, unless written as references. */
function attribute(value: string): string {
  return text(value).replaceAll('"', '&quot;').replaceAll('\n', '&#10;').replaceAll('\t', '&#9;')
}
