import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {withKubeProxyEndpoint} from '../../src/derive/subjects.js'
import {FactSet} from '../../src/facts/fact-set.js'
import {deriveKubeProxyEndpointFacts} from '../../src/facts/node-facts.js'

/** kube-proxy's answers as the pod proxy read them: nftables mode, 3 sync failures. */
const endpoint = () =>
  deriveKubeProxyEndpointFacts({
    sections: new Map([
      ['kube-proxy-mode', 'nftables'],
      ['kube-proxy-metrics', 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total 3'],
    ]),
    unavailable: new Map(),
  })

describe("kube-proxy's answers through the pod proxy, beside a node's other facts", () => {
  it('are the facts the collector\'s sections give: values, and not-present for what this mode does not export', () => {
    const facts = endpoint()
    assert.equal(facts.get('kubeProxy.mode'), 'nftables')
    assert.equal(facts.get('kubeProxy.nftablesSyncFailures'), 3)
    assert.equal(facts.whyUnknown('kubeProxy.localhostNodePortsAccepted')?.reason, 'not-present')
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
    const unread = deriveKubeProxyEndpointFacts({sections: new Map(), unavailable: new Map([['kube-proxy-mode', {reason: 'timeout', detail: 'no answer'}]])})
    const api = withKubeProxyEndpoint(new FactSet().set('kubeProxy.mode', 'iptables').unknown('kubeProxy.ctInvalidDropped', 'not-collected', 'API'), unread, false)
    assert.equal(api.get('kubeProxy.mode'), 'iptables')
    assert.equal(api.whyUnknown('kubeProxy.ctInvalidDropped')?.reason, 'not-collected')
  })
})
