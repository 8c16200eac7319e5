/** The built-in node rules (rules/node), written out by hand for the tests that expect one check or step each. */
export const NODE_RULES = [
  'node/conntrack-liberal',
  'node/host-firewall',
  'node/iptables-backend-mix',
  'node/ipvs-leftovers',
  'node/ipvs-other-users',
  'node/kernel-check-bypass',
  'node/kernel-version',
  'node/kube-proxy-nft-pair',
  'node/localhost-nodeports',
  'node/nf-tables-kernel',
  'node/nft-version',
  'node/nftables-kernel-features',
  'node/nodeport-addresses',
  'node/os-distro',
]
