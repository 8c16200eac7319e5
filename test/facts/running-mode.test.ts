import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {deriveKubeProxyEndpointFacts} from '../../src/derive/node/node-facts.js'
import type {FactSet} from '../../src/facts/fact-set.js'
import {bundleFacts} from '../helpers/bundle-facts.js'
import {capturedBundle, capturedMetrics, type SectionChanges, withSections} from '../helpers/captured-bundles.js'

function facts(state: 'iptables' | 'nftables', changes: SectionChanges = {}): FactSet {
  return bundleFacts(withSections(capturedBundle(state), changes), 'fallback')
}

function running(facts: FactSet): [unknown, unknown] {
  return [facts.get('kubeProxy.runningMode') ?? facts.whyUnknown('kubeProxy.runningMode')?.reason, facts.get('kubeProxy.runningModeEvidence')]
}

/** /proxyMode did not answer, as on the captured node with kube-proxy stopped (curl exit 7). */
const NO_ANSWER = {'kube-proxy-mode': 'unreachable exit=7', 'kube-proxy-metrics': 'unreachable same endpoint as kube-proxy-mode'}
/** The families the collector keeps, as each capture's /metrics exported them. */
const KEPT = [
  'kubeproxy_sync_proxy_rules_last_timestamp_seconds',
  'kubeproxy_sync_proxy_rules_iptables_total',
  'kubeproxy_iptables_ct_state_invalid_dropped_packets_total',
  'kubeproxy_sync_proxy_rules_nftables_sync_failures_total',
]

describe("the mode kube-proxy runs in, from the node's own evidence (real 1.36.2 captures)", () => {
  it("is /proxyMode's answer on the captured nodes", () => {
    assert.deepEqual(running(facts('iptables')), ['iptables', '/proxyMode answered iptables'])
    assert.deepEqual(running(facts('nftables')), ['nftables', '/proxyMode answered nftables'])
  })

  it('without /proxyMode, is read from the metric families only one mode registers', () => {
    const iptables = facts('iptables', {unavailable: {'kube-proxy-mode': 'timeout bound=7s'}, sections: {'kube-proxy-metrics': capturedMetrics('capture-1-iptables', KEPT)}})
    assert.deepEqual(running(iptables), ['iptables', '/metrics exports kubeproxy_sync_proxy_rules_iptables_total, which only iptables mode registers'])
    // A healthy 1.36 nftables node exports no failure series: no iptables family, synced rules, its tables, no kube-ipvs0.
    const nftables = facts('nftables', {unavailable: {'kube-proxy-mode': 'timeout bound=7s'}, sections: {'kube-proxy-metrics': capturedMetrics('capture-2-nftables', KEPT)}})
    assert.deepEqual(running(nftables), ['nftables', '/metrics shows synced rules but no iptables-only family, and the nft tables of kube-proxy exist'])
    const failing = facts('nftables', {unavailable: {'kube-proxy-mode': 'timeout bound=7s'}, sections: {'kube-proxy-metrics': 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family="IPv4"} 1'}})
    assert.equal(running(failing)[0], 'nftables')
  })

  it('without its answers, a running kube-proxy with its nft tables and only the kubelet\'s iptables rules runs nftables', () => {
    assert.deepEqual(running(facts('nftables', {unavailable: {'kube-proxy-mode': 'not-installed curl or wget', 'kube-proxy-metrics': 'not-installed curl or wget'}})), [
      'nftables',
      "kube-proxy runs, its nft tables exist, and iptables holds only the kubelet's 3 KUBE- rules",
    ])
    // The iptables node's 128 KUBE- rules are no nftables node's, whatever tables are there.
    const tables = 'table ip nat\ntable ip kube-proxy\n'
    assert.equal(running(facts('iptables', {unavailable: NO_ANSWER, sections: {'nft-tables': tables}}))[0], 'unreachable')
  })

  it('is none when no kube-proxy process runs and /proxyMode does not answer (kube-proxy exited)', () => {
    const exited = facts('nftables', {unavailable: NO_ANSWER, sections: {'kube-proxy-process': 'skip-kernel-check=unset'}})
    assert.deepEqual(running(exited), ['none', 'no kube-proxy process runs on the node and /proxyMode does not answer'])
  })

  it("is a process's --proxy-mode only when no --config overrides it", () => {
    const flags = (args: string) => running(facts('iptables', {unavailable: NO_ANSWER, sections: {'kube-proxy-process': `pid=7 exe=kube-proxy container=no args=${args}\nskip-kernel-check=unset`}}))
    assert.deepEqual(flags('--proxy-mode=nftables'), ['nftables', 'kube-proxy runs with --proxy-mode=nftables and no --config'])
    assert.deepEqual(flags('--kube-proxy-arg=proxy-mode=ipvs'), ['ipvs', 'kube-proxy runs with --proxy-mode=ipvs and no --config'])
    assert.equal(flags('--config=/var/lib/kube-proxy/config.conf --proxy-mode=nftables')[0], 'unreachable')
  })

  it('is unknown with /proxyMode\'s reason when nothing shows it, never the configured mode', () => {
    const unread = facts('iptables', {unavailable: {...NO_ANSWER, 'kube-proxy-process': 'permission-denied hidepid=2'}})
    assert.deepEqual(unread.whyUnknown('kubeProxy.runningMode'), {reason: 'unreachable', detail: 'nothing on the node shows the mode kube-proxy runs in (/proxyMode: unreachable, exit=7)'})
    assert.equal(unread.whyUnknown('kubeProxy.runningModeEvidence')?.reason, 'unreachable')
  })

  it('is derived the same from kube-proxy\'s answers read through the pod proxy', () => {
    const endpoint = (mode: string | undefined, metrics: string) =>
      deriveKubeProxyEndpointFacts({
        sections: new Map([...(mode ? [['kube-proxy-mode', mode] as const] : []), ['kube-proxy-metrics', metrics]]),
        unavailable: new Map(mode ? [] : [['kube-proxy-mode', {reason: 'failed', detail: 'HTTP 404'}]]),
      }, new Date())
    assert.deepEqual(running(endpoint('nftables', '')), ['nftables', '/proxyMode answered nftables'])
    assert.equal(running(endpoint(undefined, capturedMetrics('capture-1-iptables', KEPT)))[0], 'iptables')
    // Metrics alone cannot tell nftables from IPVS: the tables are not read through the pod proxy.
    assert.equal(running(endpoint(undefined, capturedMetrics('capture-2-nftables', KEPT)))[0], 'failed')
  })
})
