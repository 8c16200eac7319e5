/**
 * The cluster as its rules see it, derived from a snapshot of the API: one module per kind of object
 * (platform.ts, nodes.ts, kube-proxy.ts, services.ts, prometheus-rules.ts; components.ts the DaemonSets
 * of CNIs and add-ons; service-pings.ts the workloads), put together here in the order each needs the
 * others' facts (kube-proxy reads the platform and version).
 */
import {FactSet, type UnknownFact} from '../facts/fact-set.js'
import type {ClusterSnapshot} from '../sources/cluster/snapshot.js'
import {type Component, componentFacts, deriveComponentFacts, detectComponents, linuxDaemonSets, namespaced} from './components.js'
import type {KubeProxyConfig} from './kube-proxy-config.js'
import {deriveKubeProxy} from './kube-proxy.js'
import {AlikeFacts, type NamespacedSubject, objectRef, OBJECTS_LISTED} from './namespaced.js'
import {deriveNodeFacts, type NodeSubject, nodeSubjects} from './nodes.js'
import {derivePlatformFact, deriveVersionFacts} from './platform.js'
import {prometheusRuleSubjects} from './prometheus-rules.js'
import {deriveRollout, type Rollout} from './rollout.js'
import {clusterIPPings} from './service-pings.js'
import {deriveServiceFacts, serviceSubjects} from './services.js'
import {SnapshotReads} from './snapshot-reads.js'

/** What the cluster checks evaluate: the cluster, its Linux nodes as the API shows them, Services and components. */
export interface ClusterModel {
  cluster: FactSet
  nodes: NodeSubject[]
  /** Every Service; Services alike (most of them) share one fact set. */
  services: NamespacedSubject[]
  /** Every DaemonSet, Deployment, StatefulSet, Job and CronJob (rule subject Workload). */
  workloads: Array<NamespacedSubject & {kind: string}>
  prometheusRules: NamespacedSubject[]
  /** The CNIs, as rule subjects and as found. */
  components: Array<{component: Component; facts: FactSet; name: string}>
  kubeProxy: KubeProxyConfig
  /** Subject kinds whose list could not be read, with why: their rules are unknown, not evaluated over none. */
  unreadableKinds: Map<string, UnknownFact>
  /** What the nodes run, as far as the model's node facts show it: derived again when node probes add theirs. */
  rollout: Rollout
}

export function deriveClusterModel(snapshot: ClusterSnapshot, options: {targetVersion?: string} = {}): ClusterModel {
  const resources = new SnapshotReads(snapshot)
  const cluster = new FactSet()
  const daemonSets = linuxDaemonSets(resources)
  const components = detectComponents(daemonSets, resources)
  deriveVersionFacts(cluster, resources, options.targetVersion)
  derivePlatformFact(cluster, resources)
  deriveNodeFacts(cluster, resources)
  deriveComponentFacts(cluster, resources, components)
  const pings = clusterIPPings(resources)
  const kubeProxy = deriveKubeProxy(cluster, resources, daemonSets, components)
  deriveServiceFacts(cluster, resources)
  const workloadsAlike = new AlikeFacts(cluster)

  const model: Omit<ClusterModel, 'rollout'> = {
    cluster,
    nodes: nodeSubjects(resources.items('nodes'), cluster, kubeProxy),
    services: serviceSubjects(cluster, resources),
    workloads: 'reason' in pings ? [] : pings.map(({kind, workload, pings: found}) => ({kind, ...objectRef(workload), facts: workloadsAlike.of([['workload.clusterIPPings', found.slice(0, OBJECTS_LISTED)]])})),
    prometheusRules: prometheusRuleSubjects(cluster, resources),
    components: components
      .filter((component) => component.role === 'cni')
      .map((component) => ({name: namespaced(component.daemonSet), component, facts: componentFacts(cluster, component)})),
    kubeProxy: kubeProxy.config,
    unreadableKinds: new Map(
      (
        [
          ['Node', resources.failure('nodes')],
          ['Service', resources.failure('services')],
          ['DaemonSet', resources.failure('daemonSets')],
          ['Workload', 'reason' in pings ? pings : undefined],
          ['PrometheusRule', resources.failure('prometheusRules')],
        ] as const
      ).flatMap(([kind, failure]) => (failure ? [[kind, failure]] : [])),
    ),
  }
  // What the API shows of the nodes; the cluster check derives it again once the nodes' own facts are in.
  return {...model, rollout: deriveRollout(model)}
}
