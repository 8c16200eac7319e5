/** PrometheusRules: the alerts and recording rules that read a kube-proxy metric nftables mode does not export. */
import type {FactValue} from '../contract/finding.js'
import type {ClusterFactPath} from '../facts/catalog.js'
import type {FactSet} from '../facts/fact-set.js'
import {listed} from '../sources/cluster/kept-objects.js'
import {AlikeFacts, type NamespacedSubject, namespacedSubject, OBJECTS_LISTED} from './namespaced.js'
import type {SnapshotReads} from './snapshot-reads.js'

/** kube-proxy metrics that only iptables mode exports (domain sheet §2.11, KEP-3866's kep.yaml). */
const IPTABLES_ONLY_METRICS = [
  'kubeproxy_sync_proxy_rules_iptables_total',
  'kubeproxy_sync_proxy_rules_iptables_last',
  'kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total',
  'kubeproxy_sync_proxy_rules_iptables_restore_failures_total',
  'kubeproxy_iptables_ct_state_invalid_dropped_packets_total',
  'kubeproxy_iptables_localhost_nodeports_accepted_packets_total',
] as const

/** Each metric as a whole word of an expression: `…_iptables_total` is not `…_iptables_total_x`. */
const IPTABLES_ONLY_PATTERNS = IPTABLES_ONLY_METRICS.map((metric) => ({metric, pattern: new RegExp(String.raw`\b${metric}\b`)}))

/** Each PrometheusRule, with its alerts and recording rules that read a metric nftables mode does not export, and those metrics. */
export function prometheusRuleSubjects(cluster: FactSet, resources: SnapshotReads): NamespacedSubject[] {
  const alike = new AlikeFacts(cluster)
  return resources.items('prometheusRules').map((object) => {
    const found: string[] = []
    const metrics = new Set<string>()
    for (const group of listed(object.spec?.groups)) {
      for (const rule of listed(group?.rules)) {
        const used = IPTABLES_ONLY_PATTERNS.filter(({pattern}) => pattern.test(String(rule?.expr ?? ''))).map(({metric}) => metric)
        if (used.length === 0) continue
        for (const metric of used) metrics.add(metric)
        found.push(`${rule?.alert ? `alert ${String(rule.alert)}` : `record ${String(rule?.record)}`}: ${used.join(', ')}`)
      }
    }

    const values: Array<[ClusterFactPath, FactValue]> = [
      ['prometheusRule.iptablesMetricRules', found.slice(0, OBJECTS_LISTED)],
      ['prometheusRule.iptablesMetrics', [...metrics]],
    ]
    return namespacedSubject(object, alike.of(values))
  })
}
