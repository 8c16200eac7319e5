import type {FleetCluster, FleetReport} from '../contract/fleet.js'
import {fleetReport} from '../planner/fleet.js'
import {uncheckedExitCode} from '../planner/verdict.js'
import {kubeconfigContexts} from '../sources/cluster/kubeconfig.js'
import {ClusterAccessError, UsageError} from '../util/errors.js'
import {forEachConcurrently} from '../util/pool.js'
import {type ClusterCheckOptions, loadClusterEngine, runClusterCheck} from './cluster-check.js'
import type {ConnectionOptions} from './cluster-reads.js'
import {runSilently, type StepRunner} from './progress.js'

/** A fleet: every cluster of the kubeconfig, or the contexts named; each is checked as `cluster --context` would. */
interface FleetCheckOptions extends Pick<ClusterCheckOptions, 'engine' | 'gateFiles' | 'kubeProxyMetrics' | 'nodeProbe' | 'policy' | 'rulePaths' | 'severity' | 'signal' | 'skip' | 'targetVersion'> {
  connection: Omit<ConnectionOptions, 'context'>
  /** --all-contexts, or the --context names in the order given. */
  contexts: 'all' | string[]
  /** Clusters checked at once (--cluster-concurrency). */
  clusterConcurrency: number
  progress?: StepRunner
}

/**
 * Checks each cluster with the same rules, loaded once before any cluster is contacted (a rule or waiver
 * mistake is exit 2 for the fleet). A cluster that cannot be used, or for which what was asked makes no sense
 * (a usage error of its own), becomes an entry with the reason, incomplete, and the others are checked.
 */
export async function runFleetCheck(options: FleetCheckOptions): Promise<FleetReport> {
  const contexts = fleetContexts(options.connection.kubeconfig, options.contexts)
  const engine = options.engine ?? await loadClusterEngine(options)
  const clusters: FleetCluster[] = []
  const progress = options.progress ?? runSilently
  await progress(
    [
      {
        title: `Check ${contexts.length} clusters, ${Math.min(options.clusterConcurrency, contexts.length)} at a time`,
        async task(_context, task) {
          let notChecked = 0
          let done = 0
          await forEachConcurrently([...contexts.entries()], options.clusterConcurrency, async ([index, context]) => {
            const cluster = await checkCluster(context, options, engine)
            clusters[index] = cluster
            if (cluster.error) notChecked++
            task.output = `${context}: ${cluster.error ? `not checked (${cluster.error.reason})` : cluster.verdict}`
            task.status(`${++done} done, ${notChecked} not checked, ${contexts.length - done} remaining`)
          })
          task.title = `Checked ${contexts.length} clusters`
          if (notChecked > 0) task.fellShort(`${notChecked} could not be checked, see the table`)
        },
      },
    ],
    {},
  )
  return fleetReport(clusters)
}

/** The contexts to check: the kubeconfig's, or the ones named, each once and each one the kubeconfig has. */
function fleetContexts(kubeconfig: string | undefined, asked: FleetCheckOptions['contexts']): string[] {
  const {contexts, files} = kubeconfigContexts(kubeconfig)
  const there = `Contexts there: ${contexts.join(', ') || 'none'}.`
  if (asked === 'all') {
    if (contexts.length === 0) {
      throw new UsageError(`--all-contexts: no contexts in ${files.join(', ') || 'the kubeconfig'}`, ['Pass --kubeconfig FILE, or set KUBECONFIG, to a kubeconfig with contexts (kubectl config get-contexts lists them).'])
    }

    return contexts
  }

  const missing = asked.filter((name) => !contexts.includes(name))
  if (missing.length > 0) throw new UsageError(`--context ${missing.join(', ')}: no such context in ${files.join(', ') || 'the kubeconfig'}`, [there])
  return [...new Set(asked)]
}

async function checkCluster(context: string, options: FleetCheckOptions, engine: ClusterCheckOptions['engine']): Promise<FleetCluster> {
  try {
    const report = await runClusterCheck({...options, connection: {...options.connection, context}, engine, progress: runSilently})
    return {context, verdict: report.verdict, exitCode: report.exitCode, report}
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    return {
      context,
      verdict: 'incomplete',
      exitCode: uncheckedExitCode(options.policy),
      error: {reason: error instanceof ClusterAccessError ? error.reason : 'usage', message: error.message, suggestions: error.suggestions},
    }
  }
}
