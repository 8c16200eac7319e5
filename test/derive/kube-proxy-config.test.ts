import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {kubeProxySettings, parseKubeProxyConfiguration} from '../../src/derive/kube-proxy-config.js'
import {readFlags} from '../../src/sources/cluster/read-fields.js'

describe('kube-proxy configuration from the cluster, however it is shaped', () => {
  it('a section or an address list kube-proxy would refuse makes the configuration unreadable, not a crash', () => {
    for (const text of ['mode: iptables\niptables: x\n', 'mode: ipvs\nipvs: [1, 2]\n', 'mode: ipvs\nnodePortAddresses: 0.0.0.0/0\n']) {
      assert.equal(parseKubeProxyConfiguration(text), undefined, text)
    }

    assert.deepEqual(parseKubeProxyConfiguration('mode: ipvs\niptables:\nnodePortAddresses: null\n'), {mode: 'ipvs', iptables: null, nodePortAddresses: null})
  })

  it('a mode or a flag named like an Object property is one it does not know', () => {
    const settings = kubeProxySettings(parseKubeProxyConfiguration('mode: constructor\n'), readFlags(['--constructor=1', '--__proto__', '--to-string', 'x']))
    assert.deepEqual(settings, {mode: 'constructor', nodePortAddresses: [], featureGates: [], ipvsScheduler: '', ipvsStrictARP: false, carryOver: []})
    assert.equal(kubeProxySettings(undefined, readFlags(['--proxy-mode=toString'])).mode, 'toString')
    assert.deepEqual(kubeProxySettings(parseKubeProxyConfiguration('mode: iptables\niptables:\n'), readFlags(['--masquerade-all'])).carryOver, [{field: 'iptables.masqueradeAll', value: true}])
  })
})
