/** The built-in node rules (rules/node), written out by hand for the tests that expect one check or step each. */
export const NODE_RULES = [
  'node/conntrack-liberal',
  'node/host-firewall',
  'node/input-only-firewall',
  'node/iptables-backend-mix',
  'node/ipvs-leftovers',
  'node/ipvs-other-users',
  'node/kernel-check-bypass',
  'node/kernel-version',
  'node/kube-proxy-nft-pair',
  'node/localhost-nodeports',
  'node/native-nft-rules',
  'node/nf-tables-kernel',
  'node/nft-json',
  'node/nft-version',
  'node/nftables-kernel-features',
  'node/nodeport-addresses',
  'node/os-distro',
  'node/rollback-target',
  'node/ruleset-flush',
]

/** The built-in checks of a switched node (rules/verify, verifies: switch), which node runs also list on every node. */
export const SWITCH_CHECK_RULES = [
  'verify/iptables-leftovers',
  'verify/ipvs-services-gone',
  'verify/kube-ipsets-gone',
  'verify/kube-ipvs0-gone',
  'verify/kube-proxy-healthz',
  'verify/kube-proxy-process',
  'verify/kube-proxy-tables',
  'verify/nftables-sync-failures',
  'verify/running-mode',
  'verify/sync-pending',
]
