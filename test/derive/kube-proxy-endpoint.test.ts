import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {deriveKubeProxyEndpointFacts} from '../../src/derive/node/node-facts.js'
import {withKubeProxyEndpoint} from '../../src/derive/subjects.js'
import {FactSet} from '../../src/facts/fact-set.js'

/** kube-proxy's answers as the pod proxy read them: nftables mode, 3 sync failures. */
const endpoint = () =>
  deriveKubeProxyEndpointFacts({
    sections: new Map([
      ['kube-proxy-mode', 'nftables'],
      ['kube-proxy-metrics', 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total 3'],
    ]),
    unavailable: new Map(),
  }, new Date())

describe("kube-proxy's answers through the pod proxy, beside a node's other facts", () => {
  it('are the facts the collector\'s sections give: values, and not-present for what this mode does not export', () => {
    const facts = endpoint()
    assert.equal(facts.get('kubeProxy.mode'), 'nftables')
    assert.equal(facts.get('kubeProxy.nftablesSyncFailures'), 3)
    assert.equal(facts.whyUnknown('kubeProxy.localhostNodePortsAccepted')?.reason, 'not-present')
  })

  it('read per IP family: a sync requested and not done is a pending wait, from the time of the read', () => {
    const metrics = [
      'kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{ip_family="IPv4"} 1.7965389209154935e+09',
      'kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{ip_family="IPv6"} 1.7965389500000000e+09',
      'kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv4"} 1.7965389210484002e+09',
      'kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv6"} 1.7965389210841784e+09',
    ].join('\n')
    // Read at 06:36:30 UTC: IPv6 asked at 06:35:50 and not done: 40 s; IPv4 done after it was asked.
    const facts = deriveKubeProxyEndpointFacts({sections: new Map([['kube-proxy-metrics', metrics]]), unavailable: new Map()}, new Date('2026-12-06T06:36:30Z'))
    assert.deepEqual(facts.get('kubeProxy.syncedFamilies'), ['IPv4', 'IPv6'])
    assert.equal(facts.get('kubeProxy.pendingSyncSeconds'), 40)
    assert.equal(facts.get('kubeProxy.syncFailures'), 0)
  })

  it('what the collector read itself wins; what it could not read is the pod proxy\'s', () => {
    const collected = new FactSet()
      .set('kubeProxy.mode', 'iptables')
      .unknown('kubeProxy.nftablesSyncFailures', 'not-installed', 'curl or wget')
      .unknown('kubeProxy.localhostNodePortsAccepted', 'not-installed', 'curl or wget')
    const merged = withKubeProxyEndpoint(collected, endpoint(), true)
    assert.equal(merged.get('kubeProxy.mode'), 'iptables')
    assert.equal(merged.get('kubeProxy.nftablesSyncFailures'), 3)
    assert.deepEqual(merged.whyUnknown('kubeProxy.localhostNodePortsAccepted'), {reason: 'not-present', detail: 'kube-proxy does not export kubeproxy_iptables_localhost_nodeports_accepted_packets_total (iptables mode only, kube-proxy ≥ 1.31)'})
  })

  it('over what the API shows, the running kube-proxy\'s own answer wins; an unread answer leaves the API\'s value', () => {
    assert.equal(withKubeProxyEndpoint(new FactSet().set('kubeProxy.mode', 'iptables'), endpoint(), false).get('kubeProxy.mode'), 'nftables')
    const unread = deriveKubeProxyEndpointFacts({sections: new Map(), unavailable: new Map([['kube-proxy-mode', {reason: 'timeout', detail: 'no answer'}]])}, new Date())
    const api = withKubeProxyEndpoint(new FactSet().set('kubeProxy.mode', 'iptables').unknown('kubeProxy.ctInvalidDropped', 'not-collected', 'API'), unread, false)
    assert.equal(api.get('kubeProxy.mode'), 'iptables')
    assert.equal(api.whyUnknown('kubeProxy.ctInvalidDropped')?.reason, 'not-collected')
  })
})
