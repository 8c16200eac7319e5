import * as Flags from '@oclif/core/flags'

import {KpxCommand} from '../cli/base-command.js'
import {checkFlags, checkOptions, connectionFlags, connectionOptions, EXIT_CODES_DESCRIPTION, PLAN_AND_OUTPUTS_DESCRIPTION, targetVersion} from '../cli/check-flags.js'
import {configFlags} from '../cli/config-file.js'
import {durationFlag} from '../cli/duration.js'
import {CLUSTER_ACCESS, NODE_PROBES, RULES, SSH} from '../cli/flag-groups.js'
import {fleetFlags, fleetSelection} from '../cli/fleet-flags.js'
import {helpDescription} from '../cli/help-text.js'
import {withInterrupts} from '../cli/interrupts.js'
import {parseOutputs, sarifLocation} from '../cli/output-targets.js'
import {clusterNodeProbe, makesPods, sshFlags} from '../cli/ssh-flags.js'
import type {FleetReport} from '../contract/fleet.js'
import type {Report} from '../contract/report.js'
import {type ClusterEngine, runClusterCheck} from '../services/cluster-check.js'
import {runFleetCheck} from '../services/fleet-check.js'
import {DEFAULT_HOST_TEMPLATE} from '../sources/ssh/host-template.js'

export default class Cluster extends KpxCommand {
  static summary = 'Check whether a cluster can switch kube-proxy to nftables mode, through the Kubernetes API.'

  static description = helpDescription([
    'Reads (get/list only, never Secrets) the nodes, kube-proxy and its configuration, the CNI and other networking',
    'DaemonSets, Services, EndpointSlices and Ingresses, then runs the cluster rules and the node rules on every Linux',
    'node as the API shows it. Facts only a node shell can see (nft, kernel features, firewalls) stay unknown until the',
    'nodes are probed: --node-probe ssh|exec|pod|exec,pod, or bundles collected on the nodes (--facts). `<%= config.bin %> rbac` prints the permissions it needs.',
    '',
    'With --node-probe exec, runs the collector inside each Linux Node\'s running kube-proxy pod (pods/exec in kube-system,',
    'through the API server: no new pod, no SSH) and evaluates the node rules on what it finds; what the kube-proxy container',
    'cannot see of the node (its os-release, services, addresses) stays unknown with the reason. It needs pods/exec:',
    '`<%= config.bin %> rbac --node-probe exec` prints that Role. Nodes without a running kube-proxy pod, where exec is forbidden,',
    'or whose image has no shell, are reported with the reason.',
    '',
    'With --node-probe pod, makes a short-lived probe pod on each Linux Node (kube-proxy\'s image, pinned by digest, IfNotPresent;',
    'host network and PID namespaces, privileged, the host\'s /etc, /boot and /lib/modules read-only; every taint tolerated;',
    'activeDeadlineSeconds --timeout) in kube-system, or in a namespace it creates with --probe-namespace, reads the',
    'collector\'s bundle from its log and deletes it, on success, failure, SIGINT, SIGTERM and SIGHUP (exit 130, 143, 129) alike; a later run',
    'deletes the pods an interrupted one left. It needs write access: `<%= config.bin %> rbac --node-probe pod` prints that Role.',
    'With --node-probe exec,pod, exec where it works, and a probe pod where a node has no kube-proxy pod, its image no shell,',
    'or exec is forbidden. Nodes refused by Pod Security, an admission webhook (GKE Autopilot, an OpenShift SCC), RBAC, whose',
    'kubelet cannot get the image or never starts the pod, or whose pod runs past its deadline, are reported with the reason;',
    'EKS Fargate nodes are not probed.',
    '',
    'With --node-probe ssh, runs the collector over SSH on every Linux Node (at its InternalIP, or the host',
    '--ssh-host-template makes of it) and evaluates the node rules on what it finds. The SSH flags are those of',
    '`<%= config.bin %> node`. Nodes without an address to reach, or that cannot be reached, are reported with the reason.',
    '',
    'With --kube-proxy-metrics, also reads kube-proxy\'s own /proxyMode and /metrics on each Linux Node through the API server\'s',
    'pod proxy (GET pods/proxy in kube-system; `<%= config.bin %> rbac --kube-proxy-metrics` prints that Role), for the localhost',
    'NodePort, conntrack and nftables sync counters. Only where kube-proxy serves them beyond localhost (its metricsBindAddress,',
    'EKS: 0.0.0.0:10249); with the default 127.0.0.1:10249 nothing is asked and the checks say why. What the collector read',
    'itself (--node-probe ssh, --facts) wins; the pod proxy fills in what it could not (--node-probe exec has no HTTP client).',
    '',
    PLAN_AND_OUTPUTS_DESCRIPTION,
    '',
    'With --all-contexts, or --context given more than once, checks each of those clusters (a fleet), --cluster-concurrency',
    'at a time: one table (context, platform, versions, mode, verdict, blockers, unknowns), and with --json every cluster\'s',
    'full report. A cluster that cannot be used (unreachable, untrusted certificate, rejected credentials, forbidden,',
    'timed out, a broken kubeconfig entry) is incomplete, with the reason, and the others are still checked. The fleet',
    'exits with the worst of its clusters\' codes: 3, then 5, then 4, then 0.',
    '',
    EXIT_CODES_DESCRIPTION,
  ])

  static examples = [
    '<%= config.bin %> cluster',
    '<%= config.bin %> cluster --context prod-eu --json > report.json',
    '<%= config.bin %> cluster --all-contexts --output md=fleet.md',
    '<%= config.bin %> cluster --context prod-eu --context prod-us --json > fleet.json',
    '<%= config.bin %> cluster --target-version 1.35 --format markdown > migration-plan.md',
    '<%= config.bin %> cluster --output json=kpx.json --output junit=kpx-junit.xml --output sarif=kpx.sarif --output md=kpx-plan.md',
    '<%= config.bin %> cluster --waivers kpx-waivers.yaml --baseline last-week.json',
    '<%= config.bin %> cluster --snapshot cluster.snapshot.json',
    '<%= config.bin %> cluster --node-probe ssh --ssh-user ops --sudo --jump ops@bastion.example.com',
    '<%= config.bin %> cluster --node-probe ssh --ssh-host-template {name}.nodes.example.com --inventory hosts.ini',
    '<%= config.bin %> cluster --node-probe exec --concurrency 64 --json > report.json',
    '<%= config.bin %> cluster --node-probe exec --kube-proxy-metrics',
    '<%= config.bin %> cluster --node-probe exec,pod --json > report.json',
    '<%= config.bin %> cluster --node-probe pod --probe-namespace kpx-check-probes --timeout 2m',
  ]

  static flags = {
    ...connectionFlags,
    ...fleetFlags,
    snapshot: Flags.string({helpGroup: CLUSTER_ACCESS, description: 'Evaluate a snapshot written by `<%= config.bin %> snapshot` instead of a live cluster.', helpValue: 'FILE'}),
    'target-version': Flags.string({
      helpGroup: RULES,
      description: 'The Kubernetes version you are heading for, 1.35 or v1.35, not older than the cluster\'s (IPVS is deprecated in 1.35 and off by default in 1.40).',
      helpValue: 'X.Y',
    }),
    'node-probe': Flags.string({
      helpGroup: NODE_PROBES,
      description:
        'Probe the Linux Nodes too, for the facts only a node shell shows: over SSH, by exec in their kube-proxy pods, in probe pods kpx-check makes and deletes, or by exec and a probe pod where exec cannot (default: the API only).',
      options: ['ssh', 'exec', 'pod', 'exec,pod'],
      exclusive: ['facts'],
    }),
    'kube-proxy-metrics': Flags.boolean({
      helpGroup: NODE_PROBES,
      description:
        "Also read kube-proxy's /proxyMode and /metrics through the API server's pod proxy (pods/proxy in kube-system), where its metricsBindAddress is beyond localhost (EKS: 0.0.0.0:10249); `<%= config.bin %> rbac --kube-proxy-metrics` prints the Role.",
    }),
    'probe-namespace': Flags.string({
      helpGroup: NODE_PROBES,
      description: 'With --node-probe pod or exec,pod: make the probe pods in this namespace, which kpx-check creates (Pod Security privileged) and deletes, instead of kube-system.',
      helpValue: 'NAMESPACE',
    }),
    facts: Flags.string({
      helpGroup: NODE_PROBES,
      description:
        'Facts bundles collected on the nodes (`<%= config.bin %> collect`: files, folders, or - for standard input), each taken for the Linux Node its hostname names, in place of a node probe (repeatable).',
      multiple: true,
      helpValue: 'PATH',
    }),
    'ssh-user': Flags.string({helpGroup: SSH, description: 'With --node-probe ssh: the SSH login user (default: ~/.ssh/config\'s, then yours).', helpValue: 'USER'}),
    'ssh-host-template': Flags.string({
      helpGroup: SSH,
      description: `With --node-probe ssh: the host to reach each Node at, from {name}, {internalIP} and {externalIP} (default ${DEFAULT_HOST_TEMPLATE}).`,
      helpValue: 'TEMPLATE',
    }),
    inventory: Flags.string({
      helpGroup: SSH,
      description: 'With --node-probe ssh: an inventory (as for `<%= config.bin %> node`) to compare with the Nodes; its hosts that are no Node are reported (repeatable).',
      multiple: true,
      helpValue: 'FILE',
    }),
    ...sshFlags,
    timeout: durationFlag({helpGroup: NODE_PROBES, description: 'With --node-probe: how long each node may take, from connecting to the end of parsing its output: 90s, 2m, or a number of seconds (default 60s).', min: 1}),
    ...checkFlags,
    ...configFlags,
  }

  async run(): Promise<FleetReport | Report> {
    return this.checkClusters(await this.parseCluster())
  }

  protected parseCluster() {
    return this.parse(Cluster)
  }

  /** The cluster, or the fleet, checked with `engine`'s rules (default: the pre-switch rules), and the report emitted. */
  protected async checkClusters(parsed: Awaited<ReturnType<Cluster['parseCluster']>>, engine?: ClusterEngine): Promise<FleetReport | Report> {
    const {flags} = parsed
    const format = this.stdoutFormat(parsed)
    const fleet = fleetSelection(flags)
    const outputs = await parseOutputs(flags.output ?? [])
    const location = sarifLocation(flags['sarif-location'], format, outputs)
    const nodeProbe = clusterNodeProbe(flags)
    const check = async (signal?: AbortSignal): Promise<FleetReport | Report> => {
      const probe = nodeProbe && signal && makesPods(nodeProbe.method) ? {...nodeProbe, signal} : nodeProbe
      const checks = {
        ...checkOptions(flags),
        targetVersion: targetVersion(flags['target-version']),
        progress: this.progress(),
        ...(probe ? {nodeProbe: probe} : {}),
        ...(flags['kube-proxy-metrics'] ? {kubeProxyMetrics: true} : {}),
        ...(engine ? {engine} : {}),
        ...(signal ? {signal} : {}),
      }
      if (fleet) {
        return this.emitFleetReport(await runFleetCheck({...checks, ...fleet, connection: connectionOptions({...flags, context: undefined})}), format, outputs, location)
      }

      const report = await runClusterCheck({
        ...checks,
        connection: connectionOptions({...flags, context: flags.context?.[0]}),
        snapshotPath: flags.snapshot,
        ...(flags.facts ? {factsPaths: flags.facts} : {}),
      })
      return this.emitReport(report, format, outputs, location, this.detailsAsked(flags))
    }

    // Probe pods are made in the cluster: a signal then deletes them before the command ends. verify --watch waits: a signal ends the wait.
    return makesPods(nodeProbe?.method) || engine?.watchSeconds !== undefined ? withInterrupts(check) : check()
  }
}
