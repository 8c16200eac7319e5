/**
 * Untrusted text gets linear work: every parser of node and cluster facts, the bundle reader and
 * the renderers, over inputs built to make backtracking regular expressions go quadratic (long runs
 * of blanks, newlines, digits and punctuation, with a character at the end that fails the match).
 * At 100 KB a linear parser takes milliseconds and a quadratic one tens of seconds; the bound sits far
 * from both, so a loaded machine does not fail it and a quadratic parser cannot pass it.
 */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {parseKubeProxyConfiguration} from '../../src/derive/kube-proxy-config.js'
import {parseOsImage} from '../../src/derive/os-image.js'
import {parseBundle} from '../../src/facts/bundle.js'
import {BUNDLE_SECTIONS} from '../../src/facts/catalog.js'
import {deriveNodeFacts} from '../../src/facts/node-facts.js'
import * as addresses from '../../src/facts/parsers/addresses.js'
import * as collector from '../../src/facts/parsers/collector.js'
import * as iptables from '../../src/facts/parsers/iptables.js'
import * as ipvs from '../../src/facts/parsers/ipvs.js'
import * as kernelConfig from '../../src/facts/parsers/kernel-config.js'
import * as kernel from '../../src/facts/parsers/kernel.js'
import * as kubeProxy from '../../src/facts/parsers/kube-proxy.js'
import * as modules from '../../src/facts/parsers/modules.js'
import * as nftRuleset from '../../src/facts/parsers/nft-ruleset.js'
import * as osRelease from '../../src/facts/parsers/os-release.js'
import * as services from '../../src/facts/parsers/services.js'
import * as sysctl from '../../src/facts/parsers/sysctl.js'
import * as versions from '../../src/facts/parsers/versions.js'
import {renderMarkdown} from '../../src/report/markdown.js'
import {renderText} from '../../src/report/text.js'
import {readFlags} from '../../src/sources/cluster/read-fields.js'
import {exampleClusterReport} from '../helpers/reports.js'

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
]

/** Parsers that take one string: every string-taking export of the fact parsers, and the cluster-side ones. */
const PARSERS: Array<[string, (text: string) => unknown]> = [
  ...Object.entries({...addresses, ...collector, ...iptables, ...ipvs, ...kernelConfig, ...kernel, ...kubeProxy, ...modules, ...nftRuleset, ...osRelease, ...services, ...sysctl, ...versions})
    .filter(([name, value]) => typeof value === 'function' && name.startsWith('parse'))
    .map(([name, parse]) => [name, parse as (text: string) => unknown] as [string, (text: string) => unknown]),
  ['parseOsImage', parseOsImage],
  ['parseKubeProxyConfiguration', parseKubeProxyConfiguration],
  ['readFlags', (text) => readFlags(text.split(' '))],
  ['readFlags of one argument', (text) => readFlags([`--config=${text}`, text])],
  ['compareVersions', (text) => versions.compareVersions(text, '1.0')],
]

function timed(run: () => unknown): number {
  const started = performance.now()
  try {
    run()
  } catch {
    // Refusing the input is fine; taking long over it is not.
  }

  return performance.now() - started
}

describe('linear work on adversarial input', () => {
  for (const [parser, parse] of PARSERS) {
    it(`${parser}`, () => {
      for (const [input, text] of ADVERSARIAL) assert.ok(timed(() => parse(text)) < BOUND_MS, `${parser} on ${input}`)
    })
  }

  it('a bundle with every section adversarial, read and derived', () => {
    for (const [input, text] of ADVERSARIAL) {
      const bundle = ['# kpx-check node facts v1', ...BUNDLE_SECTIONS.flatMap((section) => [`### ${section}`, text]), '### end'].join('\n')
      assert.ok(timed(() => deriveNodeFacts(parseBundle(bundle), 'node')) < BOUND_MS * 3, input)
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
