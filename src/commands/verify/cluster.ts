import * as Flags from '@oclif/core/flags'

import {checkOptions} from '../../cli/check-flags.js'
import {helpDescription} from '../../cli/help-text.js'
import {noConfigFile, refuseConfigFile, refuseWatch, VERIFY_DESCRIPTION, verifyFlags, verifyOptions} from '../../cli/verify-flags.js'
import type {FleetReport} from '../../contract/fleet.js'
import type {Report} from '../../contract/report.js'
import {loadVerifyEngine} from '../../services/verify-check.js'
import {UsageError} from '../../util/errors.js'
import Cluster from '../cluster.js'

export default class VerifyCluster extends Cluster {
  static summary = "Verify that a cluster's nodes switched kube-proxy to nftables mode cleanly (or rolled back cleanly)."

  static description = helpDescription([
    'The checks of `<%= config.bin %> verify node` on every Linux node of the cluster (or the --node and --selector ones: the nodes',
    'switched so far, mid-rollout), from the sources of `<%= config.bin %> cluster`: --node-probe exec|pod|ssh|exec,pod for everything a',
    "node shell shows, --facts bundles, and --kube-proxy-metrics for kube-proxy's own /proxyMode and /metrics through the API",
    "server's pod proxy. Through the API alone, only what the Node objects show is known, so nodes are unknown: probe them.",
    'With --all-contexts or several --context, every cluster as a fleet, as `<%= config.bin %> cluster` does.',
    '',
    VERIFY_DESCRIPTION,
  ])

  static examples = [
    '<%= config.bin %> verify cluster --node-probe exec',
    '<%= config.bin %> verify cluster --node-probe exec --node worker-1 --node worker-2 --allow-not-switched',
    '<%= config.bin %> verify cluster --node-probe exec -l kpx-check/switched=true',
    '<%= config.bin %> verify cluster --kube-proxy-metrics --node-probe pod --json > verify.json',
    '<%= config.bin %> verify cluster --kube-proxy-metrics --node-probe exec --watch 90s',
    '<%= config.bin %> verify cluster --rollback --node-probe exec',
    '<%= config.bin %> verify cluster --all-contexts --node-probe exec',
  ]

  static flags = {
    ...Cluster.flags,
    ...noConfigFile,
    ...verifyFlags,
    node: Flags.string({
      description: 'Verify only this Node (repeatable): the nodes switched so far, mid-rollout. Without it, every Linux node is expected in the new mode.',
      multiple: true,
      helpValue: 'NAME',
    }),
    selector: Flags.string({
      char: 'l',
      description: 'Verify only the Nodes this label selector matches, as `kubectl get nodes -l` reads it (the API server matches it): mark the nodes switched so far with a label. With --node, a node must be named and match.',
      helpValue: 'SELECTOR',
    }),
  }

  async run(): Promise<FleetReport | Report> {
    const parsed = await this.parse(VerifyCluster)
    const {flags} = parsed
    refuseConfigFile(flags)
    refuseWatch(flags, 'cluster')
    if (flags['target-version'] !== undefined) throw new UsageError('--target-version is for `kpx-check cluster`, before the switch; `verify cluster` does not take it')

    const engine = await loadVerifyEngine(checkOptions(flags), {...verifyOptions(flags), ...(flags.node ? {nodes: flags.node} : {}), ...(flags.selector === undefined ? {} : {selector: flags.selector})})
    return this.checkClusters(parsed, engine)
  }
}
