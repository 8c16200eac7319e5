import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {deriveWatchedNodes} from '../../src/derive/node/probed-node.js'
import {setSyncWatchFacts} from '../../src/derive/node/sync-watch.js'
import {parseBundle} from '../../src/facts/bundle.js'
import {FactSet} from '../../src/facts/fact-set.js'
import type {ProbedNode} from '../../src/sources/node/node-probes.js'
import {capturedBundle, withSections} from '../helpers/captured-bundles.js'

const at = (seconds: number) => new Date(Date.UTC(2026, 11, 6, 6, 35, seconds))
const watch = (first: string, second: string, seconds = 90) => setSyncWatchFacts(new FactSet(), {metrics: first, readAt: at(0)}, {metrics: second, readAt: at(seconds)})

describe('setSyncWatchFacts', () => {
  it('kube-proxy ≤ 1.32: the unlabelled failure counter (present from the start) growing is said for all families', () => {
    const facts = watch('kubeproxy_sync_proxy_rules_nftables_sync_failures_total 0\n', 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total 3\n')
    assert.deepEqual(facts.get('kubeProxy.syncFailuresGrown'), ['all families 0 → 3'])
    assert.equal(facts.get('kubeProxy.watchSeconds'), 90)
  })

  it('a family whose last sync moved is not listed; one that is gone from the second read is', () => {
    const first = 'kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv4"} 100\nkubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv6"} 100\n'
    const facts = watch(first, 'kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv4"} 130\n')
    assert.deepEqual(facts.get('kubeProxy.syncsNotAdvanced'), ['IPv6'])
    assert.deepEqual(facts.get('kubeProxy.syncFailuresGrown'), [])
  })

  it('a read that is not Prometheus text makes every watch fact unparseable, naming the read', () => {
    const facts = watch('kubeproxy_sync_proxy_rules_last_timestamp_seconds 1\n', '<html>')
    for (const path of ['kubeProxy.watchSeconds', 'kubeProxy.syncFailuresGrown', 'kubeProxy.syncsNotAdvanced']) {
      assert.deepEqual(facts.whyUnknown(path), {reason: 'unparseable', detail: "kube-proxy's metrics, second read: not Prometheus text"})
    }
  })
})

describe('deriveWatchedNodes (verify node --watch: two collector runs)', () => {
  const origin = {source: 'local', origin: 'this machine', fallbackName: 'node-1'} as const
  /** The captured nftables node's bundle as a run at `time` (its collector section's time= line) gave it. */
  const run = (time: string, changes: {metrics?: string; cut?: true} = {}): ProbedNode => {
    const collector = `version=0.1.0\nuid=0\ntime=${time}\nwhere=host`
    const text = withSections(capturedBundle('nftables'), {sections: {collector, ...(changes.metrics === undefined ? {} : {'kube-proxy-metrics': changes.metrics})}})
    return {...origin, bundle: parseBundle(changes.cut ? text.replace(/### end\n?$/, '') : text)}
  }

  const grown = 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family="IPv6"} 1'

  it("compares the runs' metrics, timed by the collector's clock; every other fact is the second run's", () => {
    const [node] = deriveWatchedNodes([run('2026-12-06T06:35:35Z')], [run('2026-12-06T06:37:08Z', {metrics: grown})])
    assert.equal(node.facts.get('kubeProxy.watchSeconds'), 93)
    assert.deepEqual(node.facts.get('kubeProxy.syncFailuresGrown'), ['IPv6 0 → 1'])
    assert.equal(node.facts.get('kubeProxy.syncFailures'), 1)
  })

  it('a first run that could not probe the node, or a run cut short, leaves the watch unknown with why', () => {
    const unreached: ProbedNode = {...origin, failure: {class: 'collector', detail: 'exited 1'}}
    const [first] = deriveWatchedNodes([unreached], [run('2026-12-06T06:37:08Z')])
    assert.equal(first.facts.whyUnknown('kubeProxy.syncFailuresGrown')?.reason, 'node-unreachable')
    const [cut] = deriveWatchedNodes([run('2026-12-06T06:35:35Z', {cut: true})], [run('2026-12-06T06:37:08Z')])
    assert.equal(cut.facts.whyUnknown('kubeProxy.watchSeconds')?.reason, 'truncated')
  })
})
