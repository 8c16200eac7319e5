import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {effectiveMode, kubeProxySettings, parseKubeProxyConfiguration, podProxyPort} from '../../src/derive/kube-proxy-config.js'
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
    assert.deepEqual(settings, {mode: 'constructor', configuredMode: 'constructor', nodePortAddresses: [], featureGates: [], ipvsScheduler: '', ipvsStrictARP: false, carryOver: [], metricsBindAddress: '127.0.0.1:10249', healthzBindAddress: '0.0.0.0:10256'})
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

  it('where kube-proxy serves its metrics: the file, a flag over it, and the default for unset or empty', () => {
    const address = (text: string, argv: string[] = []) => kubeProxySettings(parseKubeProxyConfiguration(text), readFlags(argv), '1.33.3').metricsBindAddress
    assert.equal(address('mode: iptables\nmetricsBindAddress: 0.0.0.0:10249\n'), '0.0.0.0:10249')
    assert.equal(address('mode: iptables\nmetricsBindAddress: ""\n'), '127.0.0.1:10249')
    assert.equal(address('mode: iptables\n'), '127.0.0.1:10249')
    assert.equal(address('mode: iptables\n', ['--metrics-bind-address', '0.0.0.0:9999']), '0.0.0.0:9999')
  })

  it('where kube-proxy serves /healthz: the file, a flag over it, and the default 0.0.0.0:10256 for unset or empty', () => {
    const address = (text: string, argv: string[] = []) => kubeProxySettings(parseKubeProxyConfiguration(text), readFlags(argv), '1.36.2').healthzBindAddress
    assert.equal(address('mode: nftables\nhealthzBindAddress: 127.0.0.1:10256\n'), '127.0.0.1:10256')
    assert.equal(address('mode: nftables\nhealthzBindAddress: ""\n'), '0.0.0.0:10256')
    assert.equal(address('mode: nftables\n'), '0.0.0.0:10256')
    assert.equal(address('mode: nftables\n', ['--healthz-bind-address=0.0.0.0:10666']), '0.0.0.0:10666')
  })

  it('the pod proxy reaches kube-proxy\'s metrics on any address but a loopback one, on its port', () => {
    const reach = (metricsBindAddress: null | string) => podProxyPort({metricsBindAddress, healthzBindAddress: '0.0.0.0:10256'}, 'metrics')
    assert.deepEqual(reach('0.0.0.0:10249'), {port: 10_249})
    assert.deepEqual(reach('[::]:10249'), {port: 10_249})
    assert.deepEqual(reach(':9100'), {port: 9100})
    assert.deepEqual(reach('10.0.10.170:10249'), {port: 10_249})
    for (const loopback of ['127.0.0.1:10249', '127.0.0.53:10249', '[::1]:10249', 'localhost:10249']) {
      assert.match((reach(loopback) as {unreachable: string}).unreachable, /on its node only: the API server's pod proxy cannot reach them/, loopback)
    }

    for (const odd of ['0.0.0.0', '0.0.0.0:0', '0.0.0.0:70000', 'http://0.0.0.0:10249']) assert.match((reach(odd) as {unreachable: string}).unreachable, /is not a host:port/, odd)
    assert.match((reach(null) as {unreachable: string}).unreachable, /could not be read/)
  })

  it('the pod proxy reaches kube-proxy\'s /healthz on its default address, not on a loopback one (the captured config.conf sets 127.0.0.1:10256)', () => {
    const reach = (healthzBindAddress: null | string) => podProxyPort({metricsBindAddress: '127.0.0.1:10249', healthzBindAddress}, 'healthz')
    assert.deepEqual(reach('0.0.0.0:10256'), {port: 10_256})
    assert.deepEqual(reach('127.0.0.1:10256'), {unreachable: "kube-proxy serves /healthz on 127.0.0.1:10256 (healthzBindAddress), on its node only: the API server's pod proxy cannot reach it"})
    assert.match((reach(null) as {unreachable: string}).unreachable, /where it serves \/healthz is not known/)
  })
})
