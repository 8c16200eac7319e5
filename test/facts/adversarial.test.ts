/**
 * Untrusted text gets linear work: every parser of node and cluster facts, the bundle reader and
 * the renderers, over inputs built to make backtracking regular expressions go quadratic (long runs
 * of blanks, newlines, digits and punctuation, with a character at the end that fails the match).
 * At 100 KB a linear parser takes milliseconds and a quadratic one tens of seconds; the bound sits far
 * from both, and it is CPU time, so a loaded machine does not fail it and a quadratic parser cannot pass it.
 */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {BUNDLE_SECTIONS} from '../../src/facts/catalog.js'
import {renderMarkdown} from '../../src/report/markdown.js'
import {renderText} from '../../src/report/text.js'
import {bundleFacts} from '../helpers/bundle-facts.js'
import {exampleClusterReport} from '../helpers/reports.js'
import {TEXT_PARSERS} from '../helpers/text-parsers.js'

const SIZE = 100_000
const BOUND_MS = 2000

/** Runs of one piece, then a character that breaks whatever the run was building. */
const ADVERSARIAL: Array<[string, string]> = [
  ...['\n', ' ', '\t', ' \n', '\n ', 'a', '1', '1.', '.', '-', '=', ':', '#', '[', '(', '{', '"', "'", '\\', 'v1', 'a ', 'x=', '### ', '0 ', 'table ', 'chain '].map(
    (piece): [string, string] => [`${JSON.stringify(piece)} × ${SIZE / piece.length}`, piece.repeat(Math.ceil(SIZE / piece.length)) + '\u0000!'],
  ),
  // A line that starts as the parser expects, then blanks that a lazy `(.*?)\\s*$` tries at every length.
  ...['x=', 'net.a = ', 'table ip t', 'chain c', 'Host h', 'ID=a', 'pid=1 ', 'kubeproxy_x ', '-P INPUT', 'legacy total=1'].map(
    (prefix): [string, string] => [`${JSON.stringify(prefix)} + blanks`, `${prefix}${' '.repeat(SIZE)}\u0000!`],
  ),
  ['nftables v + blanks', `nftables v1${' '.repeat(SIZE)}x`],
  ['iptables v + dots', `iptables v${'1.'.repeat(SIZE / 2)}x`],
  ['placeholder openings', '{{ '.repeat(SIZE / 3)],
]


/** The CPU time a run takes, in ms: unlike the wall clock, it does not grow with the machine's load. */
function timed(run: () => unknown): number {
  const started = process.cpuUsage()
  try {
    run()
  } catch {
    // Refusing the input is fine; taking long over it is not.
  }

  const {user, system} = process.cpuUsage(started)
  return (user + system) / 1000
}

describe('linear work on adversarial input', () => {
  for (const [parser, parse] of TEXT_PARSERS) {
    it(`${parser}`, () => {
      for (const [input, text] of ADVERSARIAL) assert.ok(timed(() => parse(text)) < BOUND_MS, `${parser} on ${input}`)
    })
  }

  it('a bundle with every section adversarial, read and derived', () => {
    for (const [input, text] of ADVERSARIAL) {
      const bundle = ['# kpx-check node facts v1', ...BUNDLE_SECTIONS.flatMap((section) => [`### ${section}`, text])].join('\n')
      assert.ok(timed(() => bundleFacts(bundle)) < BOUND_MS * 3, input)
    }
  })

  it('the text and Markdown reports of a node with adversarial names', async () => {
    const report = await exampleClusterReport()
    for (const [input, text] of ADVERSARIAL) {
      const hostile = {...report, nodes: report.nodes.map((node) => ({...node, name: text, os: {...node.os, prettyName: text}, kernelRelease: text}))}
      assert.ok(timed(() => renderText(hostile)) < BOUND_MS, `text on ${input}`)
      assert.ok(timed(() => renderMarkdown(hostile)) < BOUND_MS, `markdown on ${input}`)
    }
  })
})
