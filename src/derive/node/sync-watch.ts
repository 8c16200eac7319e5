/**
 * `verify --watch DURATION`: kube-proxy's metrics read twice, DURATION apart. A failure counter can be old
 * news (failures before a fix, counted since kube-proxy started); one that grows between two reads is a
 * failure now. And a family whose last successful sync does not move while the other does is stuck.
 */
import {factsProvidedBy} from '../../facts/catalog.js'
import {type FactSet, type UnknownFact} from '../../facts/fact-set.js'
import {type MetricSample, parseMetricSamples} from '../../facts/parsers/kube-proxy.js'
import {LAST_SYNC, SYNC_FAILURES} from './node-facts.js'

/** The facts only a watch sets: they are not of one read, so no bundle section has them. */
const SYNC_WATCH_FACTS = factsProvidedBy('watch')

/** One read of kube-proxy's /metrics: the page (only the families kept), or why it could not be read; and when. */
export interface MetricsRead {
  metrics: string | UnknownFact
  readAt: Date
}

/** The unlabelled series of kube-proxy ≤ 1.32 counts every family at once. */
const ALL_FAMILIES = 'all families'

/** Sets the watch facts on `facts` from two reads of the same kube-proxy, `first` before `second`. */
export function setSyncWatchFacts(facts: FactSet, first: MetricsRead, second: MetricsRead): FactSet {
  const before = samplesOf(first, 'first')
  const after = samplesOf(second, 'second')
  const why = 'reason' in before ? before : ('reason' in after ? after : undefined)
  if (why) return facts.unknownAll(SYNC_WATCH_FACTS, why.reason, why.detail)
  const watched = before as MetricSample[]
  const now = after as MetricSample[]

  const failuresBefore = byFamily(watched, SYNC_FAILURES)
  const failuresAfter = byFamily(now, SYNC_FAILURES)
  const grown = [...failuresAfter]
    .filter(([family, count]) => count > (failuresBefore.get(family) ?? 0))
    .map(([family, count]) => `${family} ${failuresBefore.get(family) ?? 0} → ${count}`)

  const syncedAfter = byFamily(now, LAST_SYNC)
  const notAdvanced = [...byFamily(watched, LAST_SYNC)].filter(([family, at]) => !((syncedAfter.get(family) ?? at) > at)).map(([family]) => family)

  return facts
    .set('kubeProxy.watchSeconds', Math.round((second.readAt.getTime() - first.readAt.getTime()) / 1000))
    .set('kubeProxy.syncFailuresGrown', grown.toSorted())
    .set('kubeProxy.syncsNotAdvanced', notAdvanced.toSorted())
}

function samplesOf(read: MetricsRead, which: 'first' | 'second'): MetricSample[] | UnknownFact {
  if (typeof read.metrics !== 'string') return {reason: read.metrics.reason, detail: `kube-proxy's metrics, ${which} read: ${read.metrics.detail}`}
  return parseMetricSamples(read.metrics) ?? {reason: 'unparseable', detail: `kube-proxy's metrics, ${which} read: not Prometheus text`}
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
