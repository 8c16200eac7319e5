/**
 * `verify --watch DURATION`: kube-proxy's metrics read twice, DURATION apart. A failure counter can be old
 * news (failures before a fix, counted since kube-proxy started); one that grows between two reads is a
 * failure now. And a family whose last successful sync does not move while the other does is stuck.
 */
import type {Bundle} from '../../facts/bundle.js'
import {factsProvidedBy} from '../../facts/catalog.js'
import {type FactSet, type UnknownFact} from '../../facts/fact-set.js'
import {type MetricSample, parseMetricSamples} from '../../facts/parsers/kube-proxy.js'
import {LAST_SYNC, SYNC_FAILURES} from './node-facts.js'

/** The facts only a watch sets: they are not of one read, so no bundle section has them. */
const SYNC_WATCH_FACTS = factsProvidedBy('watch')

/** One read of kube-proxy's /metrics: the page (only the families kept) and when it was read, or why it could not be read. */
export type MetricsRead = UnknownFact | {metrics: string; readAt: Date}

/** The unlabelled series of kube-proxy ≤ 1.32 counts every family at once. */
const ALL_FAMILIES = 'all families'

/**
 * The read of /metrics in kube-proxy's answers as a collector's bundle or the pod proxy holds them: the `kube-proxy-metrics`
 * section and `readAt`, when it was read (undefined: the answers do not say, and the watch cannot be timed).
 */
export function kubeProxyMetricsRead(answers: Pick<Bundle, 'sections' | 'unavailable'>, readAt: Date | undefined): MetricsRead {
  const metrics = answers.unavailable.get('kube-proxy-metrics') ?? answers.sections.get('kube-proxy-metrics') ?? {reason: 'not-collected', detail: '/metrics was not asked'}
  if (typeof metrics !== 'string') return metrics
  return readAt === undefined ? {reason: 'not-collected', detail: 'the read does not say when it was made'} : {metrics, readAt}
}

/** Sets the watch facts on `facts` from two reads of the same kube-proxy, `first` before `second`. */
export function setSyncWatchFacts(facts: FactSet, first: MetricsRead, second: MetricsRead): FactSet {
  const before = samplesOf(first, 'first')
  if ('reason' in before) return facts.unknownAll(SYNC_WATCH_FACTS, before.reason, before.detail)
  const after = samplesOf(second, 'second')
  if ('reason' in after) return facts.unknownAll(SYNC_WATCH_FACTS, after.reason, after.detail)

  const failuresBefore = byFamily(before.samples, SYNC_FAILURES)
  const failuresAfter = byFamily(after.samples, SYNC_FAILURES)
  const grown = [...failuresAfter]
    .filter(([family, count]) => count > (failuresBefore.get(family) ?? 0))
    .map(([family, count]) => `${family} ${failuresBefore.get(family) ?? 0} → ${count}`)

  const syncedAfter = byFamily(after.samples, LAST_SYNC)
  const notAdvanced = [...byFamily(before.samples, LAST_SYNC)].filter(([family, at]) => !((syncedAfter.get(family) ?? at) > at)).map(([family]) => family)

  return facts
    .set('kubeProxy.watchSeconds', Math.round((after.readAt.getTime() - before.readAt.getTime()) / 1000))
    .set('kubeProxy.syncFailuresGrown', grown.toSorted())
    .set('kubeProxy.syncsNotAdvanced', notAdvanced.toSorted())
}

function samplesOf(read: MetricsRead, which: 'first' | 'second'): UnknownFact | {readAt: Date; samples: MetricSample[]} {
  if ('reason' in read) return {reason: read.reason, detail: `kube-proxy's metrics, ${which} read: ${read.detail}`}
  const samples = parseMetricSamples(read.metrics)
  return samples ? {samples, readAt: read.readAt} : {reason: 'unparseable', detail: `kube-proxy's metrics, ${which} read: not Prometheus text`}
}

/** A metric's value per IP family label; a series without one stands for every family. */
function byFamily(samples: readonly MetricSample[], name: string): Map<string, number> {
  const values = new Map<string, number>()
  for (const sample of samples) {
    if (sample.name !== name || !Number.isFinite(sample.value)) continue
    const family = sample.ipFamily ?? ALL_FAMILIES
    values.set(family, (values.get(family) ?? 0) + sample.value)
  }

  return values
}
