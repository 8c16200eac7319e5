import {Flags} from '@oclif/core'

import {checkFlags, connectionFlags, connectionOptions, EXIT_CODES_DESCRIPTION, gatePolicy, KpxCommand} from '../base-command.js'
import {UsageError} from '../errors.js'
import {progressMode} from '../report/progress.js'
import type {Report} from '../report/report.js'
import {renderText} from '../report/text.js'
import {runClusterCheck} from '../services/cluster-check.js'
import {parseSeverityOverrides} from '../services/rule-catalog.js'

export default class Cluster extends KpxCommand {
  static summary = 'Check whether a cluster can switch kube-proxy to nftables mode, through the Kubernetes API.'

  static description = [
    'Reads (get/list only, never Secrets) the nodes, kube-proxy and its configuration, the CNI and other networking',
    'DaemonSets, Services, EndpointSlices and Ingresses, then runs the cluster rules and the node rules on every Linux',
    'node as the API shows it. Facts only a node shell can see (nft, kernel features, firewalls) stay unknown until the',
    'nodes are probed: kpx-check node --facts/--ssh. `kpx-check rbac` prints the permissions it needs.',
    '',
    EXIT_CODES_DESCRIPTION,
  ].join('\n')

  static examples = [
    '<%= config.bin %> cluster',
    '<%= config.bin %> cluster --context prod-eu --json > report.json',
    '<%= config.bin %> cluster --target-version 1.35',
    '<%= config.bin %> cluster --snapshot cluster.snapshot.json',
  ]

  static flags = {
    ...connectionFlags,
    snapshot: Flags.string({description: 'Evaluate a snapshot written by `kpx-check snapshot` instead of a live cluster.', helpValue: 'FILE'}),
    'target-version': Flags.string({description: 'The Kubernetes version you are heading for (IPVS is deprecated in 1.35 and off by default in 1.40).', helpValue: 'X.Y'}),
    ...checkFlags,
  }

  async run(): Promise<Report> {
    const {flags} = await this.parse(Cluster)
    const target = flags['target-version']
    if (target !== undefined && !/^1\.\d{1,2}$/.test(target)) throw new UsageError(`--target-version ${target}: expected a Kubernetes minor version such as 1.35`)
    const report = await runClusterCheck({
      connection: connectionOptions(flags),
      snapshotPath: flags.snapshot,
      targetVersion: target,
      rulePaths: flags.rules ?? [],
      skip: flags.skip ?? [],
      severity: parseSeverityOverrides(flags.severity ?? []),
      policy: gatePolicy(flags),
      progress: progressMode({json: this.jsonEnabled(), stderrIsTTY: Boolean(process.stderr.isTTY)}),
    })
    process.exitCode = report.exitCode
    if (!this.jsonEnabled()) this.log(renderText(report))
    return report
  }
}
