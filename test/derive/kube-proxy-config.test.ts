import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {effectiveMode, kubeProxySettings, parseKubeProxyConfiguration} from '../../src/derive/kube-proxy-config.js'
import {readFlags} from '../../src/sources/cluster/read-fields.js'

describe('kube-proxy configuration from the cluster, however it is shaped', () => {
  it('a section or an address list kube-proxy would refuse makes the configuration unreadable, not a crash', () => {
    for (const text of ['mode: iptables\niptables: x\n', 'mode: ipvs\nipvs: [1, 2]\n', 'mode: ipvs\nnodePortAddresses: 0.0.0.0/0\n']) {
      assert.equal(parseKubeProxyConfiguration(text), undefined, text)
    }

    assert.deepEqual(parseKubeProxyConfiguration('mode: ipvs\niptables:\nnodePortAddresses: null\n'), {mode: 'ipvs', iptables: null, nodePortAddresses: null})
  })

  it('a mode or a flag named like an Object property is one it does not know', () => {
    const settings = kubeProxySettings(parseKubeProxyConfiguration('mode: constructor\n'), readFlags(['--constructor=1', '--__proto__', '--to-string', 'x']), '1.34.1')
    assert.deepEqual(settings, {mode: 'constructor', configuredMode: 'constructor', nodePortAddresses: [], featureGates: [], ipvsScheduler: '', ipvsStrictARP: false, carryOver: []})
    assert.equal(kubeProxySettings(undefined, readFlags(['--proxy-mode=toString']), '1.34.1').mode, 'toString')
    assert.deepEqual(kubeProxySettings(parseKubeProxyConfiguration('mode: iptables\niptables:\n'), readFlags(['--masquerade-all']), '1.34.1').carryOver, [{field: 'iptables.masqueradeAll', value: true}])
  })

  it('an unset mode is iptables up to kube-proxy 1.39 and nftables from 1.40; a set one is what it says', () => {
    assert.equal(effectiveMode('', '1.39.9'), 'iptables')
    assert.equal(effectiveMode('', '1.40.0'), 'nftables')
    assert.equal(effectiveMode('', '1.41.2'), 'nftables')
    // No tag to read a version from: every kube-proxy released so far defaults to iptables.
    assert.equal(effectiveMode('', null), 'iptables')
    assert.equal(effectiveMode('iptables', '1.40.0'), 'iptables')
    assert.equal(effectiveMode('ipvs', '1.40.0'), 'ipvs')
  })

  it('an unset mode carries the iptables settings over before 1.40, and nothing from 1.40, where it already is nftables', () => {
    const config = parseKubeProxyConfiguration('apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ""\niptables:\n  masqueradeAll: true\n')
    const before = kubeProxySettings(config, new Map(), '1.39.9')
    assert.deepEqual([before.mode, before.configuredMode, before.carryOver], ['iptables', '', [{field: 'iptables.masqueradeAll', value: true}]])
    const after = kubeProxySettings(config, new Map(), '1.40.0')
    assert.deepEqual([after.mode, after.configuredMode, after.carryOver], ['nftables', '', []])
  })
})
