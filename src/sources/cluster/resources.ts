import {CONFIG_MAPS} from './read-fields.js'

/**
 * What `kpx-check cluster` reads from the Kubernetes API, in one table: the probe fetches these,
 * `kpx-check snapshot` saves them, `kpx-check rbac` grants exactly these verbs, and the rules
 * name them when a list is forbidden. Read-only (get/list) and never Secrets.
 */
interface ListResource {
  kind: 'list'
  /** Key in the snapshot. */
  name: ResourceName
  /** API path of the list, for every namespace unless `namespace` is set. */
  path: string
  apiGroup: string
  resource: string
  namespace?: string
  labelSelector?: string
  /** The kind of its items: a page of another kind is no answer to this list. */
  objectKind: string
  /**
   * Served only where something installs it (a CRD's group): a 404 then means "none here". A built-in list is always
   * served, so its 404 comes from a proxy or gateway in between, and is a failed read.
   */
  optional?: true
  /** An item field read only for its length: it is counted in the JSON, never parsed into objects. */
  countOnly?: CountedField
  why: string
}

/** An array field of a list's items, and the field its length is kept under. */
export interface CountedField {
  field: string
  as: string
}

/** An object read by name. */
export interface NamedObject {
  name: string
  namespace?: string
  path: string
}

export interface GetResource {
  kind: 'get'
  name: ResourceName
  /**
   * Objects fetched by name, each on its own: a 404 means "not installed" and is a fact, not an
   * error; a failed read (403, …) makes unknown only what is derived from that object.
   */
  objects: readonly NamedObject[]
  /** The kind each answer must be (none for /version): a Status, `{}` or another kind is no answer. */
  objectKind?: string
  apiGroup: string
  resource: string
  why: string
}

export type Resource = GetResource | ListResource

export type ResourceName =
  | 'calicoInstallations'
  | 'configMaps'
  | 'cronJobs'
  | 'daemonSets'
  | 'deployments'
  | 'endpointSlices'
  | 'felixConfigurations'
  | 'ingresses'
  | 'jobs'
  | 'kubeProxyPods'
  | 'nodes'
  | 'openshiftNetworks'
  | 'prometheusRules'
  | 'services'
  | 'statefulSets'
  | 'version'

const WORKLOAD_WHY = 'pod templates whose probes or commands ping a Service (nftables mode never answers ping on a ClusterIP)'

/**
 * In the order they are read, a few at a time (--api-concurrency): the largest lists first, so that the
 * longest read does not start last (EndpointSlices are most of a large cluster's JSON, then Nodes and Services).
 */
export const RESOURCES: readonly Resource[] = [
  {kind: 'get', name: 'version', objects: [{name: 'version', path: '/version'}], apiGroup: '', resource: '', why: 'Kubernetes version and distribution'},
  {
    kind: 'list',
    name: 'endpointSlices',
    path: '/apis/discovery.k8s.io/v1/endpointslices',
    objectKind: 'EndpointSlice',
    apiGroup: 'discovery.k8s.io',
    resource: 'endpointslices',
    // Endpoints are most of a large cluster's JSON (300,000 of them are 70 MB) and only their number matters.
    countOnly: {field: 'endpoints', as: 'endpointCount'},
    why: 'endpoint totals (rule-sync load)',
  },
  {kind: 'list', name: 'nodes', path: '/api/v1/nodes', objectKind: 'Node', apiGroup: '', resource: 'nodes', why: 'kernel, OS, kubelet/kube-proxy versions, addresses, platform'},
  {kind: 'list', name: 'services', path: '/api/v1/services', objectKind: 'Service', apiGroup: '', resource: 'services', why: 'Service types, port names, NodePorts, load-balancer addresses, affinity'},
  {kind: 'list', name: 'daemonSets', path: '/apis/apps/v1/daemonsets', objectKind: 'DaemonSet', apiGroup: 'apps', resource: 'daemonsets', why: 'kube-proxy, CNI and related components, their images and flags; pings in their templates'},
  // Workload templates, for probes and commands that ping a Service: not every Pod, and not ReplicaSets, of which
  // each Deployment keeps up to ten old copies of its template; a Job a CronJob made is read through the CronJob.
  ...(
    [
      ['deployments', 'apps', 'deployments', 'Deployment'],
      ['statefulSets', 'apps', 'statefulsets', 'StatefulSet'],
      ['jobs', 'batch', 'jobs', 'Job'],
      ['cronJobs', 'batch', 'cronjobs', 'CronJob'],
    ] as const
  ).map(([name, apiGroup, resource, objectKind]): ListResource => ({kind: 'list', name, path: `/apis/${apiGroup}/v1/${resource}`, objectKind, apiGroup, resource, why: WORKLOAD_WHY})),
  {
    kind: 'list',
    name: 'kubeProxyPods',
    path: '/api/v1/namespaces/kube-system/pods',
    namespace: 'kube-system',
    labelSelector: 'component=kube-proxy',
    objectKind: 'Pod',
    apiGroup: '',
    resource: 'pods',
    why: 'kube-proxy static pods (RKE2, legacy GKE)',
  },
  {kind: 'get', name: 'configMaps', objects: CONFIG_MAPS, objectKind: 'ConfigMap', apiGroup: '', resource: 'configmaps', why: 'kube-proxy and CNI configuration'},
  {kind: 'list', name: 'ingresses', path: '/apis/networking.k8s.io/v1/ingresses', objectKind: 'Ingress', apiGroup: 'networking.k8s.io', resource: 'ingresses', why: 'Ingress load-balancer addresses shared with Services'},
  {
    kind: 'list',
    name: 'prometheusRules',
    path: '/apis/monitoring.coreos.com/v1/prometheusrules',
    objectKind: 'PrometheusRule',
    optional: true,
    apiGroup: 'monitoring.coreos.com',
    resource: 'prometheusrules',
    why: 'alerting and recording rules on kube-proxy metrics that nftables mode does not export',
  },
  {
    kind: 'get',
    name: 'calicoInstallations',
    objects: [{name: 'default', path: '/apis/operator.tigera.io/v1/installations/default'}],
    objectKind: 'Installation',
    apiGroup: 'operator.tigera.io',
    resource: 'installations',
    why: 'Calico operator dataplane (Iptables, Nftables, BPF)',
  },
  {
    kind: 'get',
    name: 'felixConfigurations',
    objects: [{name: 'default', path: '/apis/crd.projectcalico.org/v1/felixconfigurations/default'}],
    objectKind: 'FelixConfiguration',
    apiGroup: 'crd.projectcalico.org',
    resource: 'felixconfigurations',
    why: 'Calico Felix nftablesMode (Auto: Felix follows kube-proxy\'s mode node by node)',
  },
  {
    kind: 'get',
    name: 'openshiftNetworks',
    objects: [{name: 'cluster', path: '/apis/config.openshift.io/v1/networks/cluster'}],
    objectKind: 'Network',
    apiGroup: 'config.openshift.io',
    resource: 'networks',
    why: 'whether the cluster is OpenShift (its cluster network configuration exists)',
  },
]

/** `namespace/name`, or the name of a cluster-scoped object. */
export function objectName(object: {name: string; namespace?: string}): string {
  return object.namespace ? `${object.namespace}/${object.name}` : object.name
}

/** The RBAC permission a list needs, as a person reads it: `list services (all namespaces)`. */
export function permissionOf(resource: ListResource): string {
  return `list ${resource.resource}${groupSuffix(resource)} ${resource.namespace ? `in namespace ${resource.namespace}` : '(all namespaces)'}`
}

/** The permission a read of one named object needs: `get configmaps kube-flannel/kube-flannel-cfg`. */
export function objectPermission(resource: GetResource, object: NamedObject): string {
  return `get ${resource.resource}${groupSuffix(resource)} ${objectName(object)}`
}

const groupSuffix = (resource: Resource) => (resource.apiGroup === '' ? '' : `.${resource.apiGroup}`)
