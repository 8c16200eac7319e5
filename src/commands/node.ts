import {Flags} from '@oclif/core'

import {checkFlags, EXIT_CODES_DESCRIPTION, gatePolicy, KpxCommand} from '../base-command.js'
import {progressMode} from '../report/progress.js'
import {renderText} from '../report/text.js'
import type {Report} from '../report/report.js'
import {runNodeCheck} from '../services/node-check.js'
import {parseSeverityOverrides} from '../services/rule-catalog.js'

export default class Node extends KpxCommand {
  static summary = 'Check whether nodes can run kube-proxy in nftables mode.'

  static description = [
    'Without --facts, runs the read-only collector on this machine. With --facts, evaluates bundles written by',
    '`kpx-check collect` on other nodes (a file, a folder of bundles, or - for standard input; repeatable):',
    'every bundle is one node, and all of them make one report.',
    '',
    'Run as root to see everything: without root, the root-only checks (nft -c, rulesets, firewall policies)',
    'are reported as unknown with reason permission-denied.',
    '',
    EXIT_CODES_DESCRIPTION,
  ].join('\n')

  static examples = [
    '<%= config.bin %> node',
    '<%= config.bin %> node --json > report.json',
    'kpx-check collect | ssh node-1 sudo sh > facts/node-1.facts\n<%= config.bin %> node --facts facts/',
    '<%= config.bin %> node --facts node-1.facts --skip node/os-distro --severity node/host-firewall=blocker',
  ]

  static flags = {
    facts: Flags.string({
      description: 'Evaluate facts bundles instead of this machine: a file, a folder of bundles, or - (repeatable).',
      multiple: true,
      helpValue: 'PATH',
    }),
    timeout: Flags.integer({description: 'Seconds the local collector may run.', default: 60, min: 1}),
    ...checkFlags,
  }

  async run(): Promise<Report> {
    const {flags} = await this.parse(Node)
    const report = await runNodeCheck({
      factsPaths: flags.facts ?? [],
      rulePaths: flags.rules ?? [],
      skip: flags.skip ?? [],
      severity: parseSeverityOverrides(flags.severity ?? []),
      policy: gatePolicy(flags),
      timeoutSeconds: flags.timeout,
      progress: progressMode({json: this.jsonEnabled(), stderrIsTTY: Boolean(process.stderr.isTTY)}),
    })
    process.exitCode = report.exitCode
    if (!this.jsonEnabled()) this.log(renderText(report))
    return report
  }
}
