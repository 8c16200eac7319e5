import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {setSyncWatchFacts} from '../../src/derive/node/sync-watch.js'
import {FactSet} from '../../src/facts/fact-set.js'

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
