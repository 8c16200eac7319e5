import type {ResourceName} from './resources.js'
import type {KubeObject} from './snapshot.js'

/**
 * Keeps the fields the checks read, so 30,000 Services stay small in memory and a snapshot holds
 * nothing else: no managedFields, no Secret-like values (sensitive flags and env values redacted,
 * kubeconfig keys dropped from ConfigMaps).
 */
type Raw = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const SENSITIVE = /token|password|passwd|secret|credential|private|apikey|api-key/i

/** Env values kpx-check reads; every other value is dropped (env can carry credentials). */
const READ_ENV = /^(KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK|FELIX_[A-Z_]+|CALICO_[A-Z_]+|CLUSTER_TYPE|IP|IPTABLES_MODE|ENABLE_[A-Z_]+|KUBE_ROUTER_[A-Z_]+|vip_[a-z_]+)$/

function pick(source: Raw | undefined, keys: readonly string[]): Raw | undefined {
  if (!source) return undefined
  const out: Raw = {}
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key]
  return out
}

/** Node labels that say what a node is (OS, platform, pool); the rest (often dozens a node) are dropped. */
const NODE_LABELS = /^(kubernetes\.io\/(os|arch|hostname)|node\.kubernetes\.io\/instance-type|node-role\.kubernetes\.io\/.*|eks\.amazonaws\.com\/.*|kubernetes\.azure\.com\/(cluster|agentpool|os-sku)|cloud\.google\.com\/gke-.*|node\.openshift\.io\/.*|cce\.cloud\.com\/.*|alibabacloud\.com\/.*|ack\.aliyun\.com.*|tke\.cloud\.tencent\.com\/.*|kops\.k8s\.io\/.*)$/

// Plain loops and assignments below, not spreads and Object.entries: 30,000 Services pass through here.

function metadata(object: Raw, withAnnotations: RegExp | undefined = undefined, labels: RegExp | undefined = undefined): Raw {
  const meta = object.metadata ?? {}
  const kept: Raw = {name: meta.name}
  if (meta.namespace) kept.namespace = meta.namespace
  const keptLabels = labels && meta.labels ? matching(meta.labels, labels) : meta.labels
  if (keptLabels) kept.labels = keptLabels
  const annotations = withAnnotations && meta.annotations ? matching(meta.annotations, withAnnotations) : undefined
  if (annotations && Object.keys(annotations).length > 0) kept.annotations = annotations
  return kept
}

/** The entries whose key matches. */
function matching(record: Record<string, string>, keys: RegExp): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const key of Object.keys(record)) if (keys.test(key)) kept[key] = record[key]
  return kept
}

function redactArgs(args: unknown): string[] | undefined {
  if (!Array.isArray(args)) return undefined
  return args.map((arg) => String(arg).replace(/^(--?[^=]*(?:token|password|secret|key)[^=]*=).*$/i, '$1<redacted>'))
}

function containers(list: Raw[] | undefined): Raw[] | undefined {
  return list?.map((container) => ({
    name: container.name,
    image: container.image,
    ...(container.command ? {command: redactArgs(container.command)} : {}),
    ...(container.args ? {args: redactArgs(container.args)} : {}),
    ...(container.env
      ? {env: (container.env as Raw[]).map((env) => (READ_ENV.test(env.name) && typeof env.value === 'string' ? {name: env.name, value: env.value} : {name: env.name}))}
      : {}),
  }))
}

function podSpec(spec: Raw | undefined): Raw {
  return {
    ...(spec?.hostNetwork ? {hostNetwork: true} : {}),
    ...(spec?.nodeName ? {nodeName: spec.nodeName} : {}),
    ...(spec?.nodeSelector ? {nodeSelector: spec.nodeSelector} : {}),
    containers: containers(spec?.containers) ?? [],
    ...(spec?.initContainers ? {initContainers: containers(spec.initContainers)} : {}),
  }
}

const SERVICE_ANNOTATIONS = /^(kubernetes\.io\/elb\.|metallb\.|service\.beta\.kubernetes\.io\/|kube-vip\.io\/)/
const SERVICE_SPEC = ['type', 'clusterIP', 'externalIPs', 'sessionAffinity', 'externalTrafficPolicy', 'healthCheckNodePort', 'loadBalancerIP', 'internalTrafficPolicy']
const SERVICE_PORT = ['name', 'protocol', 'port', 'nodePort', 'targetPort']
const SERVICE_INGRESS = ['ip', 'hostname', 'ipMode']

const TRIMMERS: Record<ResourceName, (object: Raw) => KubeObject> = {
  version: (object) => pick(object, ['major', 'minor', 'gitVersion', 'platform']) as KubeObject,
  nodes: (object) => ({
    metadata: metadata(object, undefined, NODE_LABELS),
    spec: pick(object.spec, ['providerID', 'podCIDR', 'podCIDRs']),
    status: {
      addresses: object.status?.addresses ?? [],
      nodeInfo: pick(object.status?.nodeInfo, [
        'kernelVersion',
        'osImage',
        'operatingSystem',
        'architecture',
        'kubeletVersion',
        'kubeProxyVersion',
        'containerRuntimeVersion',
      ]),
    },
  }),
  daemonSets: (object) => ({
    metadata: metadata(object),
    spec: {
      ...(object.spec?.updateStrategy ? {updateStrategy: object.spec.updateStrategy} : {}),
      template: {spec: podSpec(object.spec?.template?.spec)},
    },
    status: pick(object.status, ['desiredNumberScheduled', 'numberReady']),
  }),
  kubeProxyPods: (object) => ({metadata: metadata(object), spec: podSpec(object.spec)}),
  configMaps: (object) => ({
    metadata: metadata(object),
    data: Object.fromEntries(Object.entries((object.data ?? {}) as Record<string, string>).filter(([key]) => !/kubeconfig/i.test(key) && !SENSITIVE.test(key))),
  }),
  services: (object) => {
    const spec = pick(object.spec, SERVICE_SPEC) ?? {}
    spec.ports = (object.spec?.ports as Raw[] | undefined)?.map((port) => pick(port, SERVICE_PORT)) ?? []
    return {
      metadata: metadata(object, SERVICE_ANNOTATIONS),
      spec,
      status: {loadBalancer: {ingress: (object.status?.loadBalancer?.ingress as Raw[] | undefined)?.map((ingress) => pick(ingress, SERVICE_INGRESS)) ?? []}},
    }
  },
  // Listed with their endpoints counted, not parsed (resources.ts countOnly): only the total matters.
  endpointSlices: (object) => ({
    metadata: metadata(object),
    addressType: object.addressType,
    endpointCount: typeof object.endpointCount === 'number' ? object.endpointCount : 0,
  }),
  ingresses: (object) => ({
    metadata: metadata(object),
    status: {loadBalancer: {ingress: (object.status?.loadBalancer?.ingress as Raw[] | undefined)?.map((ingress) => pick(ingress, ['ip', 'hostname'])) ?? []}},
  }),
  calicoInstallations: (object) => ({metadata: metadata(object), spec: {calicoNetwork: pick(object.spec?.calicoNetwork, ['linuxDataplane', 'bgp']), variant: object.spec?.variant}}),
  openshiftNetworks: (object) => ({metadata: metadata(object), spec: pick(object.spec, ['networkType']), status: pick(object.status, ['networkType'])}),
}

export function trimObject(resource: ResourceName, object: Raw): KubeObject {
  return TRIMMERS[resource](object)
}
