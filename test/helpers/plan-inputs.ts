/** What the planner is given of a kubeadm cluster whose kube-proxy runs as the usual DaemonSet with its ConfigMap. */
import type {ClusterSummary} from '../../src/contract/report.js'
import type {KubeProxyConfig} from '../../src/derive/kube-proxy-config.js'

export const KUBEADM_SUMMARY: ClusterSummary = {
  context: 'prod',
  kubernetesVersion: '1.34.1',
  platform: 'kubeadm',
  proxyMode: 'ipvs',
  kubeProxy: {workload: 'DaemonSet kube-system/kube-proxy', version: '1.34.1', replacedBy: null},
  nothingToMigrate: false,
  unreadable: [],
}

export const KUBEADM_KUBE_PROXY: KubeProxyConfig = {
  mode: 'iptables',
  configuredMode: '',
  version: '1.34.1',
  daemonSet: {namespace: 'kube-system', name: 'kube-proxy'},
  configMap: {namespace: 'kube-system', name: 'kube-proxy', key: 'config.conf'},
  carryOver: [],
  metricsBindAddress: '127.0.0.1:10249',
  healthzBindAddress: '0.0.0.0:10256',
}
