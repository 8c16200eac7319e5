/**
 * Every parser of untrusted input and every renderer, over generated adversarial input (generate.ts),
 * each call within a time bound. Parsers get strings of up to 1 MiB and may refuse them only with their
 * documented error; the renderers get a report whose strings from outside (node names, OS images,
 * kernels, messages, the context, the plan's text and commands) are generated, and must print no
 * control character, well-formed XML and JSON that reads back.
 *
 * The run is deterministic: KPX_FUZZ_SEED (default below) seeds it, and a failure names the seed and
 * the input, so `KPX_FUZZ_SEED=<seed> node --test dist/test/fuzz/untrusted-input.integration.test.js` replays it.
 * Another seed explores other inputs.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it, type TestContext} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {kubeProxySettings, parseKubeProxyConfiguration} from '../../src/derive/kube-proxy-config.js'
import {BUNDLE_HEADER, BundleError} from '../../src/facts/bundle.js'
import {BUNDLE_SECTIONS} from '../../src/facts/catalog.js'
import {REPORT_FORMATS} from '../../src/report/formats.js'
import {renderReport} from '../../src/report/render.js'
import {ItemArrayCounter} from '../../src/sources/cluster/list-json.js'
import {readFlags} from '../../src/sources/cluster/read-fields.js'
import {bundleFacts} from '../helpers/bundle-facts.js'
import {skipOutsideCi} from '../helpers/ci.js'
import {countedList} from '../helpers/list-json.js'
import {nodesOf, parseMarkdown} from '../helpers/markdown.js'
import {exampleClusterReport} from '../helpers/reports.js'
import {validateReport, validateSarif} from '../helpers/schemas.js'
import {TEXT_PARSERS} from '../helpers/text-parsers.js'
import {adversarialText, BLANK_RUNS, BREAKERS, invalidUtf8, PIECES, type Random, randomFor, run, RUNS} from './generate.js'

const SEED = Number(process.env.KPX_FUZZ_SEED ?? 20_261_101)
const MIB = 1024 * 1024

/**
 * Bounds per call, measured with `t.diagnostic` (each test prints its slowest call) on this project's
 * 2-vCPU machine at load average 6–7 from other jobs: the slowest parser call took 305 ms (kubeProxySettings,
 * whose YAML parser is superlinear, on a 32 KiB run: the 32 KiB cap is why), the fact parsers at most 200 ms
 * on 1 MiB, a 1 MiB bundle read and derived 50 ms, one report in all five formats 230–680 ms. A parser
 * whose work grows with the square of its input takes seconds on a 32 KiB run (/\s+$/: 2.5 s).
 */
const PARSE_BOUND_MS = 1000
const REPORT_BOUND_MS = 3000

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-fuzz-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

/** A generated input as a failure message shows it: where it came from, how long, how it starts. */
function described(target: string, index: number, input: unknown): string {
  return `seed ${SEED}, ${target}, input #${index}${shape(input)}; replay: KPX_FUZZ_SEED=${SEED} node --test dist/test/fuzz/untrusted-input.integration.test.js`
}

function shape(input: unknown): string {
  if (typeof input === 'string') return ` (${input.length} chars, starts ${JSON.stringify(input.slice(0, 80))})`
  if (Buffer.isBuffer(input)) return ` (${input.length} bytes, starts ${JSON.stringify(input.subarray(0, 80).toString('latin1'))})`
  return ''
}

/**
 * Runs `call` on each input: it must end within the bound and throw nothing but the error it documents
 * (`refusal`); then `check` looks at what it returned, outside the time. Returns the slowest call's milliseconds.
 */
function fuzz<T, R>(
  target: string,
  inputs: readonly T[],
  options: {boundMs: number; check?: (output: R, input: T) => void; refusal?: (error: unknown, input: T) => boolean},
  call: (input: T) => R,
): number {
  let slowest = 0
  for (const [index, input] of inputs.entries()) {
    const started = performance.now()
    let output: R | undefined
    try {
      output = call(input)
    } catch (error) {
      if (!options.refusal?.(error, input)) assert.fail(`${described(target, index, input)}: threw ${String(error instanceof Error ? error.stack : error).slice(0, 2000)}`)
    }

    const took = performance.now() - started
    assert.ok(took < options.boundMs, `${described(target, index, input)}: took ${Math.round(took)} ms (bound ${options.boundMs} ms)`)
    slowest = Math.max(slowest, took)
    try {
      if (output !== undefined) options.check?.(output, input)
    } catch (error) {
      assert.fail(`${described(target, index, input)}: ${String(error instanceof Error ? error.message : error).slice(0, 2000)}`)
    }
  }

  return slowest
}

/**
 * The strings every parser reads: four runs (two of blanks, two of anything), each ended by a piece
 * that breaks it, at 32 KiB and at 1 MiB; then strings of every size up to 1 MiB, as often short as
 * long. Shortest first: a parser whose work grows with the square of its input fails its bound on a
 * 32 KiB run, in seconds, before a 1 MiB one would take minutes.
 */
function corpus(random: Random): string[] {
  const runs = [BLANK_RUNS, BLANK_RUNS, RUNS, RUNS].map((pieces) => [random.pick(pieces), random.pick(BREAKERS)] as const)
  return [
    ...runs.flatMap(([piece, breaker]) => [run(piece, breaker, 32 * 1024), run(piece, breaker, MIB)]),
    ...Array.from({length: 40}, () => adversarialText(random, random.length(MIB))),
  ].toSorted((a, b) => a.length - b.length)
}

const corpusOfParsers = corpus(randomFor(SEED, 'parsers'))


describe(`fuzz (seed ${SEED}): parsers`, () => {
  for (const [name, parse, refusal] of TEXT_PARSERS) {
    it(`${name} throws nothing it does not document, on each input within ${PARSE_BOUND_MS} ms`, (t) => {
      t.diagnostic(`slowest call: ${Math.round(fuzz(name, corpusOfParsers, {boundMs: PARSE_BOUND_MS, refusal}, parse))} ms`)
    })
  }

  it('the kube-proxy configuration and flags, shaped like real ones, give settings or undefined, never a throw', (t) => {
    const random = randomFor(SEED, 'kube-proxy')
    const inputs = Array.from({length: 400}, () => kubeProxyInput(random))
    const slowest = fuzz('kubeProxySettings (shaped)', inputs, {boundMs: PARSE_BOUND_MS}, (input) => {
      const [config, ...argv] = input.split('\u0000')
      return kubeProxySettings(parseKubeProxyConfiguration(config), readFlags(argv), '1.34.1')
    })
    t.diagnostic(`slowest call: ${Math.round(slowest)} ms`)
  })

  it('a well-formed facts bundle is read and derived; a broken one may be refused, with a BundleError only', (t) => {
    const random = randomFor(SEED, 'bundles')
    const bundles = Array.from({length: 32}, (_, index) => bundleText(random, index < 2 ? MIB : random.length(MIB))).toSorted((a, b) => a.text.length - b.text.length)
    const broken = new Set(bundles.filter((bundle) => bundle.broken).map((bundle) => bundle.text))
    const refusal = (error: unknown, text: string) => error instanceof BundleError && broken.has(text)
    const slowest = fuzz('parseBundle + deriveNodeFacts', bundles.map((bundle) => bundle.text), {boundMs: PARSE_BOUND_MS, refusal}, (text) => bundleFacts(text))
    t.diagnostic(`slowest call: ${Math.round(slowest)} ms`)
  })

  it('the list reader counts the items’ arrays of any list as JSON.parse would, and takes any bytes without throwing', (t) => {
    const random = randomFor(SEED, 'list-json')
    const lists = Array.from({length: 48}, () => Buffer.from(JSON.stringify(listOf(random))))
    const junk = Array.from({length: 16}, (_, index) => (index % 2 === 0 ? invalidUtf8(random, random.length(MIB)) : Buffer.from(adversarialText(random, random.length(MIB)))))
    const read = (bytes: Buffer) => {
      const counter = new ItemArrayCounter('endpoints', 'endpointCount')
      for (let offset = 0; offset < bytes.length; ) {
        const size = 1 + random.below(4096)
        counter.write(bytes.subarray(offset, offset + size))
        offset += size
      }

      assert.equal(counter.received, bytes.length)
      return counter.end()
    }

    const slowest = Math.max(
      fuzz('ItemArrayCounter on lists', lists, {boundMs: PARSE_BOUND_MS, check: (text, bytes) => assert.deepEqual(JSON.parse(text), countedList(JSON.parse(bytes.toString('utf8'))))}, read),
      fuzz('ItemArrayCounter on junk', junk, {boundMs: PARSE_BOUND_MS}, read),
    )
    t.diagnostic(`slowest call: ${Math.round(slowest)} ms`)
  })
})

describe(`fuzz (seed ${SEED}): renderers`, () => {
  /** C0 controls but the line break, DEL, C1, and the Unicode controls that reorder or hide text. */
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point
  const CONTROLS = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u061C\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/u
  /** What XML 1.0 does not allow in a document (§2.2), lone surrogate halves included. */
  const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u

  it('every format renders a report of generated strings in time: no controls in text or Markdown, XML and JSON that read back', async (t) => {
    const base = await exampleClusterReport()
    const random = randomFor(SEED, 'renderers')
    const reports = Array.from({length: 20}, (_, index) => untrustedReport(base, random, index < 2 ? 64 * 1024 : random.length(1024)))
    const junitFiles: string[] = []
    const check = (out: Record<string, string>, report: Report) => {
      for (const format of ['text', 'text --details', 'markdown']) assert.doesNotMatch(out[format], CONTROLS, `${format} prints a control character`)
      assert.doesNotMatch(out.junit, NOT_XML, 'JUnit has a character XML forbids')
      const file = join(workdir, `junit-${junitFiles.length}.xml`)
      writeFileSync(file, out.junit)
      junitFiles.push(file)
      const read = JSON.parse(out.json) as Report
      assert.ok(validateReport(read), JSON.stringify(validateReport.errors))
      assert.deepEqual(read.nodes.map((node) => node.name), report.nodes.map((node) => node.name), 'JSON keeps every string as it was')
      assert.ok(validateSarif(JSON.parse(out.sarif)), JSON.stringify(validateSarif.errors))
      // The GFM parser takes 10–25 ms per KiB of these documents: only the smaller ones are read back.
      if (out.markdown.length < 12 * 1024) assertPlainMarkdown(out.markdown, report)
    }

    const render = (report: Report) => ({
      ...Object.fromEntries(REPORT_FORMATS.map((format) => [format, renderReport(report, format, {color: false})])),
      'text --details': renderReport(report, 'text', {color: false, details: true}),
    })
    t.diagnostic(`slowest report, all formats: ${Math.round(fuzz('renderReport', reports, {boundMs: REPORT_BOUND_MS, check}, render))} ms`)
    if (requireXmllint(t)) {
      const lint = spawnSync('xmllint', ['--noout', ...junitFiles], {encoding: 'utf8'})
      assert.equal(lint.status, 0, `seed ${SEED}: ${lint.stderr}`)
    }
  })
})

/** No HTML, image or link in the Markdown but the plan's https sources: what came from outside is text. */
function assertPlainMarkdown(markdown: string, report: Report): void {
  const sources = new Set(report.plan.references.map((reference) => reference.url))
  for (const node of nodesOf(parseMarkdown(markdown))) {
    assert.ok(!['html', 'image', 'imageReference', 'linkReference', 'definition', 'footnoteDefinition'].includes(node.type), `Markdown has ${node.type}`)
    if (node.type === 'link') assert.ok(sources.has(node.url), `Markdown links ${node.url}`)
  }
}

/** xmllint may be missing on a developer machine, but never in CI. */
function requireXmllint(t: TestContext): boolean {
  if (spawnSync('xmllint', ['--version']).error === undefined) return true
  skipOutsideCi(t, 'xmllint is not installed (apt-get install libxml2-utils)')
  return false
}

/** The example report with a generated string in each place a cluster, a node or a file fills. */
function untrustedReport(base: Report, random: Random, size: number): Report {
  const report = structuredClone(base)
  const text = () => adversarialText(random, random.length(size))
  for (const node of report.nodes) Object.assign(node, {name: text(), origin: text(), kernelRelease: text(), os: {...node.os, prettyName: text()}, reason: text()})
  for (const finding of report.findings) Object.assign(finding, {message: text(), subject: {...finding.subject, name: text()}, remediation: [text()]})
  for (const group of report.plan.nodeGroups) Object.assign(group, {name: text(), nodes: [text(), text()]})
  for (const step of report.plan.steps) {
    Object.assign(step, {title: text(), why: text(), actions: [text()], verify: [text()], subjects: [{kind: 'NodeGroup', name: text(), members: [text()]}]})
    if (step.commands.length > 0) step.commands.push(text())
    if (step.undo.length > 0) step.undo.push(text())
  }

  Object.assign(report.cluster!, {context: text(), unreadable: [text()], kubernetesVersion: text()})
  report.plan.summary = text()
  return report
}

/**
 * A facts bundle of generated section bodies, each section once, in any order: one a well-formed bundle must
 * be read from. One in four is broken somewhere (no header, a section twice, a header that is not one, a body
 * line that looks like one), and may be refused.
 */
function bundleText(random: Random, size: number): {broken: boolean; text: string} {
  const broken = random.below(4) === 0
  const sections = BUNDLE_SECTIONS.map((section) => ({section, order: random.next()})).toSorted((a, b) => a.order - b.order).map(({section}) => section)
  const lines = [broken && random.below(3) === 0 ? random.pick(PIECES) : BUNDLE_HEADER]
  for (const section of sections) {
    // Bodies of 0 to twice their share: the bundle comes to about `size`.
    const body = adversarialText(random, Math.round((2 * random.next() * size) / sections.length))
    lines.push(`### ${section}`, broken ? body : body.replaceAll(/^### /gm, ' ### '))
  }

  if (broken) lines.splice(1 + random.below(lines.length), 0, random.pick([`### ${sections[0]}`, `### ${random.pick(PIECES)}`, '###']))
  return {broken, text: lines.join('\n')}
}

/** A KubeProxyConfiguration-like YAML document and kube-proxy flags, NUL-separated: real fields, hostile shapes. */
function kubeProxyInput(random: Random): string {
  const keys = ['mode', 'iptables', 'ipvs', 'nftables', 'nodePortAddresses', 'featureGates', 'masqueradeAll', 'syncPeriod', 'scheduler', 'strictARP', 'excludeCIDRs', 'kind', 'constructor', '__proto__', 'toString']
  const values = ['ipvs', 'iptables', 'nftables', '', 'x', '3', '[a, b]', '{a: 1}', 'null', 'true', '[[[', '"quoted', 'constructor', '__proto__', 'toString', '*anchor', '&anchor x', '!!binary AAAA']
  const yaml = Array.from({length: 1 + random.below(8)}, () => `${'  '.repeat(random.below(2))}${random.pick(keys)}: ${random.pick(values)}`)
  const flags = ['--proxy-mode', '--masquerade-all', '--ipvs-scheduler', '--nodeport-addresses', '--feature-gates', '--ipvs-strict-arp', '--constructor', '--__proto__', '--to-string', '--iptables-masquerade-bit']
  const argv = Array.from({length: random.below(6)}, () => (random.below(2) === 0 ? `${random.pick(flags)}=${random.pick(values)}` : random.pick([...flags, ...values])))
  return [yaml.join('\n'), ...argv].join('\u0000')
}

/** An EndpointSlice list whose strings, keys and nesting are generated; `endpoints` arrays, nulls and look-alikes among them. */
function listOf(random: Random): unknown {
  const text = () => adversarialText(random, random.length(256))
  const value = (depth: number): unknown => {
    switch (depth > 4 ? 0 : random.below(6)) {
      case 0: {
        return random.pick([text(), 0, -1.5e300, true, null])
      }

      case 1: {
        return Array.from({length: random.below(4)}, () => value(depth + 1))
      }

      case 2: {
        return {endpoints: value(depth + 1), [text()]: value(depth + 1)}
      }

      default: {
        return Object.fromEntries(Array.from({length: random.below(4)}, () => [text(), value(depth + 1)]))
      }
    }
  }

  const items = Array.from({length: random.below(8)}, () => ({metadata: {name: text(), labels: {endpoints: text()}}, ...(random.below(4) === 0 ? {} : {endpoints: value(1)}), [text()]: value(2)}))
  return {kind: 'EndpointSliceList', metadata: {continue: text(), resourceVersion: text()}, items}
}
