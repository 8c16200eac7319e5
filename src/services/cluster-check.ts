import type {Report} from '../contract/report.js'
import type {LoadedRule} from '../engine/rule-lint.js'
import {readSnapshot} from '../sources/cluster/snapshot-file.js'
import type {ClusterSnapshot} from '../sources/cluster/snapshot.js'
import {type CheckOptions} from './check-options.js'
import type {ClusterEvaluationOptions} from './cluster-evaluation.js'
import type {NodeProbeOptions, NodeProbeResult} from './cluster-node-probe.js'
import {collectLive, type ConnectionOptions} from './cluster-reads.js'
import {runSilently, type StepRunner} from './progress.js'

export interface ClusterCheckOptions extends CheckOptions, Pick<ClusterEvaluationOptions, 'targetVersion'> {
  connection: ConnectionOptions
  /** Evaluate a saved snapshot instead of a live cluster. */
  snapshotPath?: string
  progress?: StepRunner
  /** --node-probe ssh|exec: probe the Linux Nodes (live, even with a snapshot) and evaluate their facts. */
  nodeProbe?: NodeProbeOptions
  /** --kube-proxy-metrics: read kube-proxy's /proxyMode and /metrics through the API server's pod proxy too (live, even with a snapshot). */
  kubeProxyMetrics?: boolean
  /** --facts: bundles collected on the nodes, in place of a probe. */
  factsPaths?: string[]
  readStdin?: () => Promise<string>
  /** The rules and what judges them, loaded once for a fleet (loadClusterEngine); else loaded while the cluster is read. */
  engine?: ClusterEngine
  /** Aborted (SIGINT, SIGTERM during a pod probe): the reads stop, and the check rejects with its reason. */
  signal?: AbortSignal
}

/**
 * Reads the rules, --skip, --severity, --waivers, --baseline and the --facts bundles first: a mistake there is said (a usage error, exit 2)
 * before any request reaches the API server. Then reads the cluster (or the snapshot) and, meanwhile, loads the
 * evaluation and the platform recipes: against a real API server reading is mostly waiting, and the loading fits in it.
 */
export async function runClusterCheck(options: ClusterCheckOptions): Promise<Report> {
  const progress = options.progress ?? runSilently
  const selection = options.engine ?? await loadRuleSelection(options)
  // The bundles too: a --facts path that is not there is said before any request.
  const bundles = options.factsPaths && options.factsPaths.length > 0 ? await (await import('../sources/node/bundles.js')).readFactsBundles(options.factsPaths, options.readStdin) : undefined
  const stopReading = new AbortController()
  const readSignal = options.signal ? AbortSignal.any([stopReading.signal, options.signal]) : stopReading.signal
  const reading = options.snapshotPath ? readSnapshot(options.snapshotPath) : collectLive(options.connection, progress, readSignal)
  reading.catch(() => {}) // awaited once the evaluation is in: a read failing before then is reported there
  const engine: ClusterEngine = options.engine ?? {
    ...selection,
    ...(await loadEvaluation().catch(async (error: unknown) => {
      stopReading.abort(error)
      await reading.catch(() => {}) // the reads are over (sockets closed, progress done) before the error shows
      throw error
    })),
  }
  const read = await reading
  engine.refuseTargetBehindCluster(read, options.targetVersion)
  engine.refuseBaselineOfAnotherCluster(engine.gate.baseline, read.source)
  // Before any node is probed: the nodes out of scope are neither probed nor judged.
  const snapshot = engine.scopeNodes ? await engine.scopeNodes(read, options.connection, readSignal) : read
  let probes: NodeProbeResult | undefined
  if (options.nodeProbe) {
    const {probeClusterNodes} = await import('./cluster-node-probe.js')
    probes = await probeClusterNodes(snapshot, options.nodeProbe, options.connection, progress)
  } else if (bundles) {
    const {bundledNodeProbes} = await import('./cluster-bundles.js')
    probes = bundledNodeProbes(snapshot, bundles)
  }

  if (options.kubeProxyMetrics) {
    const {readClusterKubeProxyMetrics} = await import('./cluster-kube-proxy-metrics.js')
    const kubeProxyEndpoints = await readClusterKubeProxyMetrics(snapshot, options.connection, progress, {healthz: engine.readsHealthz, watchSeconds: engine.watchSeconds, signal: readSignal})
    probes = {probed: new Map(), unaddressed: new Map(), ...probes, kubeProxyEndpoints}
  }

  return engine.evaluateSnapshot(snapshot, engine.rules, {...options, ...engine.gate, recipes: engine.recipes}, probes)
}

/**
 * The evaluation's modules (CEL, the rule schema, …), the built-in and --rules rules checked against
 * --skip and --severity, --waivers (which must name rules) and --baseline, and the platform recipes.
 */
export async function loadClusterEngine(
  options: Pick<ClusterCheckOptions, 'gateFiles' | 'rulePaths' | 'severity' | 'skip'>,
  select: (rule: LoadedRule) => boolean = () => true,
) {
  const [selection, evaluation] = await Promise.all([loadRuleSelection(options, select), loadEvaluation()])
  return {...selection, ...evaluation}
}

/** The rules (checked against --skip and --severity) and the waivers and baseline that judge them: everything the user named. */
async function loadRuleSelection(options: Pick<ClusterCheckOptions, 'gateFiles' | 'rulePaths' | 'severity' | 'skip'>, select: (rule: LoadedRule) => boolean = () => true) {
  const [{loadRuleCatalog, validateRuleSelection}, {readGateFiles}] = await Promise.all([import('./rule-catalog.js'), import('./gate-files.js')])
  const rules = (await loadRuleCatalog(options.rulePaths)).filter((rule) => select(rule))
  validateRuleSelection(rules, options.skip, options.severity)
  return {rules, gate: await readGateFiles(rules, options.gateFiles ?? {}, 'cluster')}
}

/** What evaluates a snapshot, and the platform recipes the plan is made of. */
async function loadEvaluation() {
  const [{evaluateSnapshot, refuseBaselineOfAnotherCluster, refuseTargetBehindCluster}, {loadRecipes}] = await Promise.all([import('./cluster-evaluation.js'), import('./recipe-catalog.js')])
  return {evaluateSnapshot, refuseBaselineOfAnotherCluster, refuseTargetBehindCluster, recipes: await loadRecipes()}
}

/** The snapshot with only the nodes a run is about (verify's --node and --selector), once it is read. */
type NodeScope = (snapshot: ClusterSnapshot, connection: ConnectionOptions, signal: AbortSignal) => Promise<ClusterSnapshot>

export type ClusterEngine = Awaited<ReturnType<typeof loadClusterEngine>> & {
  scopeNodes?: NodeScope
  /** --kube-proxy-metrics reads kube-proxy's /healthz too: verify's checks read it, the pre-switch ones do not. */
  readsHealthz?: boolean
  /** verify --watch: --kube-proxy-metrics reads each kube-proxy's metrics twice, this many seconds apart. */
  watchSeconds?: number
}
