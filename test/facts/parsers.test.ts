import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {isNodeInterface, nodeGlobalAddresses, parseIpAddresses} from '../../src/facts/parsers/addresses.js'
import {parseCollectorInfo, parseHostname} from '../../src/facts/parsers/collector.js'
import {parseIptablesPolicies, parseIptablesRuleCounts} from '../../src/facts/parsers/iptables.js'
import {parseKubeIpvs0, parseProcIpVs} from '../../src/facts/parsers/ipvs.js'
import {parseKernelConfig} from '../../src/facts/parsers/kernel-config.js'
import {kubeProxyRuntime, metricTotals, parseKubeProxyProcess, parseMetricSamples, parseProxyMode, selectMetricFamilies} from '../../src/facts/parsers/kube-proxy.js'

const parsePrometheusText = (text: string) => {
  const samples = parseMetricSamples(text)
  return samples && metricTotals(samples)
}
import {parseNftChains, parseNftCheck, parseNftTables} from '../../src/facts/parsers/nft-ruleset.js'
import {activeServices, parseServices} from '../../src/facts/parsers/services.js'
import {parseSysctl, sysctlInt} from '../../src/facts/parsers/sysctl.js'

describe('/proc/net/ip_vs', () => {
  // The kernel's format (ip_vs_ctl.c): hex addresses, a trailing space after the scheduler.
  const table = [
    'IP Virtual Server version 1.2.1 (size=4096)',
    'Prot LocalAddress:Port Scheduler Flags',
    '  -> RemoteAddress:Port Forward Weight ActiveConn InActConn',
    'TCP  0A600001:01BB rr ',
    '  -> 0A00010A:192B      Masq    1      0          0         ',
    '  -> 0A00010B:192B      Masq    1      3          12        ',
    'TCP  0A60000A:0035 rr ',
    '  -> 0AF40002:0035      Masq    1      0          0         ',
    'UDP  0A60000A:0035 rr ',
    '  -> 0AF40002:0035      Masq    1      0          0         ',
    'TCP  0A6AC20C:0050 sh persistent 10800 FFFFFFFF',
    '  -> 0AF40111:1F90      Masq    1      0          0         ',
    'FWM  00000001 wlc ',
    'TCP  [fd00:0010:0000:0000:0000:0000:0000:0001]:01BB lc ',
    '  -> [fd00:0244:0000:0000:0000:0000:0000:0005]:1F90      Masq    1      0          0',
  ].join('\n')

  it('counts virtual servers and collects schedulers and the addresses of address virtual servers (written out by hand from the hex)', () => {
    assert.deepEqual(parseProcIpVs(table), {
      virtualServers: 6,
      realServers: 6,
      schedulers: ['rr', 'sh', 'wlc', 'lc'],
      addresses: ['10.96.0.1', '10.96.0.10', '10.96.0.10', '10.106.194.12', 'fd00:10::1'],
    })
  })

  it('reads an empty table (ip_vs loaded, no services) and an empty file', () => {
    assert.deepEqual(parseProcIpVs(table.split('\n').slice(0, 3).join('\n')), {virtualServers: 0, realServers: 0, schedulers: [], addresses: []})
    assert.deepEqual(parseProcIpVs(''), {virtualServers: 0, realServers: 0, schedulers: [], addresses: []})
  })

  it('rejects ipvsadm -Ln output (dotted addresses) and other text', () => {
    assert.equal(parseProcIpVs('IP Virtual Server version 1.2.1 (size=4096)\nTCP  10.96.0.1:443 rr\n'), undefined)
    assert.equal(parseProcIpVs('cat: /proc/net/ip_vs: No such file or directory'), undefined)
  })

  it('reads kube-ipvs0 addresses', () => {
    const text = [
      String.raw`7: kube-ipvs0    inet 10.96.0.1/32 scope global kube-ipvs0\       valid_lft forever preferred_lft forever`,
      String.raw`7: kube-ipvs0    inet 10.96.0.10/32 scope global kube-ipvs0\       valid_lft forever preferred_lft forever`,
      String.raw`7: kube-ipvs0    inet6 fd00:10::1/128 scope global \       valid_lft forever preferred_lft forever`,
    ].join('\n')
    assert.deepEqual(parseKubeIpvs0(text), {exists: true, addresses: ['10.96.0.1', '10.96.0.10', 'fd00:10::1']})
    assert.deepEqual(parseKubeIpvs0(''), {exists: false, addresses: []})
    assert.deepEqual(parseKubeIpvs0('Device "kube-ipvs0" does not exist.'), {exists: false, addresses: []})
    assert.equal(parseKubeIpvs0('2: eth0    inet 10.0.0.5/24 scope global eth0'), undefined)
  })
})

describe('sysctl', () => {
  it('reads name = value lines and skips errors', () => {
    const values = parseSysctl(
      'net.ipv4.conf.all.route_localnet = 1\nsysctl: cannot stat /proc/sys/net/ipv4/vs/conn_reuse_mode: No such file or directory\nnet.netfilter.nf_conntrack_tcp_be_liberal=0\n',
    )
    assert.deepEqual([...values], [
      ['net.ipv4.conf.all.route_localnet', '1'],
      ['net.netfilter.nf_conntrack_tcp_be_liberal', '0'],
    ])
  })

  it('sysctlInt takes whole numbers only', () => {
    assert.equal(sysctlInt('1'), 1)
    assert.equal(sysctlInt(' -1 '), -1)
    assert.equal(sysctlInt('4096\t87380'), undefined)
    assert.equal(sysctlInt(''), undefined)
  })
})

describe('services', () => {
  it('reads systemctl is-active states', () => {
    const services = parseServices('# method: systemctl\nfirewalld active\nufw inactive\nnftables failed\ndocker active\nkeepalived inactive\n')!
    assert.equal(services.method, 'systemctl')
    assert.deepEqual(activeServices(services), ['firewalld', 'docker'])
  })

  it('reads proc states and lines without a method', () => {
    assert.deepEqual(activeServices(parseServices('# method: proc\ndocker running\nfirewalld absent')!), ['docker'])
    assert.deepEqual(activeServices(parseServices('keepalived active')!), ['keepalived'])
    assert.deepEqual(activeServices(parseServices('')!), [])
  })

  it('rejects other text', () => {
    assert.equal(parseServices('Failed to connect to bus: No such file or directory'), undefined)
  })
})

describe('iptables', () => {
  it('reads -P lines', () => {
    assert.deepEqual([...parseIptablesPolicies('-P INPUT ACCEPT\n-P FORWARD DROP\n-P OUTPUT ACCEPT -c 0 0\n')!], [
      ['INPUT', 'ACCEPT'],
      ['FORWARD', 'DROP'],
      ['OUTPUT', 'ACCEPT'],
    ])
    assert.equal(parseIptablesPolicies('iptables v1.8.7 (nf_tables): chain `INPUT\' in table `filter\' is incompatible, use \'nft\' tool.'), undefined)
  })

  it('reads rule counts of one or both backends', () => {
    assert.deepEqual(parseIptablesRuleCounts('legacy total=0 kube=0\nnft total=1843 kube=1790\n'), {
      legacy: {total: 0, kube: 0},
      nft: {total: 1843, kube: 1790},
    })
    assert.deepEqual(parseIptablesRuleCounts('nft total=20 kube=6'), {nft: {total: 20, kube: 6}})
    assert.deepEqual(parseIptablesRuleCounts(''), {})
    assert.equal(parseIptablesRuleCounts('legacy total=many'), undefined)
  })
})

describe('nft tables, chains and the -c probe', () => {
  it('reads nft list tables', () => {
    assert.deepEqual(parseNftTables('table ip filter\ntable inet firewalld\ntable ip6 kube-proxy\n'), ['ip filter', 'inet firewalld', 'ip6 kube-proxy'])
    assert.deepEqual(parseNftTables(''), [])
    assert.equal(parseNftTables('Error: Could not process rule: Operation not permitted'), undefined)
  })

  it('finds input and forward base chains with policy drop', () => {
    const text = [
      'table inet firewalld {',
      '\tchain filter_INPUT {',
      '\t\ttype filter hook input priority filter + 10; policy accept;',
      'table ip filter {',
      '\tchain INPUT {',
      '\t\ttype filter hook input priority filter; policy accept;',
      '\tchain FORWARD {',
      '\t\ttype filter hook forward priority filter; policy drop;',
      '\tchain OUTPUT {',
      '\t\ttype filter hook output priority filter; policy drop;',
      'table inet filter { # handle 4',
      '\tchain input { # handle 1',
      '\t\ttype filter hook input priority filter; policy drop;',
      '\tchain "my forward" {',
      '\t\ttype filter hook forward priority 0; policy drop;',
    ].join('\n')
    assert.deepEqual(parseNftChains(text)?.dropPolicyChains, ['ip filter FORWARD', 'inet filter input', 'inet filter my forward'])
    assert.deepEqual(parseNftChains(''), {dropPolicyChains: [], kubeProxyObjects: [], sawSetOrMap: false})
    assert.equal(parseNftChains('nft: command not found'), undefined)
    // kube-proxy's sets and maps, as the captured 1.36.2 ruleset lists them; another table's set is not one.
    const kubeProxy = ['table inet firewalld {', '\tset allowed {', 'table ip kube-proxy {', '\tset cluster-ips {', '\tmap service-ips {', '\tset affinity-YEM2F7UD-demo/lb-affinity/tcp/http__10.244.0.16/8080 {', 'table ip6 kube-proxy {', '\tmap service-ips {'].join('\n')
    assert.deepEqual(parseNftChains(kubeProxy)?.kubeProxyObjects, ['ip cluster-ips', 'ip service-ips', 'ip affinity-YEM2F7UD-demo/lb-affinity/tcp/http__10.244.0.16/8080', 'ip6 service-ips'])
  })

  it('reads the nft -c exit code and output', () => {
    assert.deepEqual(parseNftCheck('exit=0'), {exitCode: 0, output: ''})
    assert.deepEqual(parseNftCheck('exit=1\n/dev/stdin:14:3-22: Error: Could not process rule: No such file or directory\n\t\tfib daddr type local\n'), {
      exitCode: 1,
      output: '/dev/stdin:14:3-22: Error: Could not process rule: No such file or directory\n\t\tfib daddr type local',
    })
    assert.equal(parseNftCheck('Error: syntax error'), undefined)
    assert.equal(parseNftCheck(''), undefined)
  })
})

describe('ip -o addr show scope global', () => {
  const text = [
    String.raw`2: eth0    inet 10.0.0.5/24 brd 10.0.0.255 scope global dynamic eth0\       valid_lft 86380sec preferred_lft 86380sec`,
    String.raw`2: eth0    inet 10.0.0.250/32 scope global eth0\       valid_lft forever preferred_lft forever`,
    String.raw`2: eth0    inet6 2001:db8::5/64 scope global dynamic mngtmpaddr noprefixroute \       valid_lft 86398sec preferred_lft 14398sec`,
    String.raw`3: bond0.100@bond0    inet 192.168.100.7/24 brd 192.168.100.255 scope global bond0.100\       valid_lft forever preferred_lft forever`,
    String.raw`4: docker0    inet 172.17.0.1/16 brd 172.17.255.255 scope global docker0\       valid_lft forever preferred_lft forever`,
    String.raw`5: flannel.1    inet 10.244.1.0/32 scope global flannel.1\       valid_lft forever preferred_lft forever`,
    String.raw`6: cni0    inet 10.244.1.1/24 brd 10.244.1.255 scope global cni0\       valid_lft forever preferred_lft forever`,
    String.raw`7: kube-ipvs0    inet 10.96.0.1/32 scope global kube-ipvs0\       valid_lft forever preferred_lft forever`,
    String.raw`8: cilium_host@cilium_net    inet 10.0.1.38/32 scope global cilium_host\       valid_lft forever preferred_lft forever`,
  ].join('\n')

  it('reads every address with its interface', () => {
    const addresses = parseIpAddresses(text)!
    assert.equal(addresses.length, 9)
    assert.deepEqual(addresses[3], {interface: 'bond0.100', family: 'inet', cidr: '192.168.100.7/24'})
  })

  it('keeps the node addresses and drops container, overlay and Service interfaces', () => {
    assert.deepEqual(nodeGlobalAddresses(parseIpAddresses(text)!), {
      ipv4: ['10.0.0.5/24', '10.0.0.250/32', '192.168.100.7/24'],
      ipv6: ['2001:db8::5/64'],
    })
    for (const name of ['eth0', 'ens5', 'bond0', 'enp0s31f6', 'eth0.100', 'br0']) assert.ok(isNodeInterface(name), name)
  })

  it('rejects other text', () => {
    assert.equal(parseIpAddresses('Command "addr" is unknown, try "ip help".'), undefined)
    assert.deepEqual(parseIpAddresses(''), [])
  })
})

describe('kube-proxy', () => {
  it('reads /proxyMode', () => {
    assert.equal(parseProxyMode('iptables'), 'iptables')
    assert.equal(parseProxyMode('nftables\n'), 'nftables')
    assert.equal(parseProxyMode('ipvs'), 'ipvs')
    assert.equal(parseProxyMode('404 page not found'), undefined)
    assert.equal(parseProxyMode(''), undefined)
  })

  it('sums Prometheus samples across label sets and reads floats', () => {
    const metrics = parsePrometheusText(
      [
        '# HELP kubeproxy_iptables_ct_state_invalid_dropped_packets_total [ALPHA] packets dropped by iptables to work around conntrack problems',
        '# TYPE kubeproxy_iptables_ct_state_invalid_dropped_packets_total counter',
        'kubeproxy_iptables_ct_state_invalid_dropped_packets_total 1.5e+06',
        'kubeproxy_iptables_localhost_nodeports_accepted_packets_total 0',
        'kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family="IPv4"} 3',
        String.raw`kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family="IPv6",note="a } in \"quotes\""} 2 1724486400000`,
      ].join('\n'),
    )!
    assert.equal(metrics.get('kubeproxy_iptables_ct_state_invalid_dropped_packets_total'), 1_500_000)
    assert.equal(metrics.get('kubeproxy_iptables_localhost_nodeports_accepted_packets_total'), 0)
    assert.equal(metrics.get('kubeproxy_sync_proxy_rules_nftables_sync_failures_total'), 5)
    assert.equal(metrics.size, 3)
  })

  it('reads special values and rejects garbage', () => {
    assert.ok(Number.isNaN(parsePrometheusText('x NaN')!.get('x')))
    assert.equal(parsePrometheusText('x +Inf')!.get('x'), Number.POSITIVE_INFINITY)
    assert.deepEqual([...parsePrometheusText('')!], [])
    assert.equal(parsePrometheusText('<html>404</html>'), undefined)
    assert.equal(parsePrometheusText('x{a="1" 3'), undefined)
  })

  it('keeps, of a whole /metrics page, the lines of the families asked for; a page that is no exposition is refused', () => {
    const families = new Set(['kubeproxy_iptables_localhost_nodeports_accepted_packets_total'])
    const page = [
      '# HELP go_goroutines Number of goroutines that currently exist.',
      '# TYPE go_goroutines gauge',
      'go_goroutines 64',
      '# HELP kubeproxy_iptables_localhost_nodeports_accepted_packets_total [ALPHA] Number of packets accepted on nodeports of loopback interface',
      '# TYPE kubeproxy_iptables_localhost_nodeports_accepted_packets_total counter',
      'kubeproxy_iptables_localhost_nodeports_accepted_packets_total 42',
      'kubeproxy_iptables_localhost_nodeports_accepted_packets_total_other 1',
      'rest_client_requests_total{code="200",host="x",method="GET"} 9',
      '',
    ].join('\n')
    assert.equal(selectMetricFamilies(page, families), page.split('\n').slice(3, 6).join('\n'))
    assert.equal(selectMetricFamilies('go_goroutines 64\n', families), '')
    assert.equal(selectMetricFamilies('<html>404</html>', families), undefined)
    assert.equal(selectMetricFamilies('go_goroutines 64\n404 page not found\n', families), undefined)
  })

  it('reads the process lines and the runtime', () => {
    const info = parseKubeProxyProcess(
      'pid=2871 exe=kube-proxy container=yes args=--config=/var/lib/kube-proxy/config.conf --hostname-override=ip-10-0-1-23\nskip-kernel-check=unset\n',
    )!
    assert.deepEqual(info.processes, [{pid: 2871, exe: 'kube-proxy', container: true, args: '--config=/var/lib/kube-proxy/config.conf --hostname-override=ip-10-0-1-23'}])
    assert.equal(info.skipKernelCheck, 'unset')
    assert.equal(kubeProxyRuntime(info.processes), 'container')

    const cases: Array<[text: string, runtime: string]> = [
      ['pid=1 exe=kube-proxy container=no args=--config=/etc/kube-proxy.yaml', 'host'],
      ['pid=812 exe=k3s-server container=no args=server', 'k3s'],
      ['pid=812 exe=k3s-agent container=no', 'k3s'],
      ['pid=640 exe=rke2 container=no args=agent', 'rke2'],
      ['skip-kernel-check=unset', 'none'],
      ['', 'none'],
    ]
    for (const [text, runtime] of cases) assert.equal(kubeProxyRuntime(parseKubeProxyProcess(text)!.processes), runtime, text)
    assert.equal(parseKubeProxyProcess('ps: not found'), undefined)
  })
})

describe('collector, hostname and kernel-config sections', () => {
  it('reads the collector lines', () => {
    assert.deepEqual(parseCollectorInfo('version=0.1.0\nuid=0\ntime=2026-08-24T09:12:44Z\n'), {version: '0.1.0', uid: 0, time: '2026-08-24T09:12:44Z'})
    assert.deepEqual(parseCollectorInfo('version=0.1.0\nuid=abc'), {version: '0.1.0'})
    assert.equal(parseCollectorInfo('hello'), undefined)
  })

  it('reads the host name', () => {
    assert.equal(parseHostname('  worker-1.example.internal\n'), 'worker-1.example.internal')
    assert.equal(parseHostname(''), undefined)
    assert.equal(parseHostname('not a hostname'), undefined)
  })

  it('reads config lines, "not set" lines and the source', () => {
    const config = parseKernelConfig('# source: /boot/config-6.1.0-18-cloud-amd64\nCONFIG_NF_TABLES=m\n# CONFIG_NFT_REJECT_NETDEV is not set\nCONFIG_LOCALVERSION=""\n')!
    assert.equal(config.source, '/boot/config-6.1.0-18-cloud-amd64')
    assert.deepEqual([...config.options], [
      ['NF_TABLES', 'm'],
      ['NFT_REJECT_NETDEV', 'n'],
      ['LOCALVERSION', ''],
    ])
    assert.equal(parseKernelConfig('# source: /proc/config.gz\n'), undefined)
  })
})
