import {configMapData, containerFlags, containerPings, flagArgs, pingFields, podTemplateSpec, readEnv, readNodeLabels, workloadPings} from './read-fields.js'
import type {ResourceName} from './resources.js'
import type {KubeObject} from './snapshot.js'

/**
 * Keeps of each object only what the checks read (the derivers in src/derive/), so 30,000 Services
 * stay small in memory and a snapshot holds nothing else. Not collecting beats redacting: of a
 * container only the flags and environment variables read-fields.ts declares are kept, of a ConfigMap
 * only the keys it declares, so a `--password X`, a secret in an environment variable or another key
 * of cilium-config never reaches a snapshot, a report or a log.
 */
type Raw = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

function pick(source: Raw | undefined, keys: readonly string[]): Raw {
  const out: Raw = {}
  if (!source) return out
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key]
  return out
}

// Plain loops and assignments below, not spreads and Object.entries: 30,000 Services pass through here.

/** An object's name and namespace: all the checks read of its metadata, but a Node's labels. */
function identity(object: Raw): Raw {
  const kept: Raw = {name: object.metadata?.name}
  if (object.metadata?.namespace) kept.namespace = object.metadata.namespace
  return kept
}

function containers(list: unknown): Raw[] {
  if (!Array.isArray(list)) return []
  return list.map((container: Raw) => {
    const kept: Raw = {name: container.name, image: container.image}
    // Command and args are read as one command line, and kept as one.
    const args = flagArgs(containerFlags(container))
    if (args.length > 0) kept.args = args
    const env = readEnv(container.env)
    if (env.size > 0) kept.env = [...env].map(([name, value]) => ({name, value}))
    return Object.assign(kept, pingFields(containerPings(container)))
  })
}

/**
 * A workload read for its pings alone (Deployments, StatefulSets, Jobs, CronJobs): its name, and of its
 * template only the containers that ping, each with only its pings.
 */
function workloadTemplate(object: Raw): KubeObject {
  const pings = workloadPings(object)
  const names = new Set(pings.map((ping) => ping.container))
  const spec = podTemplateSpec(object) as Raw | undefined
  const kept = (list: unknown) =>
    (Array.isArray(list) ? list : [])
      .filter((container: Raw) => names.has(container?.name))
      .map((container: Raw) => ({name: container.name, ...pingFields(pings.filter((ping) => ping.container === container.name))}))
  const template: Raw = {spec: {containers: kept(spec?.containers)}}
  const initContainers = kept(spec?.initContainers)
  if (initContainers.length > 0) template.spec.initContainers = initContainers
  return {metadata: identity(object), spec: object.spec?.jobTemplate ? {jobTemplate: {spec: {template}}} : {template}}
}

function podSpec(spec: Raw | undefined): Raw {
  const kept: Raw = {containers: containers(spec?.containers)}
  if (spec?.initContainers) kept.initContainers = containers(spec.initContainers)
  return kept
}

const loadBalancerIngress = (object: Raw) => (object.status?.loadBalancer?.ingress as Raw[] | undefined)?.map((ingress) => pick(ingress, ['ip', 'hostname'])) ?? []

const TRIMMERS: Record<ResourceName, (object: Raw) => KubeObject> = {
  version: (object) => pick(object, ['gitVersion']) as KubeObject,
  nodes: (object) => {
    const metadata = identity(object)
    const labels = readNodeLabels(object.metadata?.labels)
    if (Object.keys(labels).length > 0) metadata.labels = labels
    return {
      metadata,
      spec: pick(object.spec, ['providerID']),
      status: {
        addresses: ((object.status?.addresses ?? []) as Raw[]).filter((address) => address.type === 'InternalIP' || address.type === 'ExternalIP').map((address) => pick(address, ['type', 'address'])),
        // machineID and systemUUID: to tell whether a probe or bundle is of this Node (derive/node-identity.ts).
        nodeInfo: pick(object.status?.nodeInfo, ['kernelVersion', 'osImage', 'operatingSystem', 'kubeletVersion', 'machineID', 'systemUUID']),
      },
    }
  },
  daemonSets: (object) => {
    const template = podSpec(object.spec?.template?.spec)
    // Only whether it runs on Windows nodes alone is read of its node selector.
    const os = object.spec?.template?.spec?.nodeSelector?.['kubernetes.io/os']
    if (os !== undefined) template.nodeSelector = {'kubernetes.io/os': os}
    return {metadata: identity(object), spec: {template: {spec: template}}}
  },
  deployments: workloadTemplate,
  statefulSets: workloadTemplate,
  jobs: workloadTemplate,
  cronJobs: workloadTemplate,
  // A static pod's node: each node's kube-proxy runs with the flags of its own pod.
  kubeProxyPods: (object) => ({metadata: identity(object), spec: {...podSpec(object.spec), ...pick(object.spec, ['nodeName'])}}),
  configMaps: (object) => ({metadata: identity(object), data: configMapData(object)}),
  services: (object) => {
    const spec = pick(object.spec, ['type', 'externalIPs', 'healthCheckNodePort'])
    // The addresses a ping of the Service reaches (a headless Service's None: it gets no kube-proxy rules).
    if (typeof object.spec?.clusterIP === 'string' && object.spec.clusterIP !== '') spec.clusterIP = object.spec.clusterIP
    if (Array.isArray(object.spec?.clusterIPs) && object.spec.clusterIPs.length > 1) spec.clusterIPs = object.spec.clusterIPs
    // Of each port only its name is read (kube-proxy's nftables comments carry it); an unnamed port is an empty object.
    spec.ports = Array.isArray(object.spec?.ports) ? object.spec.ports.map((port: Raw) => (typeof port?.name === 'string' && port.name !== '' ? {name: port.name} : {})) : []
    return {metadata: identity(object), spec, status: {loadBalancer: {ingress: loadBalancerIngress(object)}}}
  },
  // Listed with their endpoints counted, not parsed (resources.ts countOnly): only the total matters.
  endpointSlices: (object) => ({metadata: identity(object), endpointCount: typeof object.endpointCount === 'number' ? object.endpointCount : 0}),
  ingresses: (object) => ({metadata: identity(object), status: {loadBalancer: {ingress: loadBalancerIngress(object)}}}),
  // Of each rule only its name and an expression that names a kube-proxy metric: the rest is never read.
  prometheusRules: (object) => ({
    metadata: identity(object),
    spec: {
      groups: (Array.isArray(object.spec?.groups) ? object.spec.groups : []).map((group: Raw) => ({
        rules: (Array.isArray(group?.rules) ? group.rules : [])
          .filter((rule: Raw) => typeof rule?.expr === 'string' && rule.expr.includes('kubeproxy_'))
          .map((rule: Raw) => pick(rule, ['alert', 'record', 'expr'])),
      })),
    },
  }),
  felixConfigurations: (object) => ({metadata: identity(object), spec: pick(object.spec, ['nftablesMode'])}),
  calicoInstallations: (object) => ({metadata: identity(object), spec: {calicoNetwork: pick(object.spec?.calicoNetwork, ['linuxDataplane'])}}),
  // That it exists says the cluster is OpenShift; nothing else of it is read.
  openshiftNetworks: (object) => ({metadata: identity(object)}),
}

export function trimObject(resource: ResourceName, object: Raw): KubeObject {
  return TRIMMERS[resource](object)
}
