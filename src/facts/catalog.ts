/**
 * Every fact a rule may name: its path, its CEL type and where it comes from. This catalogue is the
 * one owner of fact paths: the CEL environment and `kpx-check rules lint` are built from it (a rule
 * that names a fact that does not exist, or compares it with the wrong type, is rejected), FactSet
 * takes only its paths, and what a node shell alone can tell is read off it.
 */
import {NFT_KERNEL_FEATURES} from './parsers/kernel-features.js'

export type FactSpec = {
  path: string
  description: string
  /**
   * Strings, and the strings of a list: the most characters rules are linted for (default
   * FACT_STRING_LENGTH). Like `maxItems` it feeds the CEL cost estimate; at evaluation the facts' own
   * sizes count, so a longer value is never cut, only priced.
   */
  maxLength?: number
} & (
  | {
      /** CEL type: int, double, string or bool. */
      type: 'bool' | 'double' | 'int' | 'string'
    }
  | {
      type: `list<${string}>`
      /** The most items the list holds on a real node or cluster, as far as kpx-check knows: what rules are linted for. */
      maxItems: number
    }
)

/** Most characters of a string fact rules are linted for: names, versions and addresses (a node name has at most 253). */
export const FACT_STRING_LENGTH = 256

/**
 * Lists of node names are linted for Kubernetes' largest supported cluster, 5,000 nodes, of names as
 * long as a hostname label (63 characters): nodes register their hostname, and clouds' are shorter.
 */
const NODE_NAMES = {maxItems: 5000, maxLength: 63}

/**
 * A node fact also says where it can come from: the facts bundle sections the node deriver reads it
 * from, and whether the Kubernetes API shows it too: `node` on the Node object (status.nodeInfo),
 * `kube-proxy` from kube-proxy's configuration in the cluster, which stands in for a probed node
 * that could not tell. A node fact without `api` needs a node shell.
 */
type NodeFactSpec = FactSpec & {
  sections: readonly string[]
  api?: 'kube-proxy' | 'node'
  /** A fact no node and no API shows, which only this flag of `verify` provides (see FactFlag); none for every other fact. */
  providedBy?: FactFlag
}

/**
 * The flags of `kpx-check verify` that provide facts of their own: `baseline`, what a pre-switch report saw of
 * the node (--baseline REPORT, src/derive/node-baseline.ts); `watch`, kube-proxy's metrics read twice
 * (--watch DURATION, src/derive/node/sync-watch.ts). A rule that needs such a fact runs only with its flag.
 */
type FactFlag = 'baseline' | 'watch'

/** The longest address in CIDR notation: an IPv6 address of 39 characters and /128. */
const CIDR_LENGTH = 43

/** The kernel's nf_tables support is read from its config and from the module lists together. */
const KERNEL_SECTIONS = ['kernel-config', 'modules', 'modules-builtin', 'modules-available'] as const
/** What shows the mode kube-proxy runs in: its answers, its process, the tables and interface it makes, the rules it writes. */
const RUNNING_MODE_SECTIONS = ['kube-proxy-mode', 'kube-proxy-metrics', 'kube-proxy-process', 'nft-tables', 'kube-ipvs0', 'iptables-rules'] as const

/**
 * List bounds, with room to spare: the collector asks about five host services; the kernel has 14 IPVS
 * schedulers; kube-ipvs0's Service addresses are not among a node's global addresses; a host's nftables
 * tables and drop chains are a few per firewall or CNI.
 */
export const NODE_FACTS = [
  {path: 'node.name', type: 'string', description: 'Node name (the hostname section, else the bundle file name).', sections: ['hostname'], api: 'node'},
  {path: 'node.hostname', type: 'string', description: 'The host name the collector read, whatever the node is named after (a probe names it after its Node).', sections: ['hostname']},
  {path: 'node.machineID', type: 'string', description: '/etc/machine-id, which the kubelet reports as the Node\'s nodeInfo.machineID (not readable in kube-proxy\'s container).', sections: ['machine-id']},
  {path: 'node.systemUUID', type: 'string', description: '/sys/class/dmi/id/product_uuid, which the kubelet reports as the Node\'s nodeInfo.systemUUID.', sections: ['machine-id']},
  {path: 'collector.root', type: 'bool', description: 'The collector ran as root, so root-only reads were possible.', sections: ['collector']},
  {path: 'collector.version', type: 'string', description: 'Version of the collector that wrote the bundle.', sections: ['collector']},
  {path: 'collector.where', type: 'string', description: 'Where the collector ran: host, kube-proxy-pod (inside kube-proxy\'s container, --node-probe exec) or probe-pod (a probe pod on kube-proxy\'s image with the host\'s namespaces and files, --node-probe pod).', sections: ['collector']},

  {path: 'kernel.release', type: 'string', description: 'uname -r, as printed.', sections: ['kernel-release'], api: 'node'},
  {path: 'kernel.version', type: 'string', description: 'Kernel major.minor.patch as kube-proxy parses it (5.14.0-427.el9 → 5.14.0).', sections: ['kernel-release'], api: 'node'},

  {path: 'os.id', type: 'string', description: 'os-release ID (debian, ubuntu, rhel, rocky, amzn, …).', sections: ['os-release'], api: 'node'},
  {path: 'os.idLike', type: 'list<string>', maxItems: 8, description: 'os-release ID_LIKE, split on spaces.', sections: ['os-release']},
  {path: 'os.versionId', type: 'string', description: 'os-release VERSION_ID (12, 22.04, 9.4).', sections: ['os-release'], api: 'node'},
  {path: 'os.prettyName', type: 'string', description: 'os-release PRETTY_NAME.', sections: ['os-release'], api: 'node'},

  {path: 'nft.installed', type: 'bool', description: 'The host has an nft binary (not known when the collector ran in kube-proxy\'s pod).', sections: ['nft-version']},
  {path: 'nft.version', type: 'string', description: 'Host nft version, normalised (nftables v1.0.6 (Lester Gooch #5) → 1.0.6); the host\'s, never the kube-proxy image\'s.', sections: ['nft-version']},

  {path: 'iptables.version', type: 'string', description: 'Host iptables version (1.8.7).', sections: ['iptables-version']},
  {path: 'iptables.backend', type: 'string', description: 'iptables backend: nf_tables or legacy.', sections: ['iptables-version']},
  {path: 'iptables.legacyRules', type: 'int', description: 'Rules in iptables-legacy-save output.', sections: ['iptables-rules']},
  {path: 'iptables.legacyKubeRules', type: 'int', description: 'Legacy rules that mention a KUBE- chain.', sections: ['iptables-rules']},
  {path: 'iptables.nftRules', type: 'int', description: 'Rules in iptables-nft-save output.', sections: ['iptables-rules']},
  {path: 'iptables.nftKubeRules', type: 'int', description: 'iptables-nft rules that mention a KUBE- chain.', sections: ['iptables-rules']},
  {path: 'iptables.serviceChainRules', type: 'int', description: 'Rules and chains of kube-proxy\'s Service chains (KUBE-SERVICES, KUBE-NODEPORTS, KUBE-SVC-*, KUBE-SEP-*, …) in every iptables backend and family the node has: iptables mode\'s rules, leftovers after a switch to nftables. KUBE-FIREWALL and the canary chains, which stay, are not counted.', sections: ['iptables-rules']},
  {path: 'iptables.serviceChainBackends', type: 'list<string>', maxItems: 2, description: 'The iptables backends (legacy, nft) whose saves hold kube-proxy\'s Service chains.', sections: ['iptables-rules']},
  {path: 'iptables.inputPolicy', type: 'string', description: 'Policy of the filter INPUT chain (ACCEPT, DROP).', sections: ['iptables-policies']},
  {path: 'iptables.forwardPolicy', type: 'string', description: 'Policy of the filter FORWARD chain (ACCEPT, DROP).', sections: ['iptables-policies']},

  {path: 'netfilter.nfTables', type: 'string', description: 'nf_tables in the kernel: builtin, loaded, module (loadable) or missing.', sections: KERNEL_SECTIONS},
  {path: 'netfilter.missingFeatures', type: 'list<string>', maxItems: NFT_KERNEL_FEATURES.length, description: 'nftables kernel features kube-proxy rules use that the kernel lacks (nft_ct, nft_fib_ipv4, …).', sections: KERNEL_SECTIONS},
  {path: 'netfilter.checkPassed', type: 'bool', description: 'nft -c accepted a kube-proxy-like ruleset in a scratch table (root only).', sections: ['nft-check']},
  {path: 'netfilter.checkOutput', type: 'string', maxLength: 4096, description: 'What nft -c printed when it rejected the sample ruleset.', sections: ['nft-check']},
  {path: 'netfilter.tables', type: 'list<string>', maxItems: 64, description: 'nftables tables on the host, as "family name".', sections: ['nft-tables']},
  {path: 'netfilter.kubeProxyObjects', type: 'list<string>', maxItems: 32, description: 'The sets and maps of kube-proxy\'s own nftables tables, as "family name" (ip service-ips, ip6 cluster-ips); per-endpoint sets (with a / in their name) left out.', sections: ['nft-chains']},
  {path: 'netfilter.dropPolicyChains', type: 'list<string>', maxItems: 64, description: 'nftables base chains on input/forward hooks with policy drop, as "family table chain".', sections: ['nft-chains']},

  {path: 'netfilter.dropPolicyHooks', type: 'list<string>', maxItems: 2, description: 'The hooks, of input and forward, that an nftables base chain with policy drop filters on.', sections: ['nft-chains']},
  {path: 'netfilter.flushRulesetFiles', type: 'list<string>', maxItems: 32, description: 'nftables configuration files that start with flush ruleset (/etc/nftables.conf, /etc/sysconfig/nftables.conf, /etc/nftables/*), which deletes every table when loaded.', sections: ['ruleset-flush']},
  {path: 'netfilter.nftablesServiceEnabled', type: 'bool', description: 'nftables.service is enabled (systemctl is-enabled), so it loads its configuration at boot and on every restart.', sections: ['ruleset-flush']},
  {path: 'netfilter.firewalldFlushAllOnReload', type: 'string', description: 'firewalld.conf FlushAllOnReload: yes, no, default (not set) or other; not-present without firewalld.conf.', sections: ['ruleset-flush']},
  {path: 'netfilter.iptablesKernel', type: 'bool', description: 'The kernel can run iptables mode: ip_tables with iptable_nat (legacy), or nft_compat (iptables-nft), loaded, built in or loadable.', sections: ['rollback-kernel']},
  {path: 'netfilter.ipvsKernel', type: 'bool', description: 'The kernel can run IPVS mode: ip_vs loaded, built in or loadable.', sections: ['rollback-kernel']},
  {path: 'iptables.nftIncompatibleTables', type: 'list<string>', maxItems: 8, description: 'Tables iptables-nft-save could not render because they hold native nftables rules of another tool (nat, filter, …).', sections: ['iptables-nft-incompatible']},

  {path: 'ipvs.virtualServers', type: 'int', description: 'IPVS virtual servers in /proc/net/ip_vs (0 when IPVS is not loaded).', sections: ['ipvs']},
  {path: 'ipvs.schedulers', type: 'list<string>', maxItems: 16, description: 'IPVS schedulers in use (rr, lc, sh, …).', sections: ['ipvs']},
  {path: 'ipvs.balancers', type: 'list<string>', maxItems: 16, maxLength: 200, description: 'IPVS load balancers on the node besides kube-proxy: kube-vip with lb_enable=true and lvscare, as static pods or processes ("kube-vip, static pod /etc/kubernetes/manifests/kube-vip.yaml").', sections: ['ipvs-balancers']},
  {path: 'ipvs.kubeIpvs0', type: 'bool', description: 'The kube-ipvs0 dummy interface exists.', sections: ['kube-ipvs0']},
  {path: 'ipvs.kubeIpvs0Addresses', type: 'int', description: 'Addresses bound to kube-ipvs0.', sections: ['kube-ipvs0']},
  {
    path: 'ipvs.serviceVirtualServers',
    type: 'int',
    description:
      "IPVS virtual servers of kube-proxy's Services: those on an address bound to kube-ipvs0 (ClusterIPs, external and load-balancer IPs); 0 without kube-ipvs0, whose deletion follows the IPVS flush in kube-proxy's cleanup.",
    sections: ['ipvs', 'kube-ipvs0'],
  },
  {path: 'ipvs.kubeIpsets', type: 'list<string>', maxItems: 64, maxLength: 31, description: "The KUBE-* ipsets (ipset list -n) that kube-proxy's IPVS mode makes; none when the kernel has no ip_set.", sections: ['ipsets']},

  {path: 'sysctl.routeLocalnet', type: 'int', description: 'net.ipv4.conf.all.route_localnet.', sections: ['sysctl']},
  {path: 'sysctl.tcpBeLiberal', type: 'int', description: 'net.netfilter.nf_conntrack_tcp_be_liberal.', sections: ['sysctl']},
  {path: 'sysctl.connReuseMode', type: 'int', description: 'net.ipv4.vs.conn_reuse_mode.', sections: ['sysctl']},

  {path: 'services.active', type: 'list<string>', maxItems: 5, description: 'Host services found active among firewalld, ufw, nftables, docker, keepalived.', sections: ['services']},

  {path: 'addresses.ipv4Global', type: 'list<string>', maxItems: 64, maxLength: CIDR_LENGTH, description: 'Global-scope IPv4 addresses (CIDR) on the node.', sections: ['addresses']},
  {path: 'addresses.ipv6Global', type: 'list<string>', maxItems: 64, maxLength: CIDR_LENGTH, description: 'Global-scope IPv6 addresses (CIDR) on the node.', sections: ['addresses']},

  {path: 'kubeProxy.mode', type: 'string', description: 'Mode kube-proxy reports on 127.0.0.1:10249/proxyMode (iptables, ipvs, nftables).', sections: ['kube-proxy-mode'], api: 'kube-proxy'},
  {
    path: 'kubeProxy.runningMode',
    type: 'string',
    description:
      'The mode kube-proxy on the node runs in, as the node shows it (never its configuration): iptables, ipvs, nftables, or none when no kube-proxy process runs and /proxyMode does not answer.',
    sections: [...RUNNING_MODE_SECTIONS],
  },
  {path: 'kubeProxy.runningModeEvidence', type: 'string', maxLength: 200, description: 'What showed kubeProxy.runningMode: /proxyMode, the metric families, the process\'s flags, the nft tables it owns.', sections: [...RUNNING_MODE_SECTIONS]},
  {path: 'kubeProxy.runtime', type: 'string', description: 'How kube-proxy runs: container, host, k3s, rke2 or none.', sections: ['kube-proxy-process'], api: 'kube-proxy'},
  {path: 'kubeProxy.skipKernelCheck', type: 'bool', description: 'KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK is set in kube-proxy\'s environment.', sections: ['kube-proxy-process'], api: 'kube-proxy'},
  {path: 'kubeProxy.nftVersion', type: 'string', description: 'The nft kube-proxy runs, normalised: its image\'s, read in its pod (--node-probe exec); the host\'s when kube-proxy runs on the host.', sections: ['kube-proxy-nft-version', 'nft-version', 'kube-proxy-process']},
  {path: 'kubeProxy.image', type: 'string', description: 'kube-proxy\'s image, from its workload in the cluster (cluster runs only).', sections: [], api: 'kube-proxy'},
  {path: 'kubeProxy.nftJson', type: 'bool', description: 'The nft kube-proxy runs has JSON support (nft -j list tables): its image\'s, read in its pod; the host\'s when kube-proxy runs on the host; k3s\'s own for k3s.', sections: ['nft-json']},

  // verify --baseline: what the pre-switch report saw of the node, from its findings' evidence (src/derive/node-baseline.ts).
  {path: 'baseline.node', type: 'bool', description: 'verify --baseline: the pre-switch report has this node (false: the node is new since).', sections: [], providedBy: 'baseline'},
  {path: 'baseline.ipvsUsers', type: 'list<string>', maxItems: 16, maxLength: 200, description: 'verify --baseline: what used IPVS on the node besides kube-proxy when the report was made (keepalived, kube-vip with lb_enable, …), as its node/ipvs-other-users evidence shows; empty when nothing else did or the node had no virtual server.', sections: [], providedBy: 'baseline'},
  {path: 'baseline.ipvsVirtualServers', type: 'int', description: 'verify --baseline: IPVS virtual servers on the node when the report was made (kube-proxy\'s among them in IPVS mode).', sections: [], providedBy: 'baseline'},
  {path: 'baseline.legacyRules', type: 'int', description: 'verify --baseline: iptables.legacyRules when the report was made.', sections: [], providedBy: 'baseline'},
  {path: 'baseline.legacyKubeRules', type: 'int', description: 'verify --baseline: iptables.legacyKubeRules when the report was made.', sections: [], providedBy: 'baseline'},
  {path: 'baseline.nftRules', type: 'int', description: 'verify --baseline: iptables.nftRules when the report was made.', sections: [], providedBy: 'baseline'},
  {path: 'baseline.nftKubeRules', type: 'int', description: 'verify --baseline: iptables.nftKubeRules when the report was made.', sections: [], providedBy: 'baseline'},
  {path: 'baseline.ipv4Global', type: 'list<string>', maxItems: 64, maxLength: CIDR_LENGTH, description: 'verify --baseline: addresses.ipv4Global when the report was made.', sections: [], providedBy: 'baseline'},
  {path: 'baseline.ipv6Global', type: 'list<string>', maxItems: 64, maxLength: CIDR_LENGTH, description: 'verify --baseline: addresses.ipv6Global when the report was made.', sections: [], providedBy: 'baseline'},
  {path: 'kubeProxy.localhostNodePortsAccepted', type: 'int', description: 'kubeproxy_iptables_localhost_nodeports_accepted_packets_total.', sections: ['kube-proxy-metrics']},
  {path: 'kubeProxy.ctInvalidDropped', type: 'int', description: 'kubeproxy_iptables_ct_state_invalid_dropped_packets_total.', sections: ['kube-proxy-metrics']},
  {path: 'kubeProxy.nftablesSyncFailures', type: 'int', description: 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total.', sections: ['kube-proxy-metrics']},
  {path: 'kubeProxy.syncFailures', type: 'int', description: 'nftables syncs that failed since kube-proxy started (kubeproxy_sync_proxy_rules_nftables_sync_failures_total, all IP families); 0 when its metrics have no such series, which appears at the first failure.', sections: ['kube-proxy-metrics']},
  {path: 'kubeProxy.cleanupFailures', type: 'int', description: 'Failed deletions of stale nftables chains (kubeproxy_sync_proxy_rules_nftables_cleanup_failures_total, all IP families); 0 when there is no such series.', sections: ['kube-proxy-metrics']},
  {path: 'kubeProxy.syncedFamilies', type: 'list<string>', maxItems: 2, description: 'IP families (IPv4, IPv6) kube-proxy has completed a sync of, by kubeproxy_sync_proxy_rules_last_timestamp_seconds.', sections: ['kube-proxy-metrics']},
  {path: 'kubeProxy.pendingSyncSeconds', type: 'int', description: 'Seconds the oldest requested sync of an IP family had waited, unfinished, when the metrics were read (last_queued_timestamp later than last_timestamp); 0 when every requested sync had completed.', sections: ['kube-proxy-metrics']},
  // verify --watch DURATION: kube-proxy's metrics read twice, DURATION apart (src/derive/node/sync-watch.ts).
  {path: 'kubeProxy.watchSeconds', type: 'int', description: 'verify --watch: seconds between the two reads of kube-proxy\'s metrics.', sections: [], providedBy: 'watch'},
  {path: 'kubeProxy.syncFailuresGrown', type: 'list<string>', maxItems: 3, maxLength: 80, description: 'verify --watch: the IP families whose kubeproxy_sync_proxy_rules_nftables_sync_failures_total grew between the two reads, each as `IPv4 0 → 2` (`all families` for the unlabelled series of kube-proxy ≤ 1.32); empty when none grew.', sections: [], providedBy: 'watch'},
  {path: 'kubeProxy.syncsNotAdvanced', type: 'list<string>', maxItems: 3, maxLength: 80, description: 'verify --watch: the IP families whose kubeproxy_sync_proxy_rules_last_timestamp_seconds (last successful sync) did not advance between the two reads; empty when every family synced again.', sections: [], providedBy: 'watch'},
  {path: 'kubeProxy.healthzHealthy', type: 'bool', description: "kube-proxy's /healthz says its proxiers are healthy (its `healthy`, kube-proxy 1.33+): no IP family has had an update waiting longer than 2 × syncPeriod.", sections: ['kube-proxy-healthz']},
  {path: 'kubeProxy.healthzFamilies', type: 'list<string>', maxItems: 2, description: "IP families kube-proxy's /healthz reports on (its `status`, kube-proxy 1.33+); empty in an older answer.", sections: ['kube-proxy-healthz']},
  {path: 'kubeProxy.unhealthyFamilies', type: 'list<string>', maxItems: 2, description: "IP families kube-proxy's /healthz reports unhealthy (status.<family>.healthy false, kube-proxy 1.33+).", sections: ['kube-proxy-healthz']},
  {path: 'kubeProxy.nodeEligible', type: 'bool', description: "kube-proxy's /healthz nodeEligible: false while its Node is being deleted (a deletionTimestamp, or the ToBeDeletedByClusterAutoscaler taint), when /healthz answers 503 whatever the proxiers' health.", sections: ['kube-proxy-healthz']},
] as const satisfies readonly NodeFactSpec[]

/** Facts about the whole cluster, from the Kubernetes API. Every cluster rule can read them. */
export const CLUSTER_FACTS = [
  {path: 'cluster.version', type: 'string', description: 'Kubernetes API server version, major.minor.patch (1.33.4).'},
  {path: 'cluster.gitVersion', type: 'string', description: 'The server\'s gitVersion as reported (v1.33.4-eks-1234567).'},
  {path: 'cluster.platform', type: 'string', description: 'eks, aks, gke, openshift, k3s, rke2, k0s, kubermatic, kind, talos, kops, cce, ack, tke, kubeadm or unknown.'},
  {
    path: 'cluster.proxyMode',
    type: 'string',
    description:
      'The mode to migrate from: what the Linux nodes still to switch run (as they show it, else as kube-proxy\'s configuration sets it, an unset mode being its version\'s default); nftables when every Linux node is seen running it; none when no kube-proxy runs.',
  },
  {path: 'cluster.nodesRunningNftables', type: 'list<string>', ...NODE_NAMES, description: 'Linux nodes seen running kube-proxy in nftables mode (kubeProxy.runningMode): switched.'},
  {path: 'cluster.nodesNotSwitched', type: 'list<string>', ...NODE_NAMES, description: 'Linux nodes seen running kube-proxy in another mode, or none.'},
  {path: 'cluster.nodesModeUnknown', type: 'list<string>', ...NODE_NAMES, description: 'Linux nodes whose running mode no source showed (the API shows only the configured one).'},
  {path: 'cluster.targetVersion', type: 'string', description: 'The Kubernetes version the migration aims at (--target-version), major.minor.'},
  {path: 'cluster.nodes', type: 'int', description: 'Nodes in the cluster.'},
  {
    path: 'cluster.osLabelMismatches',
    type: 'list<string>',
    maxItems: 100,
    maxLength: 160,
    description: 'The first 100 nodes whose kubernetes.io/os label disagrees with the OS their kubelet reports (status.nodeInfo.operatingSystem), which decides: `name (labelled kubernetes.io/os=windows, its kubelet reports linux)`.',
  },
  {path: 'cluster.windowsNodes', type: 'list<string>', ...NODE_NAMES, description: 'Windows nodes (kube-proxy on Windows is untouched).'},
  {path: 'cluster.multiAddressNodes', type: 'list<string>', ...NODE_NAMES, description: 'Nodes with more than one InternalIP or ExternalIP of a family.'},
  {path: 'cluster.oldestKernel', type: 'string', description: 'The lowest kernel version among the Linux nodes, major.minor.patch as kube-proxy parses it (5.14.0).'},
  {path: 'cluster.bottlerocketNodes', type: 'list<string>', ...NODE_NAMES, description: 'Nodes whose osImage is Bottlerocket.'},
  {path: 'cluster.awsNetworkPolicy', type: 'bool', description: 'The AWS VPC CNI\'s network policy agent enforces policies (aws-eks-nodeagent --enable-network-policy=true).'},
  {path: 'cluster.components', type: 'list<string>', maxItems: 32, description: 'Networking components found: metallb, kube-vip, node-local-dns, istio, lvscare, kube-router-service-proxy, and the IPVS balancers among them as kube-vip-ipvs (kube-vip with lb_enable=true) and lvscare-ipvs, …'},

  {path: 'kubeProxy.present', type: 'bool', description: 'kube-proxy runs in the cluster (DaemonSet, static pods or embedded in k3s).'},
  {path: 'kubeProxy.replacedBy', type: 'string', description: 'What implements Services instead of kube-proxy (cilium-kube-proxy-replacement, gke-dataplane-v2, ovn-kubernetes, calico-ebpf, antrea-proxy-all, kube-router).'},
  {path: 'kubeProxy.deployment', type: 'string', description: 'How kube-proxy runs: daemonset, static-pods or embedded.'},
  {
    path: 'kubeProxy.ignoredWorkloads',
    type: 'list<string>',
    maxItems: 100,
    description: 'DaemonSets that look like kube-proxy (named kube-proxy, or on its image) outside the namespaces distributions run it in (kube-system): reported, never taken for the cluster\'s kube-proxy.',
  },
  {path: 'kubeProxy.workload', type: 'string', description: 'The workload that runs kube-proxy (DaemonSet kube-system/kube-proxy).'},
  {path: 'kubeProxy.image', type: 'string', description: 'kube-proxy image.'},
  {path: 'kubeProxy.version', type: 'string', description: 'kube-proxy version from its image tag (1.33.4).'},
  {path: 'kubeProxy.configuredMode', type: 'string', description: 'kube-proxy\'s mode as its configuration and flags set it; empty when unset, when its version\'s default applies (iptables up to 1.39, nftables from 1.40).'},
  {path: 'kubeProxy.configSource', type: 'string', description: 'Where the mode is set (ConfigMap kube-system/kube-proxy, flags, …).'},
  {path: 'kubeProxy.nodePortAddresses', type: 'list<string>', maxItems: 16, description: 'nodePortAddresses as configured (empty: every local IP today, the primary IPs in nftables mode).'},
  {path: 'kubeProxy.carryOver', type: 'list<string>', maxItems: 9, description: 'Settings of the iptables/ipvs sections that nftables mode would not read (iptables.masqueradeAll: true).'},
  {path: 'kubeProxy.ipvsScheduler', type: 'string', description: 'ipvs.scheduler (empty means rr).'},
  {path: 'kubeProxy.ipvsStrictARP', type: 'bool', description: 'ipvs.strictARP.'},
  {path: 'kubeProxy.featureGates', type: 'list<string>', maxItems: 256, description: 'kube-proxy feature gates, as Name=value.'},
  {path: 'kubeProxy.skipKernelCheck', type: 'bool', description: 'KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK is set in kube-proxy\'s pod spec.'},

  {path: 'services.total', type: 'int', description: 'Services in the cluster.'},
  {path: 'services.loadBalancer', type: 'int', description: 'Services of type LoadBalancer.'},
  {path: 'services.nodePort', type: 'int', description: 'Services that allocate NodePorts (NodePort and LoadBalancer).'},
  {path: 'services.healthCheckNodePorts', type: 'int', description: 'Services with a healthCheckNodePort (externalTrafficPolicy Local).'},
  {path: 'services.withExternalIPs', type: 'int', description: 'Services with spec.externalIPs.'},
  {path: 'endpoints.total', type: 'int', description: 'Endpoints across all EndpointSlices.'},

  {path: 'service.name', type: 'string', description: 'LoadBalancer Service subject: namespace/name.'},
  {path: 'service.type', type: 'string', description: 'Service subject: spec.type (ClusterIP when unset).'},
  {path: 'service.externalIPs', type: 'list<string>', maxItems: 64, maxLength: 64, description: 'Service subject: spec.externalIPs.'},
  {
    path: 'service.longComments',
    type: 'list<string>',
    maxItems: 64,
    maxLength: 180,
    description: 'Service subject: its ports whose <namespace>/<name>:<port name> (kube-proxy\'s nftables comment; none for a headless or ExternalName Service) exceeds 128 bytes, as "ns/name:port (129 bytes)".',
  },
  {path: 'service.addresses', type: 'list<string>', maxItems: 16, description: 'LoadBalancer Service subject: load-balancer ingress IPs and hostnames.'},
  {path: 'service.sharedWith', type: 'list<string>', maxItems: 100, description: 'LoadBalancer Service subject: other Services and Ingresses that use one of its addresses.'},
  {path: 'service.portCount', type: 'int', description: 'LoadBalancer Service subject: ports it exposes.'},

  {
    path: 'workload.clusterIPPings',
    type: 'list<string>',
    maxItems: 100,
    maxLength: 512,
    description: 'Workload subject (DaemonSet, Deployment, StatefulSet, Job, CronJob): pings of a Service\'s ClusterIP in its template (exec probes, commands), as "container c, livenessProbe: ping host (Service ns/svc, 10.96.0.10)".',
  },

  {
    path: 'prometheusRule.iptablesMetricRules',
    type: 'list<string>',
    maxItems: 100,
    maxLength: 512,
    description: 'PrometheusRule subject: its alerts and recording rules that read a kube-proxy metric only iptables mode exports, as "alert Name: metric".',
  },
  {path: 'prometheusRule.iptablesMetrics', type: 'list<string>', maxItems: 6, maxLength: 80, description: 'PrometheusRule subject: the iptables-only kube-proxy metrics those rules read.'},

  {path: 'component.name', type: 'string', description: 'Component subject: calico, canal, flannel, cilium, aws-vpc-cni, azure-cni, antrea, kube-router, weave, kube-ovn, terway, kindnet, ….'},
  {path: 'component.workload', type: 'string', description: 'Component subject: its DaemonSet, namespace/name.'},
  {path: 'component.image', type: 'string', description: 'Component subject: main container image.'},
  {path: 'component.version', type: 'string', description: 'Component subject: version from the image tag (3.30.7).'},
  {path: 'component.dataplane', type: 'string', description: 'Component subject: its dataplane where it has several (Calico: Iptables, Nftables, BPF; flannel: iptables or nftables).'},
  {path: 'component.nftablesHostNetwork', type: 'bool', description: 'Component subject: Antrea writes its host rules with nftables (feature gate NFTablesHostNetworkMode in antrea-agent.conf), whatever kube-proxy\'s mode.'},
  {path: 'component.replacesKubeProxy', type: 'bool', description: 'Component subject: it implements Services itself (Cilium KPR, kube-router proxy, Antrea proxyAll).'},
] as const satisfies readonly FactSpec[]

/**
 * What a cluster rule can be about: the cluster, each Service, each networking DaemonSet, each
 * workload (a DaemonSet, Deployment, StatefulSet, Job or CronJob), each PrometheusRule.
 */
export const CLUSTER_SUBJECT_KINDS = ['Cluster', 'Service', 'DaemonSet', 'Workload', 'PrometheusRule'] as const

/** The facts rules of a scope read: verify rules, like node rules, read a node's facts. */
export function factSpecs(scope: 'cluster' | 'node' | 'verify'): readonly FactSpec[] {
  return scope === 'cluster' ? CLUSTER_FACTS : NODE_FACTS
}

/** A fact path is `group.name` (no fact is deeper): `kernel.release` → `kernel`, `release`. */
export function groupAndName(path: string): [string, string] {
  const dot = path.indexOf('.')
  return [path.slice(0, dot), path.slice(dot + 1)]
}

export type NodeFactPath = (typeof NODE_FACTS)[number]['path']
export type ClusterFactPath = (typeof CLUSTER_FACTS)[number]['path']
/** Any fact path: what FactSet takes. */
export type FactPath = ClusterFactPath | NodeFactPath

export const NODE_FACT_PATHS: readonly NodeFactPath[] = NODE_FACTS.map((spec) => spec.path)

/** Node facts only a shell on the node can tell: unknown in a cluster run until the node is probed. */
export const SHELL_ONLY_FACTS: readonly NodeFactPath[] = NODE_FACTS.filter((spec: NodeFactSpec) => spec.api === undefined).map((spec) => spec.path)

/** Node facts kube-proxy's cluster configuration implies, taken for a probed node whose bundle could not tell. */
export const KUBE_PROXY_FALLBACK_FACTS: readonly NodeFactPath[] = NODE_FACTS.filter((spec: NodeFactSpec) => spec.api === 'kube-proxy').map((spec) => spec.path)

/** Node facts of the OS the Node object shows, taken for a node probed in its kube-proxy pod, where the node's os-release is not mounted. */
export const NODE_OS_API_FACTS: readonly NodeFactPath[] = NODE_FACTS.filter((spec: NodeFactSpec) => spec.api === 'node' && spec.sections.includes('os-release')).map((spec) => spec.path)

/** The node facts only `flag` provides: unknown (not collected) without it, whatever the node's sources. */
export function factsProvidedBy(flag: FactFlag): NodeFactPath[] {
  return NODE_FACTS.filter((spec: NodeFactSpec) => spec.providedBy === flag).map((spec) => spec.path)
}

const PROVIDED_BY: ReadonlyMap<string, FactFlag> = new Map(NODE_FACTS.flatMap((spec: NodeFactSpec) => (spec.providedBy ? [[spec.path, spec.providedBy] as const] : [])))

/** The flags a rule needs: those providing a fact it cannot decide without (a fact it only `uses` is merely unknown without its flag). */
export function flagsNeeded(rule: {needs: readonly string[]}): Set<FactFlag> {
  return new Set(rule.needs.flatMap((path) => PROVIDED_BY.get(path) ?? []))
}

/**
 * Whether a rule can run with these flags given: one that needs a fact of a flag not given is left out, not
 * unknown. It is a check the user did not ask for (a comparison with a report not passed, a watch not made).
 */
export function runnableWith(given: Readonly<Partial<Record<FactFlag, boolean>>>): (rule: {needs: readonly string[]}) => boolean {
  return (rule) => [...flagsNeeded(rule)].every((flag) => given[flag] === true)
}

/** The bundle sections node facts are read from. */
export const BUNDLE_SECTIONS: readonly string[] = [...new Set(NODE_FACTS.flatMap((spec) => spec.sections))]

/** Each section's node facts, worked out once: the deriver asks for them for every section of every bundle. */
const FACTS_BY_SECTION = new Map(BUNDLE_SECTIONS.map((section) => [section, NODE_FACTS.filter((spec) => (spec.sections as readonly string[]).includes(section)).map((spec) => spec.path)]))

/** The node facts read from one bundle section (a section that cannot be read makes them unknown). */
export function factsOfSection(section: string): readonly NodeFactPath[] {
  return FACTS_BY_SECTION.get(section) ?? []
}
