/** The flags `verify node` and `verify cluster` add to those of `node` and `cluster`, and what they make of them. */
import * as Flags from '@oclif/core/flags'

import type {VerifyOptions} from '../services/verify-check.js'
import {UsageError} from '../util/errors.js'
import {durationFlag} from './duration.js'
import {NODE_PROBES, RULES} from './flag-groups.js'

/** --watch waits this long at most: a run in a CI job or a terminal, not a monitor. */
const MAX_WATCH_SECONDS = 600

export const verifyFlags = {
  // `node` and `cluster` gate on the findings new since a baseline; verify compares each node with it instead.
  baseline: Flags.string({
    helpGroup: RULES,
    description:
      'A JSON report `node` or `cluster` wrote before the switch, of the same nodes or cluster: each node is also compared with it (other IPVS users flushed, iptables rules, addresses), and the nodes gone and new since are said.',
    helpValue: 'FILE',
  }),
  rollback: Flags.boolean({
    description: 'Verify a rollback instead: kube-proxy runs its old mode (iptables or IPVS) again, its rules are back, and no kube-proxy nftables table is left.',
    default: false,
  }),
  watch: durationFlag({
    helpGroup: NODE_PROBES,
    description: `Read each kube-proxy's metrics twice, DURATION apart (at most ${MAX_WATCH_SECONDS / 60}m), and fail a node whose failed nftables syncs grew in between, or whose last sync of an IP family did not move over more than 60s: verify node runs the collector twice (not with --facts), verify cluster needs --kube-proxy-metrics. Use at least 90s to see a whole sync period.`,
    min: 1,
    max: MAX_WATCH_SECONDS,
  }),
  'allow-not-switched': Flags.boolean({
    description: 'Nodes still running the old mode (not-switched) do not fail the run: mid-rollout, only the nodes switched so far must be verified.',
    default: false,
  }),
}

/**
 * verify reads no configuration file: its per-command sections are keyed by command name, and `node:` would
 * be taken for verify cluster's --node. These stand in for --config and --no-config (so `verify cluster` keeps
 * `cluster`'s flags' shape), hidden, and are not the flags that make a command read one; --config is refused.
 */
export const noConfigFile = {
  config: Flags.string({description: 'Not taken: verify reads no configuration file.', hidden: true}),
  'no-config': Flags.boolean({description: 'Not needed: verify reads no configuration file.', hidden: true, default: false}),
}

/** --config given to verify: refused, never silently ignored. */
export function refuseConfigFile(flags: {config?: string}): void {
  if (flags.config !== undefined) throw new UsageError('--config: verify reads no configuration file', ['Give its flags on the command line.'])
}

/**
 * --watch where it cannot watch: refused (exit 2), never a run that silently read once. It compares two reads of
 * kube-proxy's metrics: two collector runs on the nodes (verify node), or two reads through the pod proxy (verify
 * cluster --kube-proxy-metrics); a bundle is one read.
 */
export function refuseWatch(flags: {facts?: string[]; 'kube-proxy-metrics'?: boolean; rollback: boolean; watch?: number}, command: 'cluster' | 'node'): void {
  if (flags.watch === undefined) return
  if (flags.rollback) throw new UsageError('--watch watches kube-proxy\'s nftables syncs; with --rollback there are none to watch')
  if (flags.facts) {
    throw new UsageError('--watch with --facts: a bundle is one read of the node, and --watch compares two', [
      command === 'node' ? 'Leave out --facts: verify node then runs the collector twice, on this machine or over --ssh/--inventory.' : 'Leave out --facts, and give --kube-proxy-metrics.',
    ])
  }

  if (command === 'cluster' && !flags['kube-proxy-metrics']) throw new UsageError('--watch needs --kube-proxy-metrics: it reads kube-proxy\'s metrics twice through the API server\'s pod proxy', ['Add --kube-proxy-metrics.'])
}

export function verifyOptions(flags: {'allow-not-switched': boolean; rollback: boolean; watch?: number}): VerifyOptions {
  return {direction: flags.rollback ? 'rollback' : 'switch', allowNotSwitched: flags['allow-not-switched'], ...(flags.watch === undefined ? {} : {watchSeconds: flags.watch})}
}

/** What `verify`'s --help says of the states and the exit codes. */
export const VERIFY_DESCRIPTION = [
  'Each node gets one state: verified (kube-proxy runs in nftables mode, or with --rollback its old mode again, and every',
  'check passes), failed (a check failed: it says what, and how to roll the node back), not-switched (it still runs the',
  'mode it was to leave), or unknown (its state could not be seen, and why). An input that cannot be read never makes a',
  'node verified.',
  '',
  'Exit codes:',
  '  0  every node in scope is verified',
  '  2  usage or input error',
  '  3  a node failed, or is not-switched (unless --allow-not-switched)',
  '  5  a node is unknown (unless --allow-incomplete)',
].join('\n')
