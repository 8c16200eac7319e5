/**
 * Services (and the Ingresses that share a load balancer's address with one): the counts the cluster
 * checks read, and each Service as a rule subject.
 */
import type {FactValue} from '../contract/finding.js'
import type {ClusterFactPath} from '../facts/catalog.js'
import {FactSet} from '../facts/fact-set.js'
import {type KeptObject, type KeptService, listed} from '../sources/cluster/kept-objects.js'
import {AlikeFacts, type NamespacedSubject, namespacedSubject} from './namespaced.js'
import type {SnapshotReads} from './snapshot-reads.js'

/**
 * The longest comment nftables accepts on a rule or element, in bytes: kube-proxy's nftables mode before 1.37.0
 * writes `<namespace>/<name>:<port name>` there, and one longer makes the kernel reject the whole transaction
 * (kubernetes/kubernetes#139515). Valid names reach 143 bytes.
 */
const NFT_COMMENT_LIMIT = 128

/**
 * kube-proxy's comments over NFT_COMMENT_LIMIT, with their length: one for each port of a Service it
 * writes rules for (not headless, not ExternalName), `namespace/name:port` (ServicePortName.String(); an
 * unnamed port adds nothing after the Service's name). Only a comment that may be long is written out.
 */
function longCommentsOf(service: KeptService): string[] {
  const long: string[] = []
  if (service.spec?.clusterIP === 'None' || service.spec?.type === 'ExternalName') return long
  const {namespace, name} = service.metadata ?? {}
  const serviceText = `${namespace}/${name}`
  for (const port of listed(service.spec?.ports)) {
    const portText = port?.name ? `:${String(port.name)}` : ''
    // UTF-8 takes at most three bytes for each UTF-16 code unit: most comments are within the limit whatever they hold.
    if ((serviceText.length + portText.length) * 3 <= NFT_COMMENT_LIMIT) continue
    const comment = serviceText + portText
    const bytes = Buffer.byteLength(comment)
    if (bytes > NFT_COMMENT_LIMIT) long.push(`${comment} (${bytes} bytes)`)
  }

  return long
}

/** What the checks count of the Services: one pass over what can be tens of thousands. */
export function deriveServiceFacts(cluster: FactSet, resources: SnapshotReads): void {
  const services = resources.items('services')
  const derived = ['services.total', 'services.loadBalancer', 'services.nodePort', 'services.healthCheckNodePorts', 'services.withExternalIPs'] as const
  resources.derive(cluster, ['services'], derived, () => {
    const count = {loadBalancer: 0, nodePort: 0, healthCheckNodePorts: 0, withExternalIPs: 0}
    for (const service of services) {
      const spec = service.spec
      if (spec?.type === 'LoadBalancer') count.loadBalancer++
      if (spec?.type === 'NodePort' || spec?.type === 'LoadBalancer') count.nodePort++
      if (spec?.healthCheckNodePort) count.healthCheckNodePorts++
      if (listed(spec?.externalIPs).length > 0) count.withExternalIPs++
    }

    cluster
      .set('services.total', services.length)
      .set('services.loadBalancer', count.loadBalancer)
      .set('services.nodePort', count.nodePort)
      .set('services.healthCheckNodePorts', count.healthCheckNodePorts)
      .set('services.withExternalIPs', count.withExternalIPs)
  })
  resources.derive(cluster, ['endpointSlices'], ['endpoints.total'], () =>
    cluster.set(
      'endpoints.total',
      resources.items('endpointSlices').reduce((total, slice) => total + Number(slice.endpointCount ?? 0), 0),
    ),
  )
}

/** The addresses a LoadBalancer Service or an Ingress was given. */
function addressesOf(object: KeptObject<'ingresses'> | KeptService): string[] {
  return listed(object.status?.loadBalancer?.ingress)
    .map((ingress) => String(ingress?.ip ?? ingress?.hostname ?? ''))
    .filter(Boolean)
}

/**
 * Every Service, with what its rules read: its type, external IPs and over-long nftables comments, and
 * for a LoadBalancer its addresses and the other Services and Ingresses that share them. Services that
 * hold the same (most of them) share one fact set.
 */
export function serviceSubjects(cluster: FactSet, resources: SnapshotReads): NamespacedSubject[] {
  const alike = new AlikeFacts(cluster)
  const users = new Map<string, string[]>()
  const note = (address: string, user: string) => users.set(address, [...(users.get(address) ?? []), user])
  const services = resources.items('services')
  const loadBalancers = services.filter((service) => service.spec?.type === 'LoadBalancer')
  for (const service of loadBalancers) for (const address of addressesOf(service)) note(address, `Service ${service.metadata?.namespace}/${service.metadata?.name}`)
  for (const ingress of resources.items('ingresses')) for (const address of addressesOf(ingress)) note(address, `Ingress ${ingress.metadata?.namespace}/${ingress.metadata?.name}`)
  const ingressFailure = resources.failure('ingresses')

  // Most Services hold nothing but their type: their fact set is found by it, without a key written out for each.
  const plainOfType = new Map<string, FactSet>()
  return services.map((service) => {
    const type = String(service.spec?.type ?? 'ClusterIP')
    const longComments = longCommentsOf(service)
    const externalIPs = listed(service.spec?.externalIPs)
    const plain = type !== 'LoadBalancer' && externalIPs.length === 0 && longComments.length === 0
    const known = plain ? plainOfType.get(type) : undefined
    if (known) return namespacedSubject(service, known)
    const values: Array<[ClusterFactPath, FactValue]> = [
      ['service.type', type],
      ['service.externalIPs', externalIPs.map(String)],
      ['service.longComments', longComments],
    ]
    if (type !== 'LoadBalancer') {
      const facts = alike.of(values)
      if (plain) plainOfType.set(type, facts)
      return namespacedSubject(service, facts)
    }

    const name = `${service.metadata?.namespace}/${service.metadata?.name}`
    const addresses = addressesOf(service)
    const sharedWith = [...new Set(addresses.flatMap((address) => users.get(address) ?? []))].filter((user) => user !== `Service ${name}`)
    const facts = new FactSet(cluster)
    for (const [path, value] of values) facts.set(path, value)
    facts.set('service.name', name).set('service.addresses', addresses).set('service.sharedWith', sharedWith).set('service.portCount', listed(service.spec?.ports).length)
    if (ingressFailure) facts.unknown('service.sharedWith', ingressFailure.reason, ingressFailure.detail)
    return namespacedSubject(service, facts)
  })
}
