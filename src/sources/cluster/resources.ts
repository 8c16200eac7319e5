/**
 * What `kpx-check cluster` reads from the Kubernetes API, in one table: the probe fetches these,
 * `kpx-check snapshot` saves them, `kpx-check rbac` grants exactly these verbs, and the rules
 * name them when a list is forbidden. Read-only (get/list) and never Secrets.
 */
export interface ListResource {
  kind: 'list'
  /** Key in the snapshot. */
  name: ResourceName
  /** API path of the list, for every namespace unless `namespace` is set. */
  path: string
  apiGroup: string
  resource: string
  namespace?: string
  labelSelector?: string
  /** An item field read only for its length: it is counted in the JSON, never parsed into objects. */
  countOnly?: CountedField
  why: string
}

/** An array field of a list's items, and the field its length is kept under. */
export interface CountedField {
  field: string
  as: string
}

export interface GetResource {
  kind: 'get'
  name: ResourceName
  /** Objects fetched by name; a 404 means "not installed" and is a fact, not an error. */
  objects: Array<{name: string; namespace?: string; path: string}>
  apiGroup: string
  resource: string
  why: string
}

export type Resource = GetResource | ListResource

export type ResourceName =
  | 'calicoInstallations'
  | 'configMaps'
  | 'daemonSets'
  | 'endpointSlices'
  | 'ingresses'
  | 'kubeProxyPods'
  | 'nodes'
  | 'openshiftNetworks'
  | 'services'
  | 'version'

const configMap = (namespace: string, name: string) => ({namespace, name, path: `/api/v1/namespaces/${namespace}/configmaps/${name}`})

/** ConfigMaps that hold kube-proxy's or a CNI's configuration; no other ConfigMap is read. */
export const CONFIG_MAPS = [
  configMap('kube-system', 'kube-proxy'), // kubeadm, kOps, Kubespray, kind: key config.conf
  configMap('kube-system', 'kube-proxy-config'), // EKS add-on: key config
  configMap('kube-system', 'cilium-config'),
  configMap('kube-system', 'calico-config'),
  configMap('kube-system', 'canal-config'),
  configMap('kube-system', 'kube-flannel-cfg'),
  configMap('kube-flannel', 'kube-flannel-cfg'),
  configMap('kube-system', 'antrea-config'),
]

export const RESOURCES: readonly Resource[] = [
  {kind: 'get', name: 'version', objects: [{name: 'version', path: '/version'}], apiGroup: '', resource: '', why: 'Kubernetes version and distribution'},
  {kind: 'list', name: 'nodes', path: '/api/v1/nodes', apiGroup: '', resource: 'nodes', why: 'kernel, OS, kubelet/kube-proxy versions, addresses, platform'},
  {kind: 'list', name: 'daemonSets', path: '/apis/apps/v1/daemonsets', apiGroup: 'apps', resource: 'daemonsets', why: 'kube-proxy, CNI and related components, their images and flags'},
  {
    kind: 'list',
    name: 'kubeProxyPods',
    path: '/api/v1/namespaces/kube-system/pods',
    namespace: 'kube-system',
    labelSelector: 'component=kube-proxy',
    apiGroup: '',
    resource: 'pods',
    why: 'kube-proxy static pods (RKE2, legacy GKE)',
  },
  {kind: 'get', name: 'configMaps', objects: CONFIG_MAPS, apiGroup: '', resource: 'configmaps', why: 'kube-proxy and CNI configuration'},
  {kind: 'list', name: 'services', path: '/api/v1/services', apiGroup: '', resource: 'services', why: 'Service types, NodePorts, load-balancer addresses, affinity'},
  {
    kind: 'list',
    name: 'endpointSlices',
    path: '/apis/discovery.k8s.io/v1/endpointslices',
    apiGroup: 'discovery.k8s.io',
    resource: 'endpointslices',
    // Endpoints are most of a large cluster's JSON (300,000 of them are 70 MB) and only their number matters.
    countOnly: {field: 'endpoints', as: 'endpointCount'},
    why: 'endpoint totals (rule-sync load)',
  },
  {kind: 'list', name: 'ingresses', path: '/apis/networking.k8s.io/v1/ingresses', apiGroup: 'networking.k8s.io', resource: 'ingresses', why: 'Ingress load-balancer addresses shared with Services'},
  {
    kind: 'get',
    name: 'calicoInstallations',
    objects: [{name: 'default', path: '/apis/operator.tigera.io/v1/installations/default'}],
    apiGroup: 'operator.tigera.io',
    resource: 'installations',
    why: 'Calico operator dataplane (Iptables, Nftables, BPF)',
  },
  {
    kind: 'get',
    name: 'openshiftNetworks',
    objects: [{name: 'cluster', path: '/apis/config.openshift.io/v1/networks/cluster'}],
    apiGroup: 'config.openshift.io',
    resource: 'networks',
    why: 'OpenShift network type (OVN-Kubernetes runs no kube-proxy)',
  },
]

/** The RBAC permission a resource needs, as a person reads it: `list services (all namespaces)`. */
export function permissionOf(resource: Resource): string {
  const group = resource.apiGroup === '' ? '' : `.${resource.apiGroup}`
  if (resource.name === 'version') return 'get /version (non-resource URL)'
  if (resource.kind === 'get') return `get ${resource.resource}${group} ${resource.objects.map((object) => (object.namespace ? `${object.namespace}/${object.name}` : object.name)).join(', ')}`
  return `list ${resource.resource}${group} ${resource.namespace ? `in namespace ${resource.namespace}` : '(all namespaces)'}`
}
