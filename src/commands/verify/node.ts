import {helpDescription} from '../../cli/help-text.js'
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
    '(offline, no cluster needed), or --ssh/--inventory.',
    '',
    VERIFY_DESCRIPTION,
  ])

  static examples = [
    '<%= config.bin %> verify node',
    '<%= config.bin %> collect | ssh node-1 sudo sh > node-1.facts\n<%= config.bin %> verify node --facts node-1.facts',
    '<%= config.bin %> verify node --ssh root@10.0.0.11 --json',
    '<%= config.bin %> verify node --rollback --facts node-1.facts',
  ]

  static flags = {...Node.flags, ...noConfigFile, ...verifyFlags}

  async run(): Promise<Report> {
    const parsed = await this.parse(VerifyNode)
    const {flags} = parsed
    refuseConfigFile(flags)
    refuseWatch(flags, 'node')
    return this.checkNodes(parsed, (options) => runVerifyNode({...options, ...verifyOptions(flags)}))
  }
}
