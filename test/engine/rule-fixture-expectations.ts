import type {Severity, UnknownReason} from '../../src/contract/finding.js'

/**
 * What each rule fixture's telling finding must say beyond its status, written by hand from the
 * fixture's content and the rule's intent (never read back from a run):
 *
 * - `unknown.<case>`: the exact reason. A case ending in `-forbidden` (the API answered 403) is
 *   always `permission-denied`; the others are written out because the case names the situation,
 *   not the reason (`no-kernel-evidence` is `not-collected` when the bundle lacks a section,
 *   `not-present` when the node lacks the files).
 * - `fail.<case>`: the severity, the subject (`Kind/name`), and, where the remediation carries a
 *   command, a piece of that command (or of the advice that differs between fixtures of one rule);
 *   `without`: a piece of a conditional remediation line this fixture's platform, version, CNI or
 *   mode leaves out.
 *
 * Keyed by `<rule name>/<fixture file>`.
 */
type FixtureExpectation = {reason: UnknownReason} | {remediation?: string; severity: Severity; subject: string; without?: string}

export const FIXTURE_EXPECTATIONS: Record<string, FixtureExpectation> = {
  // --- cluster rules ---
  // What breaks after the switch (field reports of 2025–2026) and rollback readiness: each fail has a pass twin differing in one detail.
  'antrea-proxy-all/fail.antrea-2.5.0-proxy-all-without-nftables-host-network.json': {severity: 'warning', subject: 'DaemonSet/kube-system/antrea-agent', remediation: 'NFTablesHostNetworkMode: true'},
  // Just below 2.5: the gate does not help (heuristic version floor).
  'antrea-proxy-all/fail.antrea-2.4.9-proxy-all-nftables-host-network.json': {severity: 'warning', subject: 'DaemonSet/kube-system/antrea-agent', remediation: 'Upgrade Antrea to 2.5'},
  'antrea-proxy-all/unknown.antrea-config-forbidden.json': {reason: 'permission-denied'},
  // Felix in eBPF mode beside the kube-proxy DaemonSet deletes kube-proxy's tables: a blocker; nftables mode before v3.33: a warning.
  // Each dataplane gets its own fix: eBPF removes kube-proxy, nftables upgrades Calico.
  'calico-kube-proxy-tables/fail.calico-ebpf-beside-kube-proxy.json': {severity: 'blocker', subject: 'DaemonSet/kube-system/calico-node', remediation: 'remove kube-proxy', without: 'projectcalico/calico#13579'},
  'calico-kube-proxy-tables/fail.calico-3.32.9-nftables.json': {severity: 'warning', subject: 'DaemonSet/kube-system/calico-node', remediation: 'projectcalico/calico#13579', without: 'remove kube-proxy'},
  'calico-kube-proxy-tables/fail.calico-3.30.7-nftables.json': {severity: 'warning', subject: 'DaemonSet/kube-system/calico-node', remediation: 'projectcalico/calico#13579', without: 'remove kube-proxy'},
  'calico-kube-proxy-tables/unknown.installation-forbidden.json': {reason: 'permission-denied'},
  // 99,999 endpoints pass, 100,000 on kernel 4.18 fail.
  'endpoints-kernel/fail.100000-endpoints-kernel-4.18.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'kernel 6.12 or later'},
  'endpoints-kernel/fail.100000-endpoints-kernel-6.11.11.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'kernel 6.12 or later'},
  'endpoints-kernel/unknown.endpointslices-forbidden.json': {reason: 'permission-denied'},
  // RKE2 v1.33.4 (rancher/rke2#8840's version) fails; v1.33.5, the first 1.33 release with the k3s-root bump, passes.
  'k3s-nft-json/fail.rke2-v1.33.4.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'v1.33.5'},
  // Before 1.31 no release has the bump; 1.31.12 and 1.34.0 are just before theirs; 1.32's backport release is not recorded.
  'k3s-nft-json/fail.rke2-v1.30.14.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'v1.31.13'},
  'k3s-nft-json/fail.rke2-v1.31.12.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'v1.31.13'},
  'k3s-nft-json/fail.rke2-v1.34.0.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'v1.34.1'},
  'k3s-nft-json/unknown.rke2-v1.32.8.json': {reason: 'not-collected'},
  'k3s-nft-json/unknown.nodes-forbidden.json': {reason: 'permission-denied'},
  // kube-proxy 1.30 deletes its nftables tables on a rollback only with the alpha gate on; 1.31 passes.
  'rollback-cleanup/fail.kube-proxy-1.30.14.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'nft delete table ip kube-proxy'},
  'rollback-cleanup/unknown.daemonsets-forbidden.json': {reason: 'permission-denied'},
  // primary with a CIDR is 1.37-only; primary alone passes.
  'rollback-config/fail.nodeport-addresses-primary-and-cidr.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'free of 1.37-only values'},
  'rollback-config/unknown.configmaps-forbidden.json': {reason: 'permission-denied'},
  'cni-version/fail.aws-vpc-cni-1.20.json': {
    severity: 'blocker',
    subject: 'DaemonSet/kube-system/aws-node',
    remediation: 'aws eks update-addon --cluster-name CLUSTER --addon-name vpc-cni',
  },
  'cni-version/fail.calico-iptables-dataplane.json': {
    severity: 'warning',
    subject: 'DaemonSet/kube-system/calico-node',
    remediation: `kubectl patch installation default --type=merge -p '{"spec":{"calicoNetwork":{"linuxDataplane":"Nftables"}}}'`,
  },
  // The Installation says Iptables, and FelixConfiguration default could not be read: whether Felix follows kube-proxy is not known.
  'cni-version/unknown.felixconfigurations-forbidden.json': {reason: 'permission-denied'},
  'cni-version/fail.canal.json': {severity: 'blocker', subject: 'DaemonSet/kube-system/canal', remediation: 'Replace Canal'},
  // The flannel image reference has no tag: there is a CNI, but no version to compare.
  'cni-version/unknown.flannel-image-without-tag.json': {reason: 'unparseable'},
  // A wait-for init container and a liveness probe ping billing/redis (by name, by $REDIS_SERVICE_HOST), a CronJob pings CoreDNS's ClusterIP.
  'clusterip-ping/fail.ipvs-probe-init-and-cronjob-ping-services.json': {severity: 'warning', subject: 'Deployment/billing/invoice-api', remediation: 'tcpSocket'},
  'clusterip-ping/unknown.deployments-forbidden.json': {reason: 'permission-denied'},
  // A snapshot written before the workloads were read holds none of them.
  'clusterip-ping/unknown.snapshot-without-workloads.json': {reason: 'not-collected'},
  'config-carry-over/fail.iptables-masquerade-all.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'masqueradeAll'},
  'config-carry-over/unknown.configmaps-forbidden.json': {reason: 'permission-denied'},
  // Named with its address; in IPVS mode kube-ipvs0 answers it today (a warning), in iptables mode only the deprecation is left (info).
  // Heuristic caveats of EKS on Bottlerocket: the 1.36 eksbuild's segfault, the network policy agent's connectivity loss.
  'eks-bottlerocket/fail.bottlerocket-kube-proxy-1.36.0-eksbuild.9.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'segmentation fault'},
  'eks-bottlerocket/fail.bottlerocket-network-policy.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'more than a day'},
  'eks-bottlerocket/unknown.nodes-forbidden.json': {reason: 'permission-denied'},
  'external-ips/fail.ipvs-external-ips.json': {severity: 'warning', subject: 'Service/web/legacy', remediation: 'type LoadBalancer'},
  'external-ips/fail.iptables-external-ips.json': {severity: 'info', subject: 'Service/web/legacy', remediation: 'type LoadBalancer'},
  'external-ips/unknown.services-forbidden.json': {reason: 'permission-denied'},
  'ipvs-deprecation/fail.ipvs-on-1.35.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'KubeProxyIPVS'},
  // Boundaries: deprecated (a warning) from 1.35, off by default (a blocker) from 1.40.
  'ipvs-deprecation/fail.ipvs-on-1.35.0-from-1.34.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'KubeProxyIPVS'},
  'ipvs-deprecation/fail.ipvs-on-1.39.9-from-1.34.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'KubeProxyIPVS'},
  'ipvs-deprecation/fail.ipvs-on-1.40.0-from-1.34.json': {severity: 'blocker', subject: 'Cluster/cluster', remediation: 'before upgrading to Kubernetes 1.40'},
  // Removed (a blocker the gate cannot lift) from 1.43.
  'ipvs-deprecation/fail.ipvs-on-1.42.9-from-1.34.json': {severity: 'blocker', subject: 'Cluster/cluster', remediation: 'until 1.43 removes IPVS mode'},
  'ipvs-deprecation/fail.ipvs-on-1.43.0-from-1.34.json': {severity: 'blocker', subject: 'Cluster/cluster', remediation: 'until 1.43 removes IPVS mode'},
  'ipvs-deprecation/unknown.configmaps-forbidden.json': {reason: 'permission-denied'},
  'ipvs-flush-users/fail.kube-router-service-proxy.json': {severity: 'blocker', subject: 'Cluster/cluster'},
  // kube-vip with lb_enable=true balances the control plane in IPVS; its ARP-only twin (pass) has no lb_enable.
  'ipvs-flush-users/fail.kube-vip-lb-enable.json': {severity: 'blocker', subject: 'Cluster/cluster', remediation: 'without lb_enable'},
  'ipvs-flush-users/unknown.daemonsets-forbidden.json': {reason: 'permission-denied'},
  // CCE's pass-through annotation is said on CCE, and where the platform is not known (Nodes forbidden); not on EKS.
  'ipvs-lb-hijack/fail.shared-with-ingress.json': {severity: 'warning', subject: 'Service/web/shop', remediation: 'Test in-cluster access', without: 'elb.pass-through'},
  'ipvs-lb-hijack/fail.shared-with-ingress-cce.json': {severity: 'warning', subject: 'Service/web/shop', remediation: 'kubernetes.io/elb.pass-through: "true"'},
  'ipvs-lb-hijack/fail.shared-with-ingress-nodes-forbidden.json': {severity: 'warning', subject: 'Service/web/shop', remediation: 'kubernetes.io/elb.pass-through: "true"'},
  'ipvs-lb-hijack/unknown.ingresses-forbidden.json': {reason: 'permission-denied'},
  'ipvs-scheduler/fail.source-hashing.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'sessionAffinity: ClientIP'},
  'ipvs-scheduler/unknown.configmaps-forbidden.json': {reason: 'permission-denied'},
  'ipvs-strict-arp/fail.external-ips-without-announcer.json': {severity: 'warning', subject: 'Cluster/cluster'},
  'ipvs-strict-arp/unknown.services-forbidden.json': {reason: 'permission-denied'},
  // The mode itself is not a problem: the finding says a switch is to be done.
  // An alert on the iptables restore failures (replaced by the nftables sync failures) and a recording rule on the rule count (none).
  'iptables-metric-rules/fail.iptables-restore-failures-alert.json': {severity: 'warning', subject: 'PrometheusRule/monitoring/kube-proxy', remediation: 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total'},
  'iptables-metric-rules/unknown.prometheusrules-forbidden.json': {reason: 'permission-denied'},
  'kube-proxy-mode/fail.ipvs-mode-kubespray.json': {severity: 'info', subject: 'Cluster/cluster'},
  'kube-proxy-mode/fail.iptables-mode.json': {severity: 'info', subject: 'Cluster/cluster', remediation: 'Follow the migration plan'},
  'kube-proxy-mode/unknown.configmap-forbidden.json': {reason: 'permission-denied'},
  // The ConfigMap says nftables, and the API shows no node's running mode: the mode to migrate from is not known.
  'kube-proxy-mode/unknown.configured-nftables-nodes-unseen.json': {reason: 'not-collected'},
  'kube-proxy-mode/unknown.daemonsets-forbidden.json': {reason: 'permission-denied'},
  // Boundaries: an unset mode is a finding (info) from kube-proxy 1.37, which warns about it, and a warning from 1.40,
  // whose default is nftables (1.36.9 passes, 1.39.9 is still info).
  // The nodes are EKS's: kubeadm's own behaviour is not said, but it is where the platform cannot be read (Nodes forbidden).
  'kube-proxy-mode-implicit/fail.kube-proxy-1.37.0-from-1.34.json': {severity: 'info', subject: 'Cluster/cluster', remediation: 'mode: iptables keeps what runs today', without: 'kubeadm 1.37'},
  'kube-proxy-mode-implicit/fail.kube-proxy-1.37.0-nodes-forbidden.json': {severity: 'info', subject: 'Cluster/cluster', remediation: 'kubeadm 1.37 and later write mode: iptables'},
  'kube-proxy-mode-implicit/fail.kube-proxy-1.39.9-from-1.34.json': {severity: 'info', subject: 'Cluster/cluster', remediation: 'mode: iptables keeps what runs today', without: 'kubeadm 1.37'},
  // kube-proxy 1.40 already runs nftables by default: the mode is to be written down, not pinned before an upgrade.
  'kube-proxy-mode-implicit/fail.kube-proxy-1.40.0-from-1.34.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'mode: nftables keeps what runs now', without: 'kubeadm 1.37'},
  'kube-proxy-mode-implicit/unknown.configmaps-forbidden.json': {reason: 'permission-denied'},
  // The image is pinned by digest: no tag tells kube-proxy's version, which decides what an unset mode means.
  'kube-proxy-mode-implicit/unknown.kube-proxy-image-by-digest.json': {reason: 'unparseable'},
  // The feature-gate line is for 1.29–1.30 only, where nftables mode is alpha.
  'kubernetes-version/fail.eks-1.31-kube-proxy.json': {severity: 'blocker', subject: 'Cluster/cluster', remediation: '1.33.6 or newer', without: 'featureGates'},
  'kubernetes-version/fail.kubernetes-1.28.json': {severity: 'blocker', subject: 'Cluster/cluster', remediation: '1.33.6 or newer'},
  // Boundaries (the node list is EKS's capture, so the EKS floor of 1.33 applies): no nftables mode before 1.29,
  // none on EKS before 1.33, then a warning until 1.33.6 brings the two nftables fixes.
  'kubernetes-version/fail.kubeadm-1.28.15-from-1.34.json': {severity: 'blocker', subject: 'Cluster/cluster', remediation: '1.33.6 or newer', without: 'featureGates'},
  'kubernetes-version/fail.kubeadm-1.29.0-from-1.34.json': {severity: 'blocker', subject: 'Cluster/cluster', remediation: 'featureGates: {NFTablesProxyMode: true}'},
  'kubernetes-version/fail.kubeadm-1.30.14-from-1.34.json': {severity: 'blocker', subject: 'Cluster/cluster', remediation: 'featureGates: {NFTablesProxyMode: true}'},
  'kubernetes-version/fail.kubeadm-1.31.0-from-1.34.json': {severity: 'blocker', subject: 'Cluster/cluster', remediation: '1.33.6 or newer', without: 'featureGates'},
  'kubernetes-version/fail.kubeadm-1.32.9-from-1.34.json': {severity: 'blocker', subject: 'Cluster/cluster', remediation: '1.33.6 or newer'},
  'kubernetes-version/fail.kubeadm-1.33.0-from-1.34.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: '1.33.6 or newer'},
  'kubernetes-version/fail.kubeadm-1.33.5-from-1.34.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: '1.33.6 or newer'},
  // A kubeadm cluster has no platform floor: before 1.31 nftables mode is alpha behind a gate that is off (a
  // blocker), from 1.31 it is beta (a warning until 1.33.6).
  'kubernetes-version/fail.kubeadm-1.30.14-without-platform-floor.json': {severity: 'blocker', subject: 'Cluster/cluster', remediation: 'featureGates: {NFTablesProxyMode: true}'},
  'kubernetes-version/fail.kubeadm-1.31.0-without-platform-floor.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: '1.33.6 or newer', without: 'featureGates'},
  'kubernetes-version/fail.kubeadm-1.32.9-without-platform-floor.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: '1.33.6 or newer'},
  // GET /version answered 503 ("the server is currently unable to handle the request"): the read failed.
  'kubernetes-version/unknown.version-unreachable.json': {reason: 'failed'},
  'node-local-dns/fail.node-local-dns.json': {severity: 'info', subject: 'Cluster/cluster', remediation: '169.254.20.10'},
  'node-local-dns/unknown.daemonsets-forbidden.json': {reason: 'permission-denied'},
  'nodeport-addresses/fail.node-with-two-internal-ips.json': {severity: 'warning', subject: 'Service/web/shop', remediation: '["0.0.0.0/0"]'},
  // The API shows one address per node: only the nodes' own interfaces could tell, so the finding is info.
  'nodeport-addresses/fail.one-internal-ip-per-node.json': {severity: 'info', subject: 'Service/web/shop', remediation: '["0.0.0.0/0"]'},
  'nodeport-addresses/unknown.services-forbidden.json': {reason: 'permission-denied'},
  'platform-switch/fail.openshift-sdn.json': {severity: 'blocker', subject: 'Cluster/cluster', remediation: 'OVN-Kubernetes'},
  'platform-switch/unknown.nodes-forbidden.json': {reason: 'permission-denied'},
  // Boundaries: 10,000 endpoints before kube-proxy 1.36 (a warning), from 3,000 and from 500 Services (info).
  // Boundaries: 128 bytes pass, 129 fail on kube-proxy before 1.37.0 (1.36.9), which truncates from 1.37.0.
  'service-comment-length/fail.comment-129-bytes.json': {severity: 'blocker', subject: 'Service/tenant-northwind-traders-payments-settlement-reconciliation-prd/ledger-reconciliation-batch-scheduler-eu-central1', remediation: 'Upgrade kube-proxy to 1.37.0 or newer'},
  'service-comment-length/fail.comment-129-bytes-kube-proxy-1.36.9.json': {severity: 'blocker', subject: 'Service/tenant-northwind-traders-payments-settlement-reconciliation-prd/ledger-reconciliation-batch-scheduler-eu-central1', remediation: 'at most 128 bytes'},
  'service-comment-length/unknown.services-forbidden.json': {reason: 'permission-denied'},
  'service-count/fail.10000-endpoints-kube-proxy-1.35.9.json': {severity: 'warning', subject: 'Cluster/cluster', remediation: 'kube-proxy 1.36 or newer'},
  'service-count/fail.3000-services.json': {severity: 'info', subject: 'Cluster/cluster', remediation: 'kube-proxy 1.36 or newer'},
  'service-count/fail.500-services.json': {severity: 'info', subject: 'Cluster/cluster', remediation: 'kube-proxy 1.36 or newer'},
  'service-count/fail.600-services.json': {severity: 'info', subject: 'Cluster/cluster', remediation: 'kube-proxy 1.36 or newer'},
  'service-count/unknown.services-forbidden.json': {reason: 'permission-denied'},
  'windows-nodes/fail.aks-windows-pool.json': {severity: 'info', subject: 'Cluster/cluster', remediation: 'kubernetes.io/os=windows'},
  // A Linux node labelled windows: reported, and still checked as Linux (test/commands/cluster-sources.integration.test.ts).
  'windows-nodes/fail.linux-labelled-windows.json': {severity: 'info', subject: 'Cluster/cluster', remediation: 'kubernetes.io/os=linux --overwrite'},
  'windows-nodes/unknown.nodes-forbidden.json': {reason: 'permission-denied'},

  // --- node rules (a node fixture's subject is the node named after its file) ---
  // What breaks after the switch (field reports of 2025–2026) and rollback readiness: each fail has a pass twin differing in one line.
  // k3s and RKE2 need a release with the k3s-root bump; another kube-proxy an nft built with JSON.
  'nft-json/fail.kube-proxy-on-host-nft-without-json.facts': {severity: 'blocker', subject: 'Node/fail.kube-proxy-on-host-nft-without-json.facts', remediation: 'nft is built with JSON', without: 'k3s-root bump'},
  'nft-json/fail.k3s-nft-without-json.facts': {severity: 'blocker', subject: 'Node/fail.k3s-nft-without-json.facts', remediation: 'k3s-root bump', without: 'nft is built with JSON'},
  // kube-proxy in a container, the collector on the host: the nft on the path is not the one kube-proxy runs.
  'nft-json/unknown.containerised-kube-proxy-host-run.facts': {reason: 'not-present'},
  'nft-json/unknown.not-collected.facts': {reason: 'not-collected'},
  'ruleset-flush/fail.nftables-conf-flush-ruleset-enabled.facts': {severity: 'warning', subject: 'Node/fail.nftables-conf-flush-ruleset-enabled.facts', remediation: 'flush table inet filter'},
  // firewalld's default FlushAllOnReload (yes) hits hostPorts' iptables DNAT, not kube-proxy's table: info.
  'ruleset-flush/fail.firewalld-flush-all-on-reload-default.facts': {severity: 'info', subject: 'Node/fail.firewalld-flush-all-on-reload-default.facts', remediation: 'FlushAllOnReload=no'},
  'ruleset-flush/unknown.etc-unreadable.facts': {reason: 'permission-denied'},
  'ipvs-other-users/fail.kube-vip-static-pod-lb-enable.facts': {severity: 'blocker', subject: 'Node/fail.kube-vip-static-pod-lb-enable.facts', remediation: 'drop lb_enable'},
  'input-only-firewall/fail.nftables-input-drop-forward-accept.facts': {severity: 'warning', subject: 'Node/fail.nftables-input-drop-forward-accept.facts', remediation: 'ct status dnat accept'},
  'input-only-firewall/fail.iptables-input-drop-forward-accept.facts': {severity: 'warning', subject: 'Node/fail.iptables-input-drop-forward-accept.facts', remediation: 'ct status dnat accept'},
  'input-only-firewall/unknown.nft-chains-not-root.facts': {reason: 'permission-denied'},
  // No ip_tables/iptable_nat nor nft_compat: one-way (no ip_vs either), or IPVS as the only way back.
  'rollback-target/fail.no-ip-tables-no-nft-compat.facts': {severity: 'warning', subject: 'Node/fail.no-ip-tables-no-nft-compat.facts', remediation: 'one-way'},
  'rollback-target/fail.ipvs-only.facts': {severity: 'warning', subject: 'Node/fail.ipvs-only.facts', remediation: 'one-way'},
  // Nothing loaded and no module index: whether the modules could be loaded is not known.
  'rollback-target/unknown.no-module-index.facts': {reason: 'not-present'},
  'native-nft-rules/fail.native-rules-in-nat.facts': {severity: 'warning', subject: 'Node/fail.native-rules-in-nat.facts', remediation: 'table inet'},
  'native-nft-rules/unknown.non-root.facts': {reason: 'permission-denied'},
  'conntrack-liberal/fail.drops-on-5.15.facts': {severity: 'warning', subject: 'Node/fail.drops-on-5.15.facts', remediation: '--conntrack-tcp-be-liberal'},
  'conntrack-liberal/fail.drops-on-6.0.19-from-fixed-kernel-6.1.facts': {severity: 'warning', subject: 'Node/fail.drops-on-6.0.19-from-fixed-kernel-6.1.facts', remediation: '--conntrack-tcp-be-liberal'},
  'conntrack-liberal/unknown.metrics-unreachable.facts': {reason: 'unreachable'},
  'host-firewall/fail.docker-forward-drop.facts': {severity: 'warning', subject: 'Node/fail.docker-forward-drop.facts', remediation: 'DOCKER-USER'},
  'host-firewall/fail.nftables-conf-policy-drop.facts': {
    severity: 'warning',
    subject: 'Node/fail.nftables-conf-policy-drop.facts',
    remediation: 'ufw allow 30000:32767/tcp',
  },
  'host-firewall/fail.rhel-firewalld-active.facts': {
    severity: 'warning',
    subject: 'Node/fail.rhel-firewalld-active.facts',
    remediation: 'firewall-cmd --permanent --add-port=30000-32767/tcp',
  },
  'host-firewall/unknown.no-services-section.facts': {reason: 'not-collected'},
  'host-firewall/unknown.non-root-cannot-read-policies.facts': {reason: 'permission-denied'},
  'iptables-backend-mix/fail.legacy-and-nft.facts': {
    severity: 'warning',
    subject: 'Node/fail.legacy-and-nft.facts',
    remediation: 'update-alternatives --set iptables /usr/sbin/iptables-nft',
  },
  'iptables-backend-mix/unknown.non-root.facts': {reason: 'permission-denied'},
  // kube-ipvs0 left by an earlier IPVS mode on a node now in iptables mode (a switched node's leftovers are verify's).
  'ipvs-leftovers/fail.kube-ipvs0-in-iptables-mode.facts': {severity: 'warning', subject: 'Node/fail.kube-ipvs0-in-iptables-mode.facts', remediation: 'ip link delete kube-ipvs0'},
  'ipvs-leftovers/unknown.metrics-unreachable.facts': {reason: 'unreachable'},
  'ipvs-leftovers/unknown.no-section.facts': {reason: 'not-collected'},
  'ipvs-other-users/fail.keepalived-lvs.facts': {severity: 'blocker', subject: 'Node/fail.keepalived-lvs.facts', remediation: 'ipvsadm -Ln'},
  'ipvs-other-users/fail.kube-vip-ipvs-with-iptables-kube-proxy.facts': {
    severity: 'blocker',
    subject: 'Node/fail.kube-vip-ipvs-with-iptables-kube-proxy.facts',
    remediation: 'ipvsadm -Ln',
  },
  'ipvs-other-users/unknown.ip-vs-unreadable.facts': {reason: 'permission-denied'},
  'kernel-check-bypass/fail.set.facts': {severity: 'warning', subject: 'Node/fail.set.facts', remediation: 'Remove the variable'},
  'kernel-check-bypass/unknown.environ-unreadable.facts': {reason: 'permission-denied'},
  'kernel-version/fail.rhel-8.10-4.18.facts': {severity: 'blocker', subject: 'Node/fail.rhel-8.10-4.18.facts', remediation: 'Move to RHEL 9 or newer'},
  'kernel-version/fail.kernel-5.12.19-from-ubuntu-22.04-azure.facts': {severity: 'blocker', subject: 'Node/fail.kernel-5.12.19-from-ubuntu-22.04-azure.facts', remediation: 'mixed modes'},
  'kernel-version/fail.tencent-5.4-vendor-suffix.facts': {
    severity: 'blocker',
    subject: 'Node/fail.tencent-5.4-vendor-suffix.facts',
    remediation: 'KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK=1',
  },
  'kernel-version/unknown.no-kernel-release.facts': {reason: 'not-collected'},
  'localhost-nodeports/fail.registry-pulls-via-localhost.facts': {
    severity: 'blocker',
    subject: 'Node/fail.registry-pulls-via-localhost.facts',
    remediation: 'KubeProxyNFTablesLocalhostNodePorts',
  },
  'localhost-nodeports/unknown.metrics-unreachable.facts': {reason: 'unreachable'},
  // kube-proxy answered, but its metrics have no localhost NodePort counter.
  'localhost-nodeports/unknown.old-kube-proxy-without-metric.facts': {reason: 'not-present'},
  'nf-tables-kernel/fail.kernel-config-without-nf-tables.facts': {
    severity: 'blocker',
    subject: 'Node/fail.kernel-config-without-nf-tables.facts',
    remediation: 'CONFIG_NF_TABLES=y or =m',
  },
  // The bundle has no nft-check section at all (hand-made); the config and module lists are not-present.
  'nf-tables-kernel/unknown.no-kernel-evidence.facts': {reason: 'not-collected'},
  'kube-proxy-nft-pair/fail.host-nft-1.1.6-image-nft-not-read.facts': {
    severity: 'warning',
    subject: 'Node/fail.host-nft-1.1.6-image-nft-not-read.facts',
    remediation: 'Run a kube-proxy image whose nft --version prints 1.0.6.1',
  },
  // The host's side of the matrix, the image's nft not read: 1.0.6.1 and from 1.1.2 crash image nft 1.0.1 to 1.0.5,
  // from 1.1.3 image nft 1.0.6 too; 1.1.1 crashes none (pass).
  'kube-proxy-nft-pair/fail.host-nft-1.0.6.1-from-1.1.6.facts': {severity: 'warning', subject: 'Node/fail.host-nft-1.0.6.1-from-1.1.6.facts', remediation: 'kubectl -n kube-system exec ds/kube-proxy -- nft --version'},
  'kube-proxy-nft-pair/fail.host-nft-1.1.2-from-1.1.6.facts': {severity: 'warning', subject: 'Node/fail.host-nft-1.1.2-from-1.1.6.facts', remediation: 'kubectl -n kube-system exec ds/kube-proxy -- nft --version'},
  'kube-proxy-nft-pair/fail.host-nft-1.1.3-from-1.1.6.facts': {severity: 'warning', subject: 'Node/fail.host-nft-1.1.3-from-1.1.6.facts', remediation: 'for image nft 1.0.6: below 1.1.3'},
  // Both sides read: the rows of the matrix themselves.
  'kube-proxy-nft-pair/fail.image-nft-1.0.1-host-nft-1.1.2-from-debian-12.facts': {severity: 'warning', subject: 'Node/fail.image-nft-1.0.1-host-nft-1.1.2-from-debian-12.facts', remediation: 'prints 1.0.6.1'},
  'kube-proxy-nft-pair/fail.image-nft-1.0.5-host-nft-1.0.6.1-from-debian-12.facts': {severity: 'warning', subject: 'Node/fail.image-nft-1.0.5-host-nft-1.0.6.1-from-debian-12.facts', remediation: 'prints 1.0.6.1'},
  'kube-proxy-nft-pair/fail.image-nft-1.0.6-host-nft-1.1.3-from-debian-12.facts': {severity: 'warning', subject: 'Node/fail.image-nft-1.0.6-host-nft-1.1.3-from-debian-12.facts', remediation: 'prints 1.0.6.1'},
  // Read in kube-proxy's pod, which cannot run the host's nft: its section says so.
  'kube-proxy-nft-pair/unknown.kube-proxy-pod-image-nft-1.0.6-from-debian-12.facts': {reason: 'not-present'},
  'kube-proxy-nft-pair/unknown.not-collected.facts': {reason: 'not-collected'},
  'nft-version/fail.debian-10-nft-0.9.0-kube-proxy-on-host.facts': {
    severity: 'blocker',
    subject: 'Node/fail.debian-10-nft-0.9.0-kube-proxy-on-host.facts',
    remediation: 'kubectl -n kube-system exec ds/kube-proxy -- nft --version',
  },
  // nft 1.0.0 is refused by a kube-proxy on the host (a blocker); a containerised one brings its own nft (a warning).
  'nft-version/fail.nft-1.0.0-containerised-kube-proxy-from-debian-10.facts': {
    severity: 'warning',
    subject: 'Node/fail.nft-1.0.0-containerised-kube-proxy-from-debian-10.facts',
    remediation: 'install nftables 1.0.1 or newer',
  },
  'nft-version/fail.nft-1.0.0-kube-proxy-on-host-from-debian-10.facts': {severity: 'blocker', subject: 'Node/fail.nft-1.0.0-kube-proxy-on-host-from-debian-10.facts', remediation: 'install nftables 1.0.1 or newer'},
  'nft-version/fail.host-binary-kube-proxy-without-nft.facts': {
    severity: 'blocker',
    subject: 'Node/fail.host-binary-kube-proxy-without-nft.facts',
    remediation: 'install nftables 1.0.1 or newer',
  },
  // kube-proxy runs in a container and the bundle was collected on the host: the image's nft was not read.
  'nft-version/unknown.cbl-mariner-2.0-host-nft-1.0.1-iptables-image-nft-not-read.facts': {reason: 'not-collected'},
  'nft-version/unknown.no-host-nft-containerised-kube-proxy.facts': {reason: 'not-collected'},
  // Without the kube-proxy runtime nobody can tell which nft it runs.
  'nft-version/unknown.no-host-nft-kube-proxy-runtime-not-collected.facts': {reason: 'not-collected'},
  'nft-version/unknown.not-collected.facts': {reason: 'not-collected'},
  'nftables-kernel-features/fail.nft-check-rejected.facts': {
    severity: 'blocker',
    subject: 'Node/fail.nft-check-rejected.facts',
    remediation: 'kpx-check collect | sudo sh',
  },
  // Read from the kernel config only (no nft -c as root): a warning, not a blocker.
  'nftables-kernel-features/fail.talos-without-nft-fib.facts': {
    severity: 'warning',
    subject: 'Node/fail.talos-without-nft-fib.facts',
    remediation: 'CONFIG_NFT_FIB_IPV4/IPV6',
  },
  // The node has no kernel config nor module lists (not-present); /proc/modules was unreadable.
  'nftables-kernel-features/unknown.no-kernel-evidence.facts': {reason: 'not-present'},
  'nodeport-addresses/fail.two-nics.facts': {severity: 'warning', subject: 'Node/fail.two-nics.facts', remediation: 'nodePortAddresses'},
  'nodeport-addresses/unknown.no-ip-command.facts': {reason: 'not-installed'},
  // EL10 passes the kernel and nft checks, but iptables mode does not work there: nftables is the only path (info).
  'os-distro/fail.almalinux-10.0.facts': {severity: 'info', subject: 'Node/fail.almalinux-10.0.facts', remediation: 'EnableNFTables'},
  'os-distro/fail.centos-7.facts': {severity: 'warning', subject: 'Node/fail.centos-7.facts', remediation: 'upgrade to centos 9 or newer'},
  'os-distro/fail.euleros-2.0-sp9.facts': {severity: 'warning', subject: 'Node/fail.euleros-2.0-sp9.facts', remediation: 'Debian 12+, Ubuntu 22.04+ or RHEL 9+'},
  'os-distro/fail.rhel-8.10.facts': {severity: 'warning', subject: 'Node/fail.rhel-8.10.facts', remediation: 'upgrade to rhel 9 or newer'},
  'os-distro/fail.ubuntu-18.04.facts': {severity: 'warning', subject: 'Node/fail.ubuntu-18.04.facts', remediation: 'upgrade to ubuntu 22.04 or newer'},
  'os-distro/unknown.no-os-release.facts': {reason: 'not-collected'},

  // --- verify rules (after the switch; fixtures from the kube-proxy 1.36.2 captures, see SOURCES.md) ---
  // verify --baseline: the node now (the nftables capture), and its <case>.baseline.json, a node report made before the switch.
  // A firewall's 20 rules in iptables-legacy before the switch (the backend mix then a warning of its own), none now.
  'baseline-iptables-rules/fail.legacy-rules-flushed.facts': {severity: 'warning', subject: 'Node/fail.legacy-rules-flushed.facts', remediation: 'iptables-legacy-save'},
  'baseline-iptables-rules/fail.other-rules-flushed.facts': {severity: 'warning', subject: 'Node/fail.other-rules-flushed.facts', remediation: 'iptables-nft-save'},
  // The baseline is the IPVS capture's report, made without root: its iptables rules were not readable.
  'baseline-iptables-rules/unknown.baseline-without-iptables-rules.facts': {reason: 'not-collected'},
  'baseline-ipvs-users/fail.keepalived-flushed.facts': {severity: 'blocker', subject: 'Node/fail.keepalived-flushed.facts', remediation: 'systemctl restart keepalived'},
  'baseline-ipvs-users/unknown.baseline-without-ipvs.facts': {reason: 'not-collected'},
  'baseline-nodeport-addresses/fail.vip-gone.facts': {severity: 'warning', subject: 'Node/fail.vip-gone.facts'},
  'baseline-nodeport-addresses/unknown.baseline-without-addresses.facts': {reason: 'not-collected'},
  'iptables-leftovers/fail.service-chains-left.facts': {severity: 'blocker', subject: 'Node/fail.service-chains-left.facts', remediation: 'kube-proxy --cleanup'},
  // The iptables-rules lines as the collector wrote them before it counted Service chains.
  'iptables-leftovers/unknown.older-collector.facts': {reason: 'not-collected'},
  'iptables-service-chains/fail.no-service-chains.facts': {severity: 'blocker', subject: 'Node/fail.no-service-chains.facts'},
  'iptables-service-chains/unknown.older-collector.facts': {reason: 'not-collected'},
  'kube-ipvs0-gone/fail.kube-ipvs0-left.facts': {severity: 'blocker', subject: 'Node/fail.kube-ipvs0-left.facts', remediation: 'ip link delete kube-ipvs0'},
  'kube-ipvs0-gone/unknown.no-section.facts': {reason: 'not-collected'},
  // IPVS state left by a cleanup that never ran (the Ubuntu 20.04 IPVS bundle's): six virtual servers on kube-ipvs0's Service IPs.
  'ipvs-services-gone/fail.service-virtual-servers-left.facts': {severity: 'blocker', subject: 'Node/fail.service-virtual-servers-left.facts', remediation: 'ipvsadm -D -t IP:PORT'},
  'ipvs-services-gone/fail.service-virtual-servers-left-beside-kube-vip.facts': {severity: 'blocker', subject: 'Node/fail.service-virtual-servers-left-beside-kube-vip.facts', remediation: 'ipvsadm -D -t IP:PORT'},
  'ipvs-services-gone/unknown.ip-vs-unreadable.facts': {reason: 'permission-denied'},
  // Virtual servers, and kube-ipvs0 there but not listed (no ip in kube-proxy's image): which are Services' cannot be told.
  'ipvs-services-gone/unknown.kube-ipvs0-without-ip.facts': {reason: 'not-installed'},
  'ipvs-services-back/fail.ipvs-without-service-virtual-servers.facts': {severity: 'blocker', subject: 'Node/fail.ipvs-without-service-virtual-servers.facts', remediation: 'modprobe ip_vs'},
  'ipvs-services-back/unknown.ip-vs-unreadable.facts': {reason: 'permission-denied'},
  'kube-ipsets-gone/fail.ipvs-ipsets-left.facts': {severity: 'warning', subject: 'Node/fail.ipvs-ipsets-left.facts', remediation: '`ipset destroy KUBE-LOOP-BACK`, `ipset destroy KUBE-CLUSTER-IP`'},
  'kube-ipsets-gone/unknown.ipset-not-installed.facts': {reason: 'not-installed'},
  'kube-ipsets-gone/unknown.not-root.facts': {reason: 'permission-denied'},
  'kube-proxy-process/fail.kube-proxy-exited.facts': {severity: 'blocker', subject: 'Node/fail.kube-proxy-exited.facts', remediation: 'kpx-check verify node --rollback'},
  'kube-proxy-process/unknown.proc-hidden.facts': {reason: 'permission-denied'},
  'kube-proxy-tables/fail.ipv6-table-gone.facts': {severity: 'blocker', subject: 'Node/fail.ipv6-table-gone.facts'},
  'kube-proxy-tables/fail.tables-gone.facts': {severity: 'blocker', subject: 'Node/fail.tables-gone.facts', remediation: 'nft list table ip kube-proxy'},
  'kube-proxy-tables/unknown.not-root.facts': {reason: 'permission-denied'},
  'kube-proxy-tables-gone/fail.tables-left.facts': {severity: 'blocker', subject: 'Node/fail.tables-left.facts', remediation: '`nft delete table ip kube-proxy` and `nft delete table ip6 kube-proxy`'},
  'kube-proxy-tables-gone/unknown.not-root.facts': {reason: 'permission-denied'},
  // /healthz as kube-proxy's health server writes it: IPv6 with a change waiting past 2 × syncPeriod; curl's 503; no `healthy` before 1.33; no section.
  'kube-proxy-healthz/fail.ipv6-unhealthy-503.facts': {severity: 'blocker', subject: 'Node/fail.ipv6-unhealthy-503.facts', remediation: 'kpx-check verify node --rollback'},
  'kube-proxy-healthz/unknown.http-error-through-curl.facts': {reason: 'failed'},
  'kube-proxy-healthz/unknown.before-1.33-no-healthy.facts': {reason: 'not-present'},
  'kube-proxy-healthz/unknown.older-collector-no-section.facts': {reason: 'not-collected'},
  'nftables-sync-failures/fail.first-sync-failure.facts': {severity: 'blocker', subject: 'Node/fail.first-sync-failure.facts', remediation: 'kpx-check verify node --rollback'},
  'nftables-sync-failures/unknown.metrics-unreachable.facts': {reason: 'unreachable'},
  'rolled-back-mode/fail.still-nftables.facts': {severity: 'blocker', subject: 'Node/fail.still-nftables.facts'},
  'rolled-back-mode/unknown.mode-unreachable.facts': {reason: 'unreachable'},
  'running-mode/fail.still-iptables.facts': {severity: 'blocker', subject: 'Node/fail.still-iptables.facts', remediation: '--field-selector spec.nodeName=NODE'},
  'running-mode/unknown.mode-unreachable.facts': {reason: 'unreachable'},
  // Read two minutes later, an IPv6 sync asked for at 06:35:22 is still not done: 133 s.
  // verify --watch: the fixture is the second read, <case>.first-read the first.
  'sync-watch/fail.ipv4-failures-grew.facts': {severity: 'blocker', subject: 'Node/fail.ipv4-failures-grew.facts', remediation: 'verify node --rollback'},
  'sync-watch/fail.ipv6-not-synced-in-90s.facts': {severity: 'blocker', subject: 'Node/fail.ipv6-not-synced-in-90s.facts'},
  'sync-watch/unknown.second-read-unreachable.facts': {reason: 'unreachable'},
  'sync-pending/fail.ipv6-sync-waiting.facts': {severity: 'blocker', subject: 'Node/fail.ipv6-sync-waiting.facts'},
  // No sync timestamp at all: the bundle as the collector wrote it before it kept them (a healthy nftables node then showed no metric line).
  'sync-pending/unknown.no-sync-series.facts': {reason: 'not-present'},
}
