/**
 * Which pings in workload templates reach a Service's ClusterIP: IPVS kube-proxy puts every ClusterIP
 * on kube-ipvs0, so a node answers ping on it; iptables and nftables mode hold it on no interface
 * (nftables rejects the packet), so those pings fail after the switch. A heuristic: only what the
 * template spells out is read, and a script that builds its target at run time is not seen.
 */
import type {UnknownFact} from '../facts/fact-set.js'
import {type KeptService, listed} from '../sources/cluster/kept-objects.js'
import {type PingCommand, workloadPings} from '../sources/cluster/read-fields.js'
import type {ResourceName} from '../sources/cluster/resources.js'
import type {KubeObject} from '../sources/cluster/snapshot.js'
import type {SnapshotReads} from './snapshot-reads.js'

/** The workloads whose templates are read, by kind. */
const WORKLOAD_KINDS: ReadonlyArray<readonly [ResourceName, string]> = [
  ['daemonSets', 'DaemonSet'],
  ['deployments', 'Deployment'],
  ['statefulSets', 'StatefulSet'],
  ['jobs', 'Job'],
  ['cronJobs', 'CronJob'],
]

/** A Service a ping can reach: its ClusterIPs, none when it is headless or an ExternalName. */
interface ServiceAddresses {
  name: string
  clusterIPs: string[]
}

function serviceIndex(services: readonly KeptService[]): {byName: Map<string, ServiceAddresses>; byIP: Map<string, ServiceAddresses>} {
  const byName = new Map<string, ServiceAddresses>()
  const byIP = new Map<string, ServiceAddresses>()
  for (const service of services) {
    const name = `${service.metadata?.namespace}/${service.metadata?.name}`
    const spec = service.spec
    const clusterIPsListed = listed(spec?.clusterIPs)
    const candidates: readonly unknown[] = clusterIPsListed.length > 0 ? clusterIPsListed : [spec?.clusterIP]
    const clusterIPs = spec?.type === 'ExternalName' ? [] : candidates.filter((ip): ip is string => typeof ip === 'string' && ip !== '' && ip !== 'None').map((ip) => ip.toLowerCase())
    const entry = {name, clusterIPs}
    byName.set(name, entry)
    for (const ip of clusterIPs) byIP.set(ip, entry)
  }

  return {byName, byIP}
}

/**
 * The Service a ping target names, seen from a pod in `namespace`: a ClusterIP; `svc.ns.svc[.domain]`
 * (a longer name under `.svc` is a pod behind a headless Service); `svc.ns` and `svc` as the pod's DNS
 * search path completes them; `$SVC_SERVICE_HOST`, the variable Kubernetes sets to a Service's ClusterIP.
 */
function serviceOf(target: string, namespace: string, index: ReturnType<typeof serviceIndex>): ServiceAddresses | undefined {
  const word = target.toLowerCase()
  const variable = /^\$(?:\((\w+)\)|\{(\w+)\}|(\w+))$/.exec(word)
  if (variable) {
    const service = /^(\w+)_service_host$/.exec(variable[1] ?? variable[2] ?? variable[3])?.[1]
    return service ? index.byName.get(`${namespace}/${service.replaceAll('_', '-')}`) : undefined
  }

  if (word.includes(':') || /^[\d.]+$/.test(word)) return index.byIP.get(word)
  const labels = word.replace(/\.$/, '').split('.')
  const svc = labels.indexOf('svc')
  if (svc === 2) return index.byName.get(`${labels[1]}/${labels[0]}`)
  if (svc !== -1) return undefined
  if (labels.length === 1) return index.byName.get(`${namespace}/${labels[0]}`)
  return labels.length === 2 ? index.byName.get(`${labels[1]}/${labels[0]}`) : undefined
}

const describe = (ping: PingCommand, target: string, service: ServiceAddresses) =>
  `container ${ping.container}, ${ping.place}: ${ping.tool} ${target} (Service ${service.name}, ${service.clusterIPs.join(', ')})`

/** A workload and the pings of a Service's ClusterIP in its template, described. */
interface WorkloadPings {
  kind: string
  workload: KubeObject
  pings: string[]
}

/** Every workload with the pings of a ClusterIP in its template; or why the workloads or Services could not be read. */
export function clusterIPPings(resources: SnapshotReads): UnknownFact | WorkloadPings[] {
  const failed = [...WORKLOAD_KINDS.map(([name]) => name), 'services' as const].map((name) => resources.failure(name)).find(Boolean)
  if (failed) return failed
  const workloads = WORKLOAD_KINDS.flatMap(([resource, kind]) => resources.items(resource).map((workload) => ({kind, workload, commands: workloadPings(workload)})))
  // Most clusters ping no Service: index the Services only when some template pings.
  const index = workloads.some(({commands}) => commands.length > 0) ? serviceIndex(resources.items('services')) : undefined
  return workloads.map(({kind, workload, commands}) => {
    const namespace = workload.metadata?.namespace ?? ''
    const pings: string[] = []
    for (const ping of index ? commands : []) {
      for (const target of ping.targets) {
        const service = serviceOf(target, namespace, index!)
        if (service && service.clusterIPs.length > 0) pings.push(describe(ping, target, service))
      }
    }

    return {kind, workload, pings}
  })
}
