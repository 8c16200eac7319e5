import {helpDescription} from '../../cli/help-text.js'
import {withInterrupts} from '../../cli/interrupts.js'
import {noConfigFile, refuseConfigFile, refuseWatch, VERIFY_DESCRIPTION, verifyFlags, verifyOptions} from '../../cli/verify-flags.js'
import type {Report} from '../../contract/report.js'
import {runVerifyNode} from '../../services/verify-check.js'
import Node from '../node.js'

export default class VerifyNode extends Node {
  static summary = 'Verify that nodes switched kube-proxy to nftables mode cleanly (or rolled back cleanly).'

  static description = helpDescription([
    'After kube-proxy restarted in nftables mode on a node: is it running there, in that mode, are its syncs succeeding',
    '(no failure counted, no requested sync left waiting), are its nftables tables and service-ips map there, and are the',
    "old mode's rules gone (kube-proxy's iptables Service chains in either backend and family; kube-ipvs0)? /proxyMode",
    'alone proves only that kube-proxy started. Sources as for `<%= config.bin %> node`: this machine, --facts bundles',
    '(offline, no cluster needed), or --ssh/--inventory. With --watch 90s, the collector runs twice, 90s apart, and a node',
    'whose failed nftables syncs grew in between, or whose last sync of an IP family did not move, fails.',
    '',
    VERIFY_DESCRIPTION,
  ])

  static examples = [
    '<%= config.bin %> verify node',
    '<%= config.bin %> collect | ssh node-1 sudo sh > node-1.facts\n<%= config.bin %> verify node --facts node-1.facts',
    '<%= config.bin %> verify node --ssh root@10.0.0.11 --json',
    '<%= config.bin %> verify node --ssh root@10.0.0.11 --watch 90s',
    '<%= config.bin %> verify node --rollback --facts node-1.facts',
  ]

  static flags = {...Node.flags, ...noConfigFile, ...verifyFlags}

  async run(): Promise<Report> {
    const parsed = await this.parse(VerifyNode)
    const {flags} = parsed
    refuseConfigFile(flags)
    refuseWatch(flags, 'node')
    const check = (signal?: AbortSignal) => this.checkNodes(parsed, (options) => runVerifyNode({...options, ...verifyOptions(flags), ...(signal ? {signal} : {})}))
    // --watch waits between its two collector runs: a signal ends the wait (exit 130), as verify cluster's.
    return flags.watch === undefined ? check() : withInterrupts(check)
  }
}
