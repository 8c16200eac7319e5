/**
 * The facts only a flag of `verify` provides carry that flag in the catalogue (providedBy), which decides the
 * checks a run leaves out: the facts the report comparison and the watch set are the ones marked, each `baseline.*`
 * fact is marked `baseline`, and every other node fact has a source a node or the API shows.
 */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {setBaselineFacts} from '../../src/derive/node-baseline.js'
import {setSyncWatchFacts} from '../../src/derive/node/sync-watch.js'
import {factsProvidedBy, NODE_FACTS} from '../../src/facts/catalog.js'
import {FactSet} from '../../src/facts/fact-set.js'

const sorted = (paths: readonly string[]) => [...paths].toSorted()

describe('facts only a flag provides', () => {
  it('--baseline: every fact setBaselineFacts sets, and every baseline.* fact, is marked baseline', () => {
    const facts = new FactSet()
    setBaselineFacts(facts, {checks: {}, evidence: {}})
    assert.deepEqual(sorted(factsProvidedBy('baseline')), sorted(facts.ownPaths()))
    const baselinePaths = NODE_FACTS.map((spec) => spec.path).filter((path) => path.startsWith('baseline.'))
    assert.deepEqual(sorted(factsProvidedBy('baseline')), sorted(baselinePaths))
  })

  it('--watch: every fact setSyncWatchFacts sets, known or unknown, is marked watch', () => {
    const read = (seconds: number) => ({metrics: 'kubeproxy_sync_proxy_rules_last_timestamp_seconds 1\n', readAt: new Date(seconds * 1000)})
    assert.deepEqual(sorted(factsProvidedBy('watch')), sorted(setSyncWatchFacts(new FactSet(), read(0), read(90)).ownPaths()))
    const unreadable = setSyncWatchFacts(new FactSet(), read(0), {reason: 'timeout', detail: 'no answer'})
    assert.deepEqual(sorted(factsProvidedBy('watch')), sorted(unreadable.ownPaths()))
  })

  it('every other node fact comes from a bundle section or the API', () => {
    const flagged = new Set<string>([...factsProvidedBy('baseline'), ...factsProvidedBy('watch')])
    for (const spec of NODE_FACTS) {
      if (flagged.has(spec.path)) continue
      assert.ok(spec.sections.length > 0 || 'api' in spec, `${spec.path}: no section, no API, no flag provides it`)
    }
  })
})
