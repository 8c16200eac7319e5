import {readFile} from 'node:fs/promises'

import {checkConnection, collectResource, emptySnapshot, inPool, LISTED_RESOURCES} from '../sources/cluster/collect.js'
import {KubeClient} from '../sources/cluster/kube-client.js'
import {type ClusterSnapshot, SNAPSHOT_API_VERSION} from '../sources/cluster/snapshot.js'
import {UsageError} from '../util/errors.js'
import type {GatePolicy} from '../planner/verdict.js'
import {type ProgressMode, runWithProgress} from '../cli/progress.js'
import type {Report} from '../contract/report.js'
import type {GateFiles} from './rule-catalog.js'
import type {NodeProbeOptions, NodeProbeResult} from './cluster-node-probe.js'
import {type Severity} from '../contract/finding.js'

export interface ConnectionOptions {
  kubeconfig?: string
  context?: string
  requestTimeoutSeconds: number
  concurrency: number
}

export interface ClusterCheckOptions {
  connection: ConnectionOptions
  /** Evaluate a saved snapshot instead of a live cluster. */
  snapshotPath?: string
  targetVersion?: string
  rulePaths: string[]
  skip: string[]
  severity: Map<string, Severity>
  policy: GatePolicy
  gateFiles?: GateFiles
  progress: ProgressMode
  /** --node-probe ssh: probe the Linux Nodes over SSH (live, even with a snapshot) and evaluate their facts. */
  nodeProbe?: NodeProbeOptions
}

/**
 * Reads the cluster (or the snapshot) and, meanwhile, loads the rule engine and the rules: against
 * a real API server reading is mostly waiting, and the loading fits in it. A rule problem is still
 * the error reported (a usage error, exit 2), as when the rules were loaded first; it stops the reads.
 */
export async function runClusterCheck(options: ClusterCheckOptions): Promise<Report> {
  const stopReading = new AbortController()
  const reading = options.snapshotPath ? readSnapshot(options.snapshotPath) : collectLive(options.connection, options.progress, stopReading.signal)
  reading.catch(() => undefined) // awaited once the rules are in: a read failing before then is reported there
  const engine = await loadEngine(options).catch(async (error: unknown) => {
    stopReading.abort(error)
    await reading.catch(() => undefined) // the reads are over (sockets closed, progress done) before the error shows
    throw error
  })
  const snapshot = await reading
  let probes: NodeProbeResult | undefined
  if (options.nodeProbe) {
    const {probeClusterNodes} = await import('./cluster-node-probe.js')
    probes = await probeClusterNodes(snapshot, options.nodeProbe, options.progress)
  }

  return engine.evaluateSnapshot(snapshot, engine.rules, {...options, ...engine.gate, recipes: engine.recipes}, probes)
}

/**
 * The evaluation's modules (CEL, the rule schema, …), the built-in and --rules rules checked against
 * --skip and --severity, --waivers (which must name rules) and --baseline, and the platform recipes.
 */
async function loadEngine(options: Pick<ClusterCheckOptions, 'gateFiles' | 'rulePaths' | 'severity' | 'skip'>) {
  const [{loadRuleCatalog, readGateFiles, validateRuleSelection}, {evaluateSnapshot}, {loadRecipes}] = await Promise.all([
    import('./rule-catalog.js'),
    import('./cluster-evaluation.js'),
    import('../planner/recipes.js'),
  ])
  const rules = await loadRuleCatalog(options.rulePaths)
  validateRuleSelection(rules, options.skip, options.severity)
  return {rules, evaluateSnapshot, gate: await readGateFiles(rules, options.gateFiles ?? {}), recipes: await loadRecipes()}
}

/** Reads the cluster into a snapshot, with a task list on stderr; aborting `signal` stops the reads with its reason. */
export async function collectLive(connection: ConnectionOptions, progress: ProgressMode, signal?: AbortSignal): Promise<ClusterSnapshot> {
  const state: {client?: KubeClient; snapshot?: ClusterSnapshot} = {}
  try {
    await runWithProgress(
      progress,
      [
        {
          title: 'Connect to the API server',
          async task(context, task) {
            context.client = await KubeClient.connect({...connection, signal})
            const version = await checkConnection(context.client)
            context.snapshot = {...emptySnapshot(context.client), resources: {version: {status: 'ok', items: [version]}}}
            task.title = `Connected to ${context.client.server} (${String(version.gitVersion ?? '?')}, context ${context.client.context})`
          },
        },
        {
          title: `Read ${LISTED_RESOURCES.map((resource) => resource.name).join(', ')}`,
          async task(context, task) {
            let done = 0
            await inPool(LISTED_RESOURCES, connection.concurrency, async (resource) => {
              context.snapshot!.resources[resource.name] = await collectResource(context.client!, resource)
              task.output = `${++done}/${LISTED_RESOURCES.length} read`
            })
            const refused = Object.values(context.snapshot!.resources).filter((outcome) => outcome.status !== 'ok').length
            task.title = `Read ${LISTED_RESOURCES.length} resource kinds${refused > 0 ? ` (${refused} could not be read)` : ''}`
          },
        },
      ],
      state,
    )
  } finally {
    state.client?.close()
  }

  return state.snapshot!
}

export async function readSnapshot(path: string): Promise<ClusterSnapshot> {
  let parsed: Partial<ClusterSnapshot>
  try {
    parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<ClusterSnapshot>
  } catch (error) {
    throw new UsageError(`--snapshot ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not JSON: ${(error as Error).message}`}`, [
      'Write one with: kpx-check snapshot -o FILE',
    ])
  }

  if (parsed.apiVersion !== SNAPSHOT_API_VERSION || typeof parsed.resources !== 'object' || parsed.resources === null) {
    throw new UsageError(`--snapshot ${path}: not a kpx-check snapshot (expected apiVersion "${SNAPSHOT_API_VERSION}")`, ['Write one with: kpx-check snapshot -o FILE'])
  }

  return {kind: 'ClusterSnapshot', capturedAt: '', source: {}, ...parsed} as ClusterSnapshot
}
