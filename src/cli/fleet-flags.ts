/** `cluster` over several clusters: which contexts, how many at once, and what a fleet cannot take. */
import * as Flags from '@oclif/core/flags'

import {UsageError} from '../util/errors.js'
import {CLUSTER_ACCESS} from './flag-groups.js'

/** Clusters checked at once unless --cluster-concurrency says otherwise. */
const DEFAULT_CLUSTER_CONCURRENCY = 4

export const fleetFlags = {
  context: Flags.string({
    helpGroup: CLUSTER_ACCESS,
    description: 'The kubeconfig context to use; repeated, each of those clusters is checked (a fleet: one table, the worst verdict as the exit code).',
    multiple: true,
    helpValue: 'NAME',
  }),
  'all-contexts': Flags.boolean({helpGroup: CLUSTER_ACCESS, description: 'Check the cluster of every context in the kubeconfig, as a fleet.', default: false, exclusive: ['context']}),
  'cluster-concurrency': Flags.integer({
    helpGroup: CLUSTER_ACCESS,
    description: `With --all-contexts or several --context: clusters checked at once (default ${DEFAULT_CLUSTER_CONCURRENCY}).`,
    min: 1,
    max: 64,
  }),
}

interface FleetFlagValues {
  context?: string[]
  'all-contexts': boolean
  'cluster-concurrency'?: number
  snapshot?: string
  baseline?: string
  facts?: string[]
  inventory?: string[]
}

/** What names several clusters; undefined for one (no --context, or one), which keeps a single cluster's report. */
interface FleetSelection {
  contexts: 'all' | string[]
  clusterConcurrency: number
}

/** Why each of these flags is for one cluster only, and how to use it. */
const ONE_CLUSTER_ONLY = [
  ['snapshot', 'a snapshot is one cluster: evaluate each with `cluster --snapshot FILE`'],
  ['baseline', 'a baseline is one cluster\'s report: gate each cluster on its own with `cluster --context NAME --baseline FILE`'],
  ['facts', 'bundles are one cluster\'s nodes: give them with `cluster --context NAME --facts PATH`'],
  ['inventory', 'an inventory lists one cluster\'s hosts: give it with `cluster --context NAME --inventory FILE`'],
] as const

/** The fleet the flags ask for, if any; a flag that only makes sense for one cluster, or for a fleet, given with the other is refused. */
export function fleetSelection(flags: FleetFlagValues): FleetSelection | undefined {
  const named = [...new Set(flags.context)]
  const fleet = flags['all-contexts'] ? 'all' : (named.length > 1 ? named : undefined)
  if (!fleet) {
    if (flags['cluster-concurrency'] !== undefined) throw new UsageError('--cluster-concurrency only applies with --all-contexts or several --context')
    return undefined
  }

  const asked = flags['all-contexts'] ? '--all-contexts' : 'several --context'
  for (const [flag, why] of ONE_CLUSTER_ONLY) {
    if (flags[flag] !== undefined) throw new UsageError(`--${flag} cannot go with ${asked}: ${why}`)
  }

  return {contexts: fleet, clusterConcurrency: flags['cluster-concurrency'] ?? DEFAULT_CLUSTER_CONCURRENCY}
}
