import * as Flags from '@oclif/core/flags'

import {KpxCommand} from '../cli/base-command.js'
import {checkFlags, checkOptions, EXIT_CODES_DESCRIPTION, PLAN_AND_OUTPUTS_DESCRIPTION} from '../cli/check-flags.js'
import {configFlags} from '../cli/config-file.js'
import {durationFlag} from '../cli/duration.js'
import {NODE_PROBES, SSH} from '../cli/flag-groups.js'
import {helpDescription} from '../cli/help-text.js'
import {parseOutputs, sarifLocation} from '../cli/output-targets.js'
import {nodeSshProbe, sshFlags} from '../cli/ssh-flags.js'
import type {Report} from '../contract/report.js'
import {type NodeCheckOptions, runNodeCheck} from '../services/node-check.js'

export default class Node extends KpxCommand {
  static summary = 'Check whether nodes can run kube-proxy in nftables mode.'

  static description = helpDescription([
    'Without --facts, runs the read-only collector on this machine. With --facts, evaluates bundles written by',
    '`<%= config.bin %> collect` on other nodes (a file, a folder of bundles, or - for standard input; repeatable):',
    'every bundle is one node, and all of them make one report.',
    '',
    'With --ssh or --inventory, runs the collector on those nodes over SSH, many at once (--concurrency), each',
    'bounded by --timeout. Keys come from --identity, ~/.ssh/config and ssh-agent; host keys must be in',
    'known_hosts (--host-key-policy accept-new records new ones). A node that cannot be reached or logged in to',
    'is reported with the reason, and its checks are unknown.',
    '',
    'Run as root to see everything: without root, the root-only checks (nft -c, rulesets, firewall policies)',
    'are reported as unknown with reason permission-denied.',
    '',
    PLAN_AND_OUTPUTS_DESCRIPTION,
    '',
    EXIT_CODES_DESCRIPTION,
  ])

  static examples = [
    '<%= config.bin %> node',
    '<%= config.bin %> node --json > report.json',
    '<%= config.bin %> node --facts facts/ --output junit=kpx-junit.xml --waivers kpx-waivers.yaml',
    '<%= config.bin %> collect | ssh node-1 sudo sh > facts/node-1.facts\n<%= config.bin %> node --facts facts/',
    '<%= config.bin %> node --facts node-1.facts --skip node/os-distro --severity node/host-firewall=blocker',
    '<%= config.bin %> node --ssh root@10.0.0.11 --ssh admin@node-2:2222 --json',
    '<%= config.bin %> node --inventory hosts.ini --sudo --jump ops@bastion.example.com --concurrency 50',
  ]

  static flags = {
    facts: Flags.string({
      helpGroup: NODE_PROBES,
      description: 'Evaluate facts bundles instead of this machine: a file, a folder of bundles, or - (repeatable).',
      multiple: true,
      helpValue: 'PATH',
    }),
    ssh: Flags.string({
      helpGroup: SSH,
      description: 'Probe this node over SSH instead of this machine (repeatable); ~/.ssh/config applies to HOST.',
      multiple: true,
      helpValue: '[USER@]HOST[:PORT]',
      exclusive: ['facts'],
    }),
    inventory: Flags.string({
      helpGroup: SSH,
      description: 'Probe the hosts in this file over SSH: one [USER@]HOST[:PORT] a line, or an Ansible INI or YAML inventory (repeatable).',
      multiple: true,
      helpValue: 'FILE',
      exclusive: ['facts'],
    }),
    ...sshFlags,
    timeout: durationFlag({helpGroup: NODE_PROBES, description: 'How long the collector may run; over SSH, per node, from connecting to the end of parsing its output: 90s, 2m, or a number of seconds.', default: 60, min: 1}),
    ...checkFlags,
    ...configFlags,
  }

  async run(): Promise<Report> {
    return this.checkNodes(await this.parseNode(), runNodeCheck)
  }

  protected parseNode() {
    return this.parse(Node)
  }

  /** The nodes the flags name checked by `check` (default: the pre-switch node rules), and the report emitted. */
  protected async checkNodes(parsed: Awaited<ReturnType<Node['parseNode']>>, check: (options: NodeCheckOptions) => Promise<Report>): Promise<Report> {
    const {flags} = parsed
    const format = this.stdoutFormat(parsed)
    const outputs = await parseOutputs(flags.output ?? [])
    const location = sarifLocation(flags['sarif-location'], format, outputs)
    const ssh = nodeSshProbe(flags)
    const report = await check({
      ...checkOptions(flags),
      factsPaths: flags.facts ?? [],
      ...(ssh ? {ssh} : {}),
      timeoutSeconds: flags.timeout,
      progress: this.progress(),
    })
    return this.emitReport(report, format, outputs, location, this.detailsAsked(flags))
  }
}
