import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {parseKernelConfig} from '../../src/facts/parsers/kernel-config.js'
import {assessKernelSupport, NFT_KERNEL_FEATURES} from '../../src/facts/parsers/kernel-features.js'
import {moduleName, parseModulePaths, parseProcModules} from '../../src/facts/parsers/modules.js'
import {kernelConfigs, moduleListsFromConfig} from '../helpers/corpus.js'

const configs = kernelConfigs()
const FIB = ['nft_fib_ipv4', 'nft_fib_ipv6']
const ALL_NFT = ['nf_tables', 'nft_ct', 'nft_nat', 'nft_chain_nat', 'nft_masq', 'nft_reject', 'nft_fib_ipv4', 'nft_fib_ipv6', 'nft_numgen']

/** What the real configs lack; every other captured config has every feature. */
const EXPECTED_MISSING: Record<string, string[]> = {
  // RHEL/CentOS 7: the 3.10 kernel predates nft_fib (4.10) and nft_numgen (4.9).
  '3.10.0-1127.el7.x86_64': [...FIB, 'nft_numgen'],
  '3.10.0-1160.102.1.el7.x86_64': [...FIB, 'nft_numgen'],
  '3.10.0-1160.59.1.el7.x86_64': [...FIB, 'nft_numgen'],
  // RancherOS: "# CONFIG_NFT_NUMGEN is not set", "# CONFIG_NFT_FIB_IPV4 is not set".
  '4.14.138-rancher': [...FIB, 'nft_numgen'],
  // "# CONFIG_NFT_FIB_IPV4 is not set" (the siderolabs/pkgs#951 failure).
  '5.15.138.1-4.cm2': FIB,
  '5.10.61-1.ph4': FIB,
  '6.1.10-11.ph5': FIB,
  '6.1.85+': FIB,
  // Container-Optimized OS 85-97: "# CONFIG_NF_TABLES is not set".
  '5.10.90+': ALL_NFT,
  '5.4.144+': ALL_NFT,
  // OrbStack publishes a stub config: it proves nothing missing.
  '6.14.10-orbstack-00291-g1b252bd3edea': [],
}

const EXPECTED_STATE: Record<string, string> = {
  '5.10.90+': 'missing',
  '5.4.144+': 'missing',
  '5.15.0-103.114.4.el8uek.x86_64': 'builtin',
  '5.15.0-6.80.3.1.el8uek.x86_64': 'builtin',
  '6.12.6-talos': 'builtin',
  '6.18.44-fc-v782': 'builtin',
  '6.14.10-orbstack-00291-g1b252bd3edea': 'builtin',
}

describe('nftables kernel features from the 69 captured kernel configs', () => {
  it('has the fixtures', () => {
    assert.equal(configs.size, 69)
  })

  for (const [release, text] of [...configs].toSorted()) {
    it(`${release}: missing ${JSON.stringify(EXPECTED_MISSING[release] ?? [])}`, () => {
      const config = parseKernelConfig(text)
      assert.ok(config, 'parses')
      assert.match(config.source ?? '', /^\/(proc|boot|lib|usr)\//)
      const support = assessKernelSupport({config})
      assert.deepEqual(support.missing, EXPECTED_MISSING[release] ?? [])
      assert.equal(support.nfTables, EXPECTED_STATE[release] ?? 'module')
    })
  }

  it('leaves a stub config undetermined instead of calling features missing', () => {
    const support = assessKernelSupport({config: parseKernelConfig(configs.get('6.14.10-orbstack-00291-g1b252bd3edea')!)})
    assert.deepEqual(support.undetermined, ['nft_ct', 'nft_nat', 'nft_chain_nat', 'nft_masq', 'nft_numgen', 'nf_nat'])
    assert.equal(support.status.get('nft_reject'), 'present')
    assert.equal(support.status.get('nf_conntrack'), 'present', 'implied by CONFIG_IP_VS_NFCT=y')
  })

  for (const [release, text] of [...configs].toSorted()) {
    if (release.includes('orbstack')) continue
    it(`${release}: modules.builtin + modules.dep alone give the same answer as the config`, () => {
      const lists = moduleListsFromConfig(text, '.ko.xz')
      const support = assessKernelSupport({
        builtin: parseModulePaths(lists.builtin.join('\n')),
        available: parseModulePaths(lists.available.join('\n')),
      })
      assert.deepEqual(support.missing, EXPECTED_MISSING[release] ?? [])
      assert.deepEqual(support.undetermined, [])
    })
  }
})

describe('kernel feature evidence rules', () => {
  it('reports every feature in the table once', () => {
    const names = NFT_KERNEL_FEATURES.map((feature) => feature.name)
    assert.deepEqual(names, ['nf_tables', 'nft_ct', 'nft_nat', 'nft_chain_nat', 'nft_masq', 'nft_reject', 'nft_fib_ipv4', 'nft_fib_ipv6', 'nft_numgen', 'nf_conntrack', 'nf_nat'])
  })

  it('with no evidence at all, nothing is missing and everything is undetermined', () => {
    const support = assessKernelSupport({})
    assert.deepEqual(support.missing, [])
    assert.equal(support.undetermined.length, NFT_KERNEL_FEATURES.length)
    assert.equal(support.nfTables, undefined)
  })

  // Real /proc/modules lines, from a Fedora host in firewalld/firewalld#1493.
  const procModules = [
    'nf_nat_sip 16384 0 - Live 0xffffffffc1593000',
    'nf_nat_ftp 16384 0 - Live 0xffffffffc158b000',
    'nf_conntrack_sip 45056 5 nf_nat_sip, Live 0xffffffffc157e000',
    'nft_masq 12288 3 - Live 0xffffffffc1551000',
    'nft_nat 12288 6 - Live 0xffffffffc1545000',
    'nft_fib_inet 12288 1 - Live 0xffffffffc155b000',
    'nft_fib_ipv4 12288 1 nft_fib_inet, Live 0xffffffffc153d000',
    'nft_fib_ipv6 12288 1 nft_fib_inet, Live 0xffffffffc153f000',
    'nft_fib 12288 3 nft_fib_inet,nft_fib_ipv4,nft_fib_ipv6, Live 0xffffffffc1537000',
    'nft_compat 20480 2 - Live 0xffffffffc1527000',
    'nft_reject_inet 12288 467 - Live 0xffffffffc14fe000',
    'nf_reject_ipv4 16384 1 nft_reject_inet, Live 0xffffffffc14f3000',
    'nft_reject 12288 1 nft_reject_inet, Live 0xffffffffc14ed000',
    'nft_ct 28672 13 - Live 0xffffffffc14dc000',
  ].join('\n')

  it('/proc/modules shows what is loaded; it cannot prove the rest missing', () => {
    const loaded = parseProcModules(procModules)
    assert.ok(loaded)
    const support = assessKernelSupport({loaded})
    assert.deepEqual(support.missing, [])
    assert.deepEqual(support.undetermined, ['nf_tables', 'nft_chain_nat', 'nft_numgen', 'nf_conntrack', 'nf_nat'])
    for (const name of ['nft_ct', 'nft_nat', 'nft_masq', 'nft_reject', 'nft_fib_ipv4', 'nft_fib_ipv6']) assert.equal(support.status.get(name), 'present', name)
  })

  it('a loaded module wins over a config that says "not set"', () => {
    const config = parseKernelConfig('CONFIG_NF_TABLES=m\n# CONFIG_NFT_CT is not set\n')!
    assert.equal(assessKernelSupport({config, loaded: new Set(['nft_ct', 'nf_tables'])}).status.get('nft_ct'), 'present')
    assert.equal(assessKernelSupport({config}).status.get('nft_ct'), 'missing')
    assert.equal(assessKernelSupport({config, loaded: new Set(['nf_tables'])}).nfTables, 'loaded')
  })

  it('before 5.1, the nat chain and masquerade also need their _IPV4 options', () => {
    // The "not set" lines are real: `zgrep '^# CONFIG_NFT_' /proc/config.gz` in scaleway/kernel-tools#359.
    const config = parseKernelConfig(
      ['CONFIG_NF_TABLES=m', 'CONFIG_NFT_NAT=m', 'CONFIG_NFT_MASQ=m', '# CONFIG_NFT_CHAIN_ROUTE_IPV4 is not set', '# CONFIG_NFT_CHAIN_NAT_IPV4 is not set', '# CONFIG_NFT_MASQ_IPV4 is not set', '# CONFIG_NFT_REDIR_IPV4 is not set'].join('\n'),
    )!
    const support = assessKernelSupport({config})
    assert.equal(support.status.get('nft_nat'), 'present')
    assert.equal(support.status.get('nft_chain_nat'), 'missing')
    assert.equal(support.status.get('nft_masq'), 'missing')
  })

  it('an option the config omits counts as missing only when its parent option is listed', () => {
    const filtered = parseKernelConfig('CONFIG_NF_TABLES=m\nCONFIG_NFT_CT=m\n')!
    assert.equal(assessKernelSupport({config: filtered}).status.get('nft_numgen'), 'missing')
    const noParent = parseKernelConfig('CONFIG_NFT_CT=m\n')!
    assert.equal(assessKernelSupport({config: noParent}).status.get('nft_numgen'), 'undetermined')
    assert.equal(assessKernelSupport({config: noParent}).status.get('nf_tables'), 'present')
    assert.equal(assessKernelSupport({config: noParent}).nfTables, 'module')
  })

  it('a kernel without netfilter lacks everything', () => {
    const support = assessKernelSupport({config: parseKernelConfig('# CONFIG_NETFILTER is not set\n')!})
    assert.deepEqual(support.missing, NFT_KERNEL_FEATURES.map((feature) => feature.name))
    assert.equal(support.nfTables, 'missing')
  })

  it('empty modules.builtin and modules.dep prove nothing', () => {
    const support = assessKernelSupport({builtin: new Set(), available: new Set()})
    assert.deepEqual(support.missing, [])
    assert.equal(support.undetermined.length, NFT_KERNEL_FEATURES.length)
  })
})

describe('module list parsing', () => {
  const names: Array<[path: string, name: string]> = [
    ['kernel/net/netfilter/nft_ct.ko.xz', 'nft_ct'],
    ['kernel/net/netfilter/nf_tables.ko', 'nf_tables'],
    ['kernel/net/ipv4/netfilter/nft_fib_ipv4.ko.zst', 'nft_fib_ipv4'],
    ['kernel/net/netfilter/ipvs/ip_vs_rr.ko.gz', 'ip_vs_rr'],
    ['nf-conntrack', 'nf_conntrack'],
  ]
  for (const [path, name] of names) {
    it(`${path} → ${name}`, () => {
      assert.equal(moduleName(path), name)
    })
  }

  it('reads modules.dep lines (path: dependencies)', () => {
    const text = 'kernel/net/netfilter/nft_ct.ko.xz: kernel/net/netfilter/nf_tables.ko.xz kernel/net/netfilter/nf_conntrack.ko.xz\nkernel/net/netfilter/nf_tables.ko.xz: kernel/net/netfilter/nfnetlink.ko.xz\n'
    assert.deepEqual([...parseModulePaths(text)!], ['nft_ct', 'nf_tables'])
  })

  it('rejects text that is not a module list', () => {
    assert.equal(parseModulePaths('ls: cannot access /lib/modules: No such file or directory'), undefined)
    assert.equal(parseProcModules('Module                  Size  Used by\nnft_ct 20480 0'), undefined)
  })

  it('reads /proc/modules read without root (zero addresses)', () => {
    assert.deepEqual([...parseProcModules('nf_tables 249856 196 nft_compat,nft_chain_nat, Live 0x0000000000000000\nnft_ct 28672 0 - Live 0x0000000000000000\n')!], ['nf_tables', 'nft_ct'])
    assert.deepEqual([...parseProcModules('')!], [])
  })
})
