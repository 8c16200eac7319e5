import type {Report, Verdict} from './report.js'

export const FLEET_SCHEMA_VERSION = 'kpx-check-fleet/v1'

/** Why a cluster could not be used at all (a ClusterAccessError's reason). */
const CLUSTER_ACCESS_REASONS = ['unreachable', 'TLS', 'unauthorized', 'forbidden', 'timeout', 'api-error', 'kubeconfig'] as const
export type ClusterAccessReason = (typeof CLUSTER_ACCESS_REASONS)[number]

/**
 * Why a cluster of a fleet has no report: it could not be used (ClusterAccessError's reasons), or what was
 * asked made no sense for it (`usage`: a --target-version older than its Kubernetes, a Node the SSH host
 * template cannot name) — one cluster's exit 2, which in a fleet is that cluster's entry.
 */
export const FLEET_ERROR_REASONS = [...CLUSTER_ACCESS_REASONS, 'usage'] as const
type FleetErrorReason = (typeof FLEET_ERROR_REASONS)[number]

/** One cluster of the fleet: its full report, or why there is none (then its verdict is incomplete). */
export interface FleetCluster {
  /** The kubeconfig context. */
  context: string
  verdict: Verdict
  /** The exit code a run on this cluster alone would have had (for one not checked: incomplete's). */
  exitCode: number
  report?: Report
  error?: {reason: FleetErrorReason; message: string; suggestions: string[]}
}

/** Clusters by outcome; a cluster not checked (an error) is counted there only, though its verdict is incomplete. */
export interface FleetCounts {
  clusters: number
  go: number
  noGo: number
  incomplete: number
  notChecked: number
}

/** `kpx-check cluster --all-contexts` or several `--context`: every cluster's report, and the fleet's worst. */
export interface FleetReport {
  schemaVersion: typeof FLEET_SCHEMA_VERSION
  kind: 'fleet'
  tool: {name: string; version: string}
  generatedAt: string
  /** The configuration file the run read, and the flags it set (as in each report: see Report.config). */
  config?: Report['config']
  /** In the order the contexts were given, or the kubeconfig lists them. */
  clusters: FleetCluster[]
  summary: {
    /** The worst of the clusters' verdicts. */
    verdict: Verdict
    /** The worst of the clusters' exit codes: the process's. */
    exitCode: number
    counts: FleetCounts
  }
}
