import {FLEET_SCHEMA_VERSION, type FleetCluster, type FleetCounts, type FleetReport} from '../contract/fleet.js'
import {TOOL_NAME, TOOL_VERSION} from '../util/version.js'
import {worstExitCode, worstVerdict} from './verdict.js'

/** The fleet's report: its clusters as they came, counted, and the worst verdict and exit code among them. */
export function fleetReport(clusters: FleetCluster[], now = new Date()): FleetReport {
  const counts: FleetCounts = {clusters: clusters.length, go: 0, noGo: 0, incomplete: 0, notChecked: 0}
  for (const cluster of clusters) {
    if (cluster.error) counts.notChecked++
    else if (cluster.verdict === 'no-go') counts.noGo++
    else if (cluster.verdict === 'incomplete') counts.incomplete++
    else counts.go++
  }

  return {
    schemaVersion: FLEET_SCHEMA_VERSION,
    kind: 'fleet',
    tool: {name: TOOL_NAME, version: TOOL_VERSION},
    generatedAt: now.toISOString(),
    clusters,
    summary: {
      verdict: worstVerdict(clusters.map((cluster) => cluster.verdict)),
      exitCode: worstExitCode(clusters.map((cluster) => cluster.exitCode)),
      counts,
    },
  }
}
