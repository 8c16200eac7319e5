import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'

import type {FactValue} from '../../src/contract/finding.js'
import {describeNode} from '../../src/derive/subjects.js'
import {factsProvidedBy, NODE_FACTS} from '../../src/facts/catalog.js'
import type {FactSet} from '../../src/facts/fact-set.js'
import {bundleFacts} from '../helpers/bundle-facts.js'
import {FIXTURES_DIR, kernelConfigs} from '../helpers/corpus.js'

/**
 * What every bundle fixture here leaves unknown besides its own gaps: written by a collector from before it said where it ran
 * and read the nft of kube-proxy's image in its pod, they lack both; kube-proxy's image only the cluster shows.
 */
const BEFORE_WHERE = {
  // The machine-id and ipsets sections came after these bundles.
  'ipvs.kubeIpsets': 'not-collected',
  'node.machineID': 'not-collected',
  'node.systemUUID': 'not-collected',
  'collector.where': 'not-collected',
  'kubeProxy.image': 'not-collected',
  'kubeProxy.nftVersion': 'not-collected',
  // Sections the collector prints since these bundles were made: nft-json, ruleset-flush, ipvs-balancers, rollback-kernel, iptables-nft-incompatible.
  'kubeProxy.nftJson': 'not-collected',
  'netfilter.flushRulesetFiles': 'not-collected',
  'netfilter.nftablesServiceEnabled': 'not-collected',
  'netfilter.firewalldFlushAllOnReload': 'not-collected',
  'ipvs.balancers': 'not-collected',
  'netfilter.iptablesKernel': 'not-collected',
  'netfilter.ipvsKernel': 'not-collected',
  'iptables.nftIncompatibleTables': 'not-collected',
  // verify --baseline's facts come from a pre-switch report, verify --watch's compare two reads: never from one bundle.
  ...Object.fromEntries([...factsProvidedBy('baseline'), ...factsProvidedBy('watch')].map((path) => [path, 'not-collected'])),
  // kube-proxy-healthz came after these bundles.
  'kubeProxy.healthzHealthy': 'not-collected',
  'kubeProxy.healthzFamilies': 'not-collected',
  'kubeProxy.unhealthyFamilies': 'not-collected',
  'kubeProxy.nodeEligible': 'not-collected',
}

function factsOf(fixture: string, fallbackName = 'fallback'): FactSet {
  return bundleFacts(readFileSync(join(FIXTURES_DIR, 'bundles', `${fixture}.facts`), 'utf8'), fallbackName)
}

/** A whole bundle from `### name` → text pairs. */
function bundle(sections: Record<string, string>): string {
  return ['# kpx-check node facts v1', ...Object.entries(sections).flatMap(([name, text]) => [`### ${name}`, text]), '### end'].join('\n')
}

function derive(sections: Record<string, string>, fallbackName = 'node-from-file'): FactSet {
  return bundleFacts(bundle(sections), fallbackName)
}

function assertAnswersEveryFact(facts: FactSet): void {
  const unknown = new Set(facts.unknownEntries().map(([path]) => path))
  for (const spec of NODE_FACTS) {
    assert.ok(facts.has(spec.path) !== unknown.has(spec.path), `${spec.path} is either known or unknown, not both or neither`)
  }

  for (const path of facts.knownPaths()) assert.ok(NODE_FACTS.some((spec) => spec.path === path), `${path} is in the catalogue`)
}

/** Every known value has the catalogue's type. */
function assertTypes(facts: FactSet): void {
  for (const spec of NODE_FACTS) {
    const value = facts.get(spec.path)
    if (value === undefined) continue
    const ok: Record<string, (candidate: FactValue) => boolean> = {
      string: (candidate) => typeof candidate === 'string',
      bool: (candidate) => typeof candidate === 'boolean',
      int: (candidate) => typeof candidate === 'number' && Number.isInteger(candidate),
      'list<string>': (candidate) => Array.isArray(candidate) && candidate.every((item) => typeof item === 'string'),
    }
    assert.ok(ok[spec.type]?.(value), `${spec.path} = ${JSON.stringify(value)} is a ${spec.type}`)
  }
}

function reasons(facts: FactSet): Record<string, string> {
  return Object.fromEntries(facts.unknownEntries().map(([path, fact]) => [path, fact.reason]))
}

/** These bundles were written before the collector counted kube-proxy's iptables Service chains (svc=)… */
const BEFORE_SERVICE_CHAINS = {'iptables.serviceChainRules': 'not-collected', 'iptables.serviceChainBackends': 'not-collected'}
/** …and kept kube-proxy's sync timestamps. */
const BEFORE_SYNC_TIMES = {'kubeProxy.syncedFamilies': 'not-present', 'kubeProxy.pendingSyncSeconds': 'not-present'}

interface FixtureCase {
  fixture: string
  known: Record<string, FactValue>
  unknown: Record<string, string>
}

const FIXTURES: FixtureCase[] = [
  {
    fixture: 'debian-12-iptables-root',
    known: {
      'node.name': 'worker-bookworm-1',
      'collector.root': true,
      'collector.version': '0.1.0',
      'kernel.release': '6.1.0-18-cloud-amd64',
      'kernel.version': '6.1.0',
      'os.id': 'debian',
      'os.idLike': [],
      'os.versionId': '12',
      'os.prettyName': 'Debian GNU/Linux 12 (bookworm)',
      'nft.installed': true,
      'nft.version': '1.0.6',
      'iptables.version': '1.8.9',
      'iptables.backend': 'nf_tables',
      'iptables.legacyRules': 0,
      'iptables.nftKubeRules': 191,
      'iptables.forwardPolicy': 'DROP',
      'netfilter.nfTables': 'loaded',
      'netfilter.missingFeatures': [],
      'netfilter.checkPassed': true,
      'netfilter.dropPolicyChains': ['ip filter FORWARD'],
      'ipvs.virtualServers': 0,
      'ipvs.kubeIpvs0': false,
      'ipvs.serviceVirtualServers': 0,
      'sysctl.routeLocalnet': 1,
      'services.active': ['docker'],
      'addresses.ipv4Global': ['10.20.0.11/24', '192.168.50.11/24'],
      'addresses.ipv6Global': ['2001:db8:20::11/64'],
      'kubeProxy.mode': 'iptables',
      'kubeProxy.runtime': 'container',
      'kubeProxy.skipKernelCheck': false,
      'kubeProxy.ctInvalidDropped': 1_500_000,
      'kubeProxy.localhostNodePortsAccepted': 42,
    },
    unknown: {'sysctl.connReuseMode': 'not-present', 'kubeProxy.nftablesSyncFailures': 'not-present', ...BEFORE_SERVICE_CHAINS, ...BEFORE_SYNC_TIMES},
  },
  {
    fixture: 'ubuntu-20.04-ipvs-nonroot',
    known: {
      'node.name': 'ip-10-0-1-23',
      'collector.root': false,
      'kernel.version': '5.4.0',
      'os.id': 'ubuntu',
      'os.versionId': '20.04',
      'os.idLike': ['debian'],
      'nft.installed': false,
      'iptables.backend': 'legacy',
      'netfilter.nfTables': 'module',
      'netfilter.missingFeatures': [],
      'ipvs.virtualServers': 7,
      'ipvs.schedulers': ['rr', 'sh'],
      'ipvs.kubeIpvs0': true,
      'ipvs.kubeIpvs0Addresses': 4,
      // Six of its seven virtual servers are on kube-ipvs0's four Service IPs (10.96.0.10 has three ports); 10.0.1.23:30005 is a NodePort.
      'ipvs.serviceVirtualServers': 6,
      'sysctl.connReuseMode': 0,
      'services.active': ['keepalived'],
      // kube-ipvs0's Service IPs are not node addresses; the keepalived VIP is.
      'addresses.ipv4Global': ['10.0.1.23/24', '10.0.1.250/32'],
      'kubeProxy.mode': 'ipvs',
    },
    unknown: {
      'nft.version': 'not-installed',
      'iptables.legacyRules': 'permission-denied',
      'iptables.legacyKubeRules': 'permission-denied',
      'iptables.nftRules': 'permission-denied',
      'iptables.nftKubeRules': 'permission-denied',
      'iptables.inputPolicy': 'permission-denied',
      'iptables.forwardPolicy': 'permission-denied',
      'netfilter.checkPassed': 'not-installed',
      'netfilter.checkOutput': 'not-installed',
      'netfilter.tables': 'not-installed',
      'netfilter.dropPolicyChains': 'not-installed',
      'netfilter.dropPolicyHooks': 'not-installed',
      'kubeProxy.skipKernelCheck': 'permission-denied',
      'iptables.serviceChainRules': 'permission-denied',
      'iptables.serviceChainBackends': 'permission-denied',
      'netfilter.kubeProxyObjects': 'not-installed',
      ...BEFORE_SYNC_TIMES,
      // IPVS mode exports none of the three.
      'kubeProxy.localhostNodePortsAccepted': 'not-present',
      'kubeProxy.ctInvalidDropped': 'not-present',
      'kubeProxy.nftablesSyncFailures': 'not-present',
    },
  },
  {
    fixture: 'rhel-8.10-firewalld',
    known: {
      'kernel.release': '4.18.0-553.el8_10.x86_64',
      'kernel.version': '4.18.0',
      'os.id': 'rhel',
      'os.versionId': '8.10',
      'os.idLike': ['fedora'],
      'nft.version': '1.0.4',
      'iptables.version': '1.8.4',
      'iptables.backend': 'nf_tables',
      'netfilter.missingFeatures': [],
      'netfilter.tables': ['ip mangle', 'ip filter', 'ip nat', 'ip6 mangle', 'ip6 filter', 'ip6 nat', 'inet firewalld'],
      'netfilter.dropPolicyChains': [],
      'services.active': ['firewalld'],
      'kubeProxy.ctInvalidDropped': 0,
    },
    // RHEL 8 ships no iptables-legacy.
    unknown: {
      'iptables.legacyRules': 'not-installed',
      'iptables.legacyKubeRules': 'not-installed',
      'sysctl.connReuseMode': 'not-present',
      'kubeProxy.nftablesSyncFailures': 'not-present',
      ...BEFORE_SERVICE_CHAINS,
      ...BEFORE_SYNC_TIMES,
    },
  },
  {
    fixture: 'cbl-mariner-2.0-nftables-fib-missing',
    known: {
      'kernel.version': '5.15.138',
      'os.id': 'mariner',
      'os.versionId': '2.0',
      'nft.version': '1.0.1',
      'netfilter.nfTables': 'loaded',
      'netfilter.missingFeatures': ['nft_fib_ipv4', 'nft_fib_ipv6'],
      'netfilter.checkPassed': false,
      'netfilter.checkOutput': '/dev/stdin:14:3-22: Error: Could not process rule: No such file or directory\n\t\tfib daddr type local\n\t\t^^^^^^^^^^^^^^^^^^^^',
      'netfilter.tables': ['ip mangle', 'ip filter', 'ip nat', 'ip6 mangle', 'ip6 filter', 'ip6 nat', 'ip kube-proxy', 'ip6 kube-proxy'],
      'kubeProxy.mode': 'nftables',
      'kubeProxy.nftablesSyncFailures': 17,
    },
    // nftables mode does not export the iptables metrics.
    unknown: {
      'iptables.legacyRules': 'not-installed',
      'iptables.legacyKubeRules': 'not-installed',
      'sysctl.connReuseMode': 'not-present',
      'kubeProxy.localhostNodePortsAccepted': 'not-present',
      'kubeProxy.ctInvalidDropped': 'not-present',
      // Its kube-proxy tables, listed without the set and map lines the collector keeps now.
      'netfilter.kubeProxyObjects': 'not-collected',
      ...BEFORE_SERVICE_CHAINS,
      ...BEFORE_SYNC_TIMES,
    },
  },
]

describe('deriveNodeFacts on the bundle fixtures', () => {
  for (const {fixture, known, unknown} of FIXTURES) {
    describe(fixture, () => {
      const facts = factsOf(fixture)

      it('answers every catalogue path, with the catalogue type', () => {
        assertAnswersEveryFact(facts)
        assertTypes(facts)
      })

      it('has the expected values', () => {
        const actual = Object.fromEntries(Object.keys(known).map((path) => [path, facts.get(path)]))
        assert.deepEqual(actual, known)
      })

      it('has the expected unknowns, and no others', () => {
        assert.deepEqual(reasons(facts), {...unknown, ...BEFORE_WHERE})
      })
    })
  }

  it('describes a node for the report', () => {
    assert.deepEqual(describeNode(factsOf('rhel-8.10-firewalld')), {
      name: 'rhel8-worker-07.corp.example',
      kernelRelease: '4.18.0-553.el8_10.x86_64',
      os: {id: 'rhel', versionId: '8.10', prettyName: 'Red Hat Enterprise Linux 8.10 (Ootpa)'},
      nftVersion: '1.0.4',
      proxyMode: {running: 'iptables', evidence: '/proxyMode answered iptables'},
    })
    assert.equal(describeNode(factsOf('ubuntu-20.04-ipvs-nonroot')).nftVersion, null)
  })
})

describe('deriveNodeFacts unknown reasons', () => {
  it('an empty bundle: every fact not-collected, the node named after its file', () => {
    const facts = bundleFacts('# kpx-check node facts v1\n### end\n', 'node-from-file')
    assertAnswersEveryFact(facts)
    assert.equal(facts.get('node.name'), 'node-from-file')
    const unknowns = facts.unknownEntries()
    assert.equal(unknowns.length, NODE_FACTS.length - 1)
    for (const [path, fact] of unknowns) assert.equal(fact.reason, 'not-collected', path)
    assert.equal(facts.whyUnknown('kernel.release')?.detail, 'the bundle has no "kernel-release" section')
    assert.deepEqual(describeNode(facts), {
      name: 'node-from-file',
      kernelRelease: null,
      os: {id: null, versionId: null, prettyName: null},
      nftVersion: null,
      proxyMode: {running: null, evidence: 'not-collected: nothing on the node shows the mode kube-proxy runs in (/proxyMode: not-collected, the bundle has no "kube-proxy-mode" section)'},
    })
  })

  it('keeps the reason and detail the collector gave in unavailable', () => {
    const facts = derive({
      'kernel-release': '6.8.0-52-generic',
      unavailable: 'iptables-rules permission-denied iptables-save needs root\nkube-proxy-mode unreachable connection to 127.0.0.1:10249 refused\nsysctl timeout sysctl did not finish in 5s\nservices exploded badly',
    })
    assert.deepEqual(facts.whyUnknown('iptables.nftKubeRules'), {reason: 'permission-denied', detail: 'iptables-save needs root'})
    assert.deepEqual(facts.whyUnknown('kubeProxy.mode'), {reason: 'unreachable', detail: 'connection to 127.0.0.1:10249 refused'})
    assert.equal(facts.whyUnknown('sysctl.routeLocalnet')?.reason, 'timeout')
    // An unknown reason word becomes "failed" with the whole text as detail (bundle.ts).
    assert.deepEqual(facts.whyUnknown('services.active'), {reason: 'failed', detail: 'exploded badly'})
  })

  it('text that does not look like the command output is unparseable, with a short quote', () => {
    const facts = derive({
      collector: 'hello world',
      'kernel-release': 'Linux version 6.1.0',
      'os-release': 'cat: /etc/os-release: Permission denied',
      'nft-version': 'nft: error while loading shared libraries: libnftables.so.1',
      'iptables-version': 'Segmentation fault',
      'iptables-policies': 'Chain INPUT (policy ACCEPT)',
      'nft-check': 'Error: syntax error, unexpected newline',
      ipvs: 'TCP  10.96.0.1:443 rr',
      'kube-proxy-mode': '404 page not found',
      'kube-proxy-metrics': '<html><body>Unauthorized</body></html>',
    })
    const expected = [
      'collector.root',
      'kernel.release',
      'kernel.version',
      'os.id',
      'nft.version',
      'iptables.version',
      'iptables.inputPolicy',
      'netfilter.checkPassed',
      'ipvs.virtualServers',
      'kubeProxy.mode',
      'kubeProxy.ctInvalidDropped',
    ]
    for (const path of expected) assert.equal(facts.whyUnknown(path)?.reason, 'unparseable', path)
    // nft printed something, so a binary is there even though its banner is unreadable.
    assert.equal(facts.get('nft.installed'), true)
    assert.match(facts.whyUnknown('kubeProxy.mode')!.detail, /^kube-proxy-mode: expected iptables, ipvs or nftables, found "404 page not found"$/)
  })

  it('a kernel release ParseGeneric rejects: release known, version unparseable', () => {
    const facts = derive({'kernel-release': 'linux-custom'})
    assert.equal(facts.get('kernel.release'), 'linux-custom')
    assert.equal(facts.whyUnknown('kernel.version')?.reason, 'unparseable')
  })

  it('nft: an empty section or "not found" means not installed', () => {
    for (const text of ['', 'sh: 1: nft: not found']) {
      const facts = derive({'nft-version': text})
      assert.equal(facts.get('nft.installed'), false)
      assert.equal(facts.whyUnknown('nft.version')?.reason, 'not-installed')
    }

    const listed = derive({unavailable: 'nft-version not-installed nft is not in PATH'})
    assert.equal(listed.get('nft.installed'), false)
    assert.deepEqual(listed.whyUnknown('nft.version'), {reason: 'not-installed', detail: 'nft is not in PATH'})

    const failed = derive({unavailable: 'nft-version timeout nft --version did not finish in 5s'})
    assert.equal(failed.whyUnknown('nft.installed')?.reason, 'timeout')
  })

  it('collector: uid 0 is root; a missing uid is unparseable', () => {
    assert.equal(derive({collector: 'version=0.1.0\nuid=1000'}).get('collector.root'), false)
    assert.equal(derive({collector: 'version=0.1.0\nuid=0'}).get('collector.root'), true)
    const facts = derive({collector: 'version=0.2.0'})
    assert.equal(facts.get('collector.version'), '0.2.0')
    assert.equal(facts.whyUnknown('collector.root')?.reason, 'unparseable')
  })

  it('hostname: first line trimmed, else the fallback', () => {
    assert.equal(derive({hostname: '  worker-7  \nextra'}).get('node.name'), 'worker-7')
    assert.equal(derive({hostname: ''}).get('node.name'), 'node-from-file')
  })

  it('os-release without VERSION_ID: versionId not-present', () => {
    const facts = derive({'os-release': 'ID=gardenlinux\nID_LIKE=debian\nPRETTY_NAME="Garden Linux 1877.9"'})
    assert.equal(facts.get('os.id'), 'gardenlinux')
    assert.deepEqual(facts.get('os.idLike'), ['debian'])
    assert.equal(facts.whyUnknown('os.versionId')?.reason, 'not-present')
  })

  it('IPVS not loaded: no /proc/net/ip_vs and no kube-ipvs0 are facts, not unknowns', () => {
    const facts = derive({unavailable: 'ipvs not-present /proc/net/ip_vs does not exist\nkube-ipvs0 not-present Device "kube-ipvs0" does not exist.'})
    assert.equal(facts.get('ipvs.virtualServers'), 0)
    assert.deepEqual(facts.get('ipvs.schedulers'), [])
    assert.equal(facts.get('ipvs.kubeIpvs0'), false)
    assert.equal(facts.get('ipvs.kubeIpvs0Addresses'), 0)
    assert.equal(facts.get('ipvs.serviceVirtualServers'), 0)
    const denied = derive({unavailable: 'ipvs permission-denied /proc/net/ip_vs is not readable'})
    assert.equal(denied.whyUnknown('ipvs.virtualServers')?.reason, 'permission-denied')
    assert.equal(denied.whyUnknown('ipvs.serviceVirtualServers')?.reason, 'permission-denied')
  })

  it("IPVS virtual servers of Services: those on kube-ipvs0's addresses, IPv4 and IPv6 alike", () => {
    const ipvs = `IP Virtual Server version 1.2.1 (size=4096)
Prot LocalAddress:Port Scheduler Flags
  -> RemoteAddress:Port Forward Weight ActiveConn InActConn
TCP  0A600001:01BB rr
TCP  [fd00:0010:0096:0000:0000:0000:0000:000a]:0035 rr
TCP  C0A80164:192B rr`
    const kubeIpvs0 = [
      String.raw`7: kube-ipvs0    inet 10.96.0.1/32 scope global kube-ipvs0\       valid_lft forever preferred_lft forever`,
      String.raw`7: kube-ipvs0    inet6 fd00:10:96::a/128 scope global \       valid_lft forever preferred_lft forever`,
    ].join('\n')
    // 10.96.0.1:443 and [fd00:10:96::a]:53 are on kube-ipvs0; 192.168.1.100:6443 (kube-vip's) is not.
    assert.equal(derive({ipvs, 'kube-ipvs0': kubeIpvs0}).get('ipvs.serviceVirtualServers'), 2)
    // kube-proxy's cleanup deletes kube-ipvs0 after its flush: the virtual servers left without it are another component's.
    assert.equal(derive({ipvs, 'kube-ipvs0': ''}).get('ipvs.serviceVirtualServers'), 0)
    assert.equal(derive({ipvs, unavailable: 'kube-ipvs0 not-installed ip'}).whyUnknown('ipvs.serviceVirtualServers')?.reason, 'not-installed')
  })

  it('KUBE-* ipsets: the names, none for an empty section, and never a name in other characters', () => {
    assert.deepEqual(derive({ipsets: 'KUBE-CLUSTER-IP\nKUBE-6-LOOP-BACK\n'}).get('ipvs.kubeIpsets'), ['KUBE-CLUSTER-IP', 'KUBE-6-LOOP-BACK'])
    assert.deepEqual(derive({ipsets: ''}).get('ipvs.kubeIpsets'), [])
    assert.equal(derive({ipsets: 'KUBE-X; rm -rf /\n'}).whyUnknown('ipvs.kubeIpsets')?.reason, 'unparseable')
    assert.equal(derive({unavailable: 'ipsets not-installed ipset'}).whyUnknown('ipvs.kubeIpsets')?.reason, 'not-installed')
  })

  it('sysctls: absent ones are not-present, non-numbers unparseable', () => {
    const facts = derive({sysctl: 'net.ipv4.conf.all.route_localnet = 1\nnet.netfilter.nf_conntrack_tcp_be_liberal = yes'})
    assert.equal(facts.get('sysctl.routeLocalnet'), 1)
    assert.equal(facts.whyUnknown('sysctl.tcpBeLiberal')?.reason, 'unparseable')
    assert.equal(facts.whyUnknown('sysctl.connReuseMode')?.reason, 'not-present')
  })

  it('metrics: absent from a reachable endpoint is not-present; an unreachable endpoint is unreachable', () => {
    const empty = derive({'kube-proxy-metrics': ''})
    for (const path of ['kubeProxy.localhostNodePortsAccepted', 'kubeProxy.ctInvalidDropped', 'kubeProxy.nftablesSyncFailures']) {
      assert.equal(empty.whyUnknown(path)?.reason, 'not-present', path)
    }

    const down = derive({unavailable: 'kube-proxy-metrics unreachable connection to 127.0.0.1:10249 refused'})
    assert.equal(down.whyUnknown('kubeProxy.nftablesSyncFailures')?.reason, 'unreachable')
    const inf = derive({'kube-proxy-metrics': 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total +Inf'})
    assert.equal(inf.whyUnknown('kubeProxy.nftablesSyncFailures')?.reason, 'unparseable')
    const float = derive({'kube-proxy-metrics': 'kubeproxy_iptables_ct_state_invalid_dropped_packets_total 2.7e+01'})
    assert.equal(float.get('kubeProxy.ctInvalidDropped'), 27)
  })

  it('kube-proxy process: none running, k3s, and the skip variable', () => {
    const none = derive({'kube-proxy-process': 'skip-kernel-check=unset'})
    assert.equal(none.get('kubeProxy.runtime'), 'none')
    assert.equal(none.whyUnknown('kubeProxy.skipKernelCheck')?.reason, 'not-present')
    const k3s = derive({'kube-proxy-process': 'pid=812 exe=k3s-server container=no args=server\nskip-kernel-check=set'})
    assert.equal(k3s.get('kubeProxy.runtime'), 'k3s')
    assert.equal(k3s.get('kubeProxy.skipKernelCheck'), true)
    const noLine = derive({'kube-proxy-process': 'pid=1 exe=kube-proxy container=yes'})
    assert.equal(noLine.whyUnknown('kubeProxy.skipKernelCheck')?.reason, 'not-collected')
  })

  it('nft -c: exit 0 passes, another code fails with the output, 127 means no nft', () => {
    const passed = derive({'nft-check': 'exit=0'})
    assert.equal(passed.get('netfilter.checkPassed'), true)
    assert.equal(passed.get('netfilter.checkOutput'), '')
    const failed = derive({'nft-check': 'exit=1\nError: Could not process rule: No such file or directory'})
    assert.equal(failed.get('netfilter.checkPassed'), false)
    assert.equal(failed.get('netfilter.checkOutput'), 'Error: Could not process rule: No such file or directory')
    assert.equal(derive({'nft-check': 'exit=127\nsh: nft: not found'}).whyUnknown('netfilter.checkPassed')?.reason, 'not-installed')
  })

  it('iptables rule counts: a backend without its save command is not-installed', () => {
    const facts = derive({'iptables-rules': 'legacy total=14 kube=9'})
    assert.equal(facts.get('iptables.legacyKubeRules'), 9)
    assert.equal(facts.whyUnknown('iptables.nftRules')?.reason, 'not-installed')
  })
})

describe('deriveNodeFacts kernel evidence', () => {
  const debianConfig = kernelConfigs().get('6.1.0-18-cloud-amd64')!
  const fibless = kernelConfigs().get('5.15.138.1-4.cm2')!

  it('no kernel source at all: both facts unknown with the config reason', () => {
    const facts = derive({
      unavailable: 'kernel-config not-present neither /proc/config.gz nor /boot/config-6.1.0 exists\nmodules permission-denied x\nmodules-builtin not-present y\nmodules-available not-present z',
    })
    assert.equal(facts.whyUnknown('netfilter.nfTables')?.reason, 'not-present')
    assert.equal(facts.whyUnknown('netfilter.missingFeatures')?.reason, 'not-present')
    assert.match(facts.whyUnknown('netfilter.missingFeatures')!.detail, /kernel-config: not-present/)
  })

  it('the config alone decides', () => {
    assert.deepEqual(derive({'kernel-config': debianConfig}).get('netfilter.missingFeatures'), [])
    assert.equal(derive({'kernel-config': debianConfig}).get('netfilter.nfTables'), 'module')
    assert.deepEqual(derive({'kernel-config': fibless}).get('netfilter.missingFeatures'), ['nft_fib_ipv4', 'nft_fib_ipv6'])
  })

  it('without a config, modules.builtin and modules.dep decide', () => {
    const facts = derive({
      'modules-builtin': 'kernel/net/netfilter/nf_conntrack.ko\nkernel/net/netfilter/nf_nat.ko',
      'modules-available': ['nf_tables', 'nft_ct', 'nft_nat', 'nft_chain_nat', 'nft_masq', 'nft_reject', 'nft_reject_inet', 'nft_numgen'].map((name) => `kernel/net/netfilter/${name}.ko.zst`).join('\n'),
      unavailable: 'kernel-config permission-denied /boot/config-6.8.0-52-generic is mode 0600',
    })
    assert.deepEqual(facts.get('netfilter.missingFeatures'), ['nft_fib_ipv4', 'nft_fib_ipv6'])
    assert.equal(facts.get('netfilter.nfTables'), 'module')
  })

  it('with only /proc/modules, what is not loaded cannot be ruled out', () => {
    const facts = derive({
      modules: 'nf_tables 249856 3 nft_ct,nft_compat, Live 0x0000000000000000\nnft_ct 28672 1 - Live 0x0000000000000000\nnft_compat 20480 1 - Live 0x0000000000000000',
      unavailable: 'kernel-config permission-denied /boot/config is mode 0600',
    })
    assert.equal(facts.get('netfilter.nfTables'), 'loaded')
    const why = facts.whyUnknown('netfilter.missingFeatures')
    assert.equal(why?.reason, 'permission-denied')
    assert.match(why!.detail, /cannot rule out a missing nft_nat, nft_chain_nat, nft_masq, nft_reject, nft_fib_ipv4, nft_fib_ipv6, nft_numgen, nf_conntrack, nf_nat/)
  })

  it('a feature found missing is reported even if others stay undetermined', () => {
    const facts = derive({'kernel-config': '# source: /proc/config.gz\n# CONFIG_NF_TABLES is not set'})
    assert.equal(facts.get('netfilter.nfTables'), 'missing')
    // nf_conntrack and nf_nat stay undetermined: the excerpt says nothing about them.
    assert.deepEqual(facts.get('netfilter.missingFeatures'), ['nf_tables', 'nft_ct', 'nft_nat', 'nft_chain_nat', 'nft_masq', 'nft_reject', 'nft_fib_ipv4', 'nft_fib_ipv6', 'nft_numgen'])
  })

  it('an unparseable source counts as unavailable', () => {
    const facts = derive({'kernel-config': 'zcat: /proc/config.gz: No such file or directory', modules: 'garbage'})
    assert.equal(facts.whyUnknown('netfilter.missingFeatures')?.reason, 'unparseable')
  })
})

describe('which nft kube-proxy runs', () => {
  const inPod = (nft: string) => ({
    collector: 'version=0.1.0\nuid=0\ntime=2026-12-01T10:00:00Z\nwhere=kube-proxy-pod',
    hostname: 'worker-bookworm-1',
    'kube-proxy-nft-version': nft,
    'kube-proxy-process': 'pid=2011 exe=kube-proxy container=yes args=--config=/var/lib/kube-proxy/config.conf\nskip-kernel-check=unset',
    unavailable: "nft-version not-present the node's own nft is not reachable from the kube-proxy container (the nft there is the image's: kube-proxy-nft-version)",
  })

  it("in kube-proxy's pod: the image's nft is kube-proxy's, and the host's is not known", () => {
    const facts = derive(inPod('nftables v1.0.6.1 (Lester Gooch #5)'))
    assert.equal(facts.get('collector.where'), 'kube-proxy-pod')
    assert.equal(facts.get('kubeProxy.nftVersion'), '1.0.6.1')
    assert.equal(facts.whyUnknown('nft.version')?.reason, 'not-present')
    assert.equal(facts.whyUnknown('nft.installed')?.reason, 'not-present')
    assert.deepEqual(describeNode(facts).kubeProxyNftVersion, '1.0.6.1')
  })

  it('an image without nft, or a banner that is not one, leaves it unknown with why', () => {
    assert.equal(derive(inPod('')).whyUnknown('kubeProxy.nftVersion')?.reason, 'not-installed')
    assert.equal(derive(inPod('Segmentation fault')).whyUnknown('kubeProxy.nftVersion')?.reason, 'unparseable')
  })

  it("on the host: kube-proxy on the host runs the host's nft; a containerised one, its image's, which the host bundle lacks", () => {
    const onHost = (container: 'no' | 'yes') =>
      derive({
        collector: 'version=0.1.0\nuid=0\ntime=2026-12-01T10:00:00Z\nwhere=host',
        hostname: 'worker-bookworm-1',
        'nft-version': 'nftables v1.1.6 (Commodore Bullmoose #7)',
        'kube-proxy-process': `pid=812 exe=kube-proxy container=${container} args=--config=/var/lib/kube-proxy/config.conf\nskip-kernel-check=unset`,
        unavailable: "kube-proxy-nft-version not-present the collector ran on the host: the nft in kube-proxy's image is read in its pod (kpx-check cluster --node-probe exec)",
      })
    assert.equal(onHost('no').get('kubeProxy.nftVersion'), '1.1.6')
    assert.equal(onHost('yes').whyUnknown('kubeProxy.nftVersion')?.reason, 'not-present')
    assert.equal(onHost('yes').get('nft.version'), '1.1.6')
    assert.equal(onHost('yes').get('collector.where'), 'host')
  })
})
