/**
 * The collector, the fact catalogue and the node deriver agree on the bundle's sections: every
 * section the real collector prints is one the catalogue reads facts from (or `unavailable`, or the
 * end line), and the deriver reads exactly the catalogue's sections.
 */
import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {describe, it} from 'node:test'

import {deriveNodeFacts} from '../../src/derive/node/node-facts.js'
import {type Bundle, parseBundle} from '../../src/facts/bundle.js'
import {BUNDLE_SECTIONS} from '../../src/facts/catalog.js'
import {COLLECTOR_SCRIPT} from '../../src/util/paths.js'

/** A map that remembers which keys were asked for. */
class RecordingMap<V> extends Map<string, V> {
  readonly asked = new Set<string>()

  override get(key: string): V | undefined {
    this.asked.add(key)
    return super.get(key)
  }
}

describe('bundle sections', () => {
  const text = execFileSync('sh', [COLLECTOR_SCRIPT], {encoding: 'utf8', timeout: 60_000, maxBuffer: 16 * 1024 * 1024})
  const printed = [...text.matchAll(/^### ([a-z0-9-]+)$/gm)].map((match) => match[1])

  it('the collector prints each section once, `unavailable` last, then the end line', () => {
    assert.equal(new Set(printed).size, printed.length, printed.join(' '))
    assert.deepEqual(printed.slice(-2), ['unavailable', 'end'])
    assert.ok(text.endsWith('\n### end\n'))
    assert.equal(parseBundle(text).cut, undefined)
  })

  it('the list at the end of the collector is the order it prints, and calls every section function once', () => {
    const script = readFileSync(COLLECTOR_SCRIPT, 'utf8')
    const called = [...script.matchAll(/^section_([a-z0-9_]+)$/gm)].map((match) => match[1])
    const defined = [...script.matchAll(/^section_([a-z0-9_]+)\(\) \{$/gm)].map((match) => match[1])
    assert.deepEqual(
      called.map((name) => name.replaceAll('_', '-')),
      printed.slice(0, -1),
    )
    assert.deepEqual(called.toSorted(), defined.toSorted())
  })

  it('the collector prints exactly the sections the catalogue reads facts from', () => {
    assert.deepEqual(printed.slice(0, -2).toSorted(), [...BUNDLE_SECTIONS].toSorted())
  })

  it('the node deriver reads exactly the sections of the catalogue', () => {
    const parsed = parseBundle(text)
    const sections = new RecordingMap(parsed.sections)
    const unavailable = new RecordingMap(parsed.unavailable)
    const bundle: Bundle = {sections, unavailable}
    deriveNodeFacts(bundle, {fallbackName: 'node'})
    assert.deepEqual([...new Set([...sections.asked, ...unavailable.asked])].toSorted(), [...BUNDLE_SECTIONS].toSorted())
  })
})
