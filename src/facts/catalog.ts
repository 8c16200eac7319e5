/**
 * Every fact a rule may name, with its CEL type. The CEL environment is built from this list,
 * so `kpx-check rules lint` rejects a rule that names a fact that does not exist or compares it
 * with the wrong type.
 */
export interface FactSpec {
  path: string
  /** CEL type: int, double, string, bool, list<string>, map<string, string>, … */
  type: string
  description: string
}

export const NODE_FACTS: readonly FactSpec[] = [
  {path: 'node.name', type: 'string', description: 'Node name (the hostname section, else the bundle file name).'},
  {path: 'collector.root', type: 'bool', description: 'The collector ran as root, so root-only reads were possible.'},
  {path: 'collector.version', type: 'string', description: 'Version of the collector that wrote the bundle.'},

  {path: 'kernel.release', type: 'string', description: 'uname -r, as printed.'},
  {path: 'kernel.version', type: 'string', description: 'Kernel major.minor.patch as kube-proxy parses it (5.14.0-427.el9 → 5.14.0).'},

  {path: 'os.id', type: 'string', description: 'os-release ID (debian, ubuntu, rhel, rocky, amzn, …).'},
  {path: 'os.idLike', type: 'list<string>', description: 'os-release ID_LIKE, split on spaces.'},
  {path: 'os.versionId', type: 'string', description: 'os-release VERSION_ID (12, 22.04, 9.4).'},
  {path: 'os.prettyName', type: 'string', description: 'os-release PRETTY_NAME.'},

  {path: 'nft.installed', type: 'bool', description: 'The host has an nft binary.'},
  {path: 'nft.version', type: 'string', description: 'Host nft version, normalised (nftables v1.0.6 (Lester Gooch #5) → 1.0.6).'},

  {path: 'iptables.version', type: 'string', description: 'Host iptables version (1.8.7).'},
  {path: 'iptables.backend', type: 'string', description: 'iptables backend: nf_tables or legacy.'},
  {path: 'iptables.legacyRules', type: 'int', description: 'Rules in iptables-legacy-save output.'},
  {path: 'iptables.legacyKubeRules', type: 'int', description: 'Legacy rules that mention a KUBE- chain.'},
  {path: 'iptables.nftRules', type: 'int', description: 'Rules in iptables-nft-save output.'},
  {path: 'iptables.nftKubeRules', type: 'int', description: 'iptables-nft rules that mention a KUBE- chain.'},
  {path: 'iptables.inputPolicy', type: 'string', description: 'Policy of the filter INPUT chain (ACCEPT, DROP).'},
  {path: 'iptables.forwardPolicy', type: 'string', description: 'Policy of the filter FORWARD chain (ACCEPT, DROP).'},

  {path: 'netfilter.nfTables', type: 'string', description: 'nf_tables in the kernel: builtin, loaded, module (loadable) or missing.'},
  {path: 'netfilter.missingFeatures', type: 'list<string>', description: 'nftables kernel features kube-proxy rules use that the kernel lacks (nft_ct, nft_fib_ipv4, …).'},
  {path: 'netfilter.checkPassed', type: 'bool', description: 'nft -c accepted a kube-proxy-like ruleset in a scratch table (root only).'},
  {path: 'netfilter.checkOutput', type: 'string', description: 'What nft -c printed when it rejected the sample ruleset.'},
  {path: 'netfilter.tables', type: 'list<string>', description: 'nftables tables on the host, as "family name".'},
  {path: 'netfilter.dropPolicyChains', type: 'list<string>', description: 'nftables base chains on input/forward hooks with policy drop, as "family table chain".'},

  {path: 'ipvs.virtualServers', type: 'int', description: 'IPVS virtual servers in /proc/net/ip_vs (0 when IPVS is not loaded).'},
  {path: 'ipvs.schedulers', type: 'list<string>', description: 'IPVS schedulers in use (rr, lc, sh, …).'},
  {path: 'ipvs.kubeIpvs0', type: 'bool', description: 'The kube-ipvs0 dummy interface exists.'},
  {path: 'ipvs.kubeIpvs0Addresses', type: 'int', description: 'Addresses bound to kube-ipvs0.'},

  {path: 'sysctl.routeLocalnet', type: 'int', description: 'net.ipv4.conf.all.route_localnet.'},
  {path: 'sysctl.tcpBeLiberal', type: 'int', description: 'net.netfilter.nf_conntrack_tcp_be_liberal.'},
  {path: 'sysctl.connReuseMode', type: 'int', description: 'net.ipv4.vs.conn_reuse_mode.'},

  {path: 'services.active', type: 'list<string>', description: 'Host services found active among firewalld, ufw, nftables, docker, keepalived.'},

  {path: 'addresses.ipv4Global', type: 'list<string>', description: 'Global-scope IPv4 addresses (CIDR) on the node.'},
  {path: 'addresses.ipv6Global', type: 'list<string>', description: 'Global-scope IPv6 addresses (CIDR) on the node.'},

  {path: 'kubeProxy.mode', type: 'string', description: 'Mode kube-proxy reports on 127.0.0.1:10249/proxyMode (iptables, ipvs, nftables).'},
  {path: 'kubeProxy.runtime', type: 'string', description: 'How kube-proxy runs: container, host, k3s, rke2 or none.'},
  {path: 'kubeProxy.skipKernelCheck', type: 'bool', description: 'KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK is set in kube-proxy\'s environment.'},
  {path: 'kubeProxy.localhostNodePortsAccepted', type: 'int', description: 'kubeproxy_iptables_localhost_nodeports_accepted_packets_total.'},
  {path: 'kubeProxy.ctInvalidDropped', type: 'int', description: 'kubeproxy_iptables_ct_state_invalid_dropped_packets_total.'},
  {path: 'kubeProxy.nftablesSyncFailures', type: 'int', description: 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total.'},
]

/** Facts about the whole cluster, from the Kubernetes API. Every cluster rule can read them. */
export const CLUSTER_FACTS: readonly FactSpec[] = [
  {path: 'cluster.version', type: 'string', description: 'Kubernetes API server version, major.minor.patch (1.33.4).'},
  {path: 'cluster.gitVersion', type: 'string', description: 'The server\'s gitVersion as reported (v1.33.4-eks-1234567).'},
  {path: 'cluster.platform', type: 'string', description: 'eks, aks, gke, openshift, k3s, rke2, kind, talos, kops, cce, ack, tke, kubeadm or unknown.'},
  {path: 'cluster.proxyMode', type: 'string', description: 'kube-proxy\'s current mode: iptables, ipvs, nftables, none (no kube-proxy) or unknown.'},
  {path: 'cluster.targetVersion', type: 'string', description: 'The Kubernetes version the migration aims at (--target-version), major.minor.'},
  {path: 'cluster.nodes', type: 'int', description: 'Nodes in the cluster.'},
  {path: 'cluster.windowsNodes', type: 'list<string>', description: 'Windows nodes (kube-proxy on Windows is untouched).'},
  {path: 'cluster.multiAddressNodes', type: 'list<string>', description: 'Nodes with more than one InternalIP or ExternalIP of a family.'},
  {path: 'cluster.components', type: 'list<string>', description: 'Networking components found: metallb, kube-vip, node-local-dns, istio, kube-router-service-proxy, …'},

  {path: 'kubeProxy.present', type: 'bool', description: 'kube-proxy runs in the cluster (DaemonSet, static pods or embedded in k3s).'},
  {path: 'kubeProxy.replacedBy', type: 'string', description: 'What implements Services instead of kube-proxy (cilium-kube-proxy-replacement, gke-dataplane-v2, ovn-kubernetes, calico-ebpf, antrea-proxy-all, kube-router).'},
  {path: 'kubeProxy.deployment', type: 'string', description: 'How kube-proxy runs: daemonset, static-pods or embedded.'},
  {path: 'kubeProxy.workload', type: 'string', description: 'The workload that runs kube-proxy (DaemonSet kube-system/kube-proxy).'},
  {path: 'kubeProxy.image', type: 'string', description: 'kube-proxy image.'},
  {path: 'kubeProxy.version', type: 'string', description: 'kube-proxy version from its image tag (1.33.4).'},
  {path: 'kubeProxy.configSource', type: 'string', description: 'Where the mode is set (ConfigMap kube-system/kube-proxy, flags, …).'},
  {path: 'kubeProxy.nodePortAddresses', type: 'list<string>', description: 'nodePortAddresses as configured (empty: every local IP today, the primary IPs in nftables mode).'},
  {path: 'kubeProxy.carryOver', type: 'list<string>', description: 'Settings of the iptables/ipvs sections that nftables mode would not read (iptables.masqueradeAll: true).'},
  {path: 'kubeProxy.ipvsScheduler', type: 'string', description: 'ipvs.scheduler (empty means rr).'},
  {path: 'kubeProxy.ipvsStrictARP', type: 'bool', description: 'ipvs.strictARP.'},
  {path: 'kubeProxy.featureGates', type: 'list<string>', description: 'kube-proxy feature gates, as Name=value.'},
  {path: 'kubeProxy.skipKernelCheck', type: 'bool', description: 'KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK is set in kube-proxy\'s pod spec.'},

  {path: 'services.total', type: 'int', description: 'Services in the cluster.'},
  {path: 'services.loadBalancer', type: 'int', description: 'Services of type LoadBalancer.'},
  {path: 'services.nodePort', type: 'int', description: 'Services that allocate NodePorts (NodePort and LoadBalancer).'},
  {path: 'services.healthCheckNodePorts', type: 'int', description: 'Services with a healthCheckNodePort (externalTrafficPolicy Local).'},
  {path: 'services.withExternalIPs', type: 'int', description: 'Services with spec.externalIPs.'},
  {path: 'endpoints.total', type: 'int', description: 'Endpoints across all EndpointSlices.'},

  {path: 'service.name', type: 'string', description: 'Service subject: namespace/name.'},
  {path: 'service.type', type: 'string', description: 'Service subject: spec.type.'},
  {path: 'service.addresses', type: 'list<string>', description: 'Service subject: load-balancer ingress IPs and hostnames.'},
  {path: 'service.sharedWith', type: 'list<string>', description: 'Service subject: other Services and Ingresses that use one of its addresses.'},
  {path: 'service.portCount', type: 'int', description: 'Service subject: ports it exposes.'},

  {path: 'component.name', type: 'string', description: 'Component subject: calico, canal, flannel, cilium, aws-vpc-cni, azure-cni, antrea, kube-router, weave, kube-ovn, terway, kindnet, ….'},
  {path: 'component.workload', type: 'string', description: 'Component subject: its DaemonSet, namespace/name.'},
  {path: 'component.image', type: 'string', description: 'Component subject: main container image.'},
  {path: 'component.version', type: 'string', description: 'Component subject: version from the image tag (3.30.7).'},
  {path: 'component.dataplane', type: 'string', description: 'Component subject: its dataplane where it has several (Calico: Iptables, Nftables, BPF; flannel: iptables or nftables).'},
  {path: 'component.replacesKubeProxy', type: 'bool', description: 'Component subject: it implements Services itself (Cilium KPR, kube-router proxy, Antrea proxyAll).'},
]

/** What a cluster rule can be about: the cluster, each LoadBalancer Service, each networking DaemonSet. */
export const CLUSTER_SUBJECT_KINDS = ['Cluster', 'Service', 'DaemonSet'] as const

export function factSpecs(scope: 'cluster' | 'node'): readonly FactSpec[] {
  return scope === 'node' ? NODE_FACTS : CLUSTER_FACTS
}
