/**
 * The checks whose facts only a flag of `verify` provides (src/facts/catalog.ts, providedBy) run only with it:
 * the comparisons with a pre-switch report with --baseline, the comparison of two reads with --watch. In process:
 * `verify node` on the captured nftables bundle, and the rules `verify cluster` loads.
 */
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'

import type {GatePolicy} from '../../src/planner/verdict.js'
import {loadVerifyEngine, runVerifyNode} from '../../src/services/verify-check.js'
import {CAPTURES_DIR} from '../helpers/captured-bundles.js'
import {RULE_FIXTURES} from '../helpers/rule-fixtures.js'

const POLICY: GatePolicy = {failOn: 'blocker', allowIncomplete: false}
const CHECK = {rulePaths: [], skip: [], severity: new Map(), policy: POLICY}
const VERIFY_SWITCH = {direction: 'switch', allowNotSwitched: false} as const
/** `node --json` of the captured iptables bundle, as it is. */
const IPTABLES_REPORT = join(RULE_FIXTURES, 'baseline-ipvs-users', 'pass.no-other-ipvs-users.baseline.json')

const BASELINE_CHECKS = ['verify/baseline-iptables-rules', 'verify/baseline-ipvs-users', 'verify/baseline-nodeport-addresses']
const WATCH_CHECK = 'verify/sync-watch'

async function verifyNodeChecks(baselinePath?: string): Promise<Record<string, {status: string}>> {
  const report = await runVerifyNode({...CHECK, ...VERIFY_SWITCH, factsPaths: [join(CAPTURES_DIR, 'bundle-nftables.facts')], timeoutSeconds: 10, ...(baselinePath ? {gateFiles: {baselinePath}} : {})})
  return report.nodes[0].checks
}

async function verifyClusterRules(watchSeconds?: number): Promise<string[]> {
  const engine = await loadVerifyEngine(CHECK, {...VERIFY_SWITCH, ...(watchSeconds === undefined ? {} : {watchSeconds})})
  return engine.rules.map((rule) => rule.id)
}

describe('checks only a flag of verify makes possible', () => {
  it('verify node: the comparisons with a report are left out without --baseline, and run (pass, on the captured iptables node\'s report) with it', async () => {
    const without = await verifyNodeChecks()
    for (const rule of BASELINE_CHECKS) assert.equal(without[rule], undefined, rule)
    assert.equal(without['verify/kube-proxy-tables'].status, 'pass')

    const withBaseline = await verifyNodeChecks(IPTABLES_REPORT)
    for (const rule of BASELINE_CHECKS) assert.equal(withBaseline[rule]?.status, 'pass', rule)
    assert.equal(withBaseline[WATCH_CHECK], undefined, 'a baseline is no watch')
  })

  it('verify cluster: the comparison of two reads is left out without --watch, and run with it; the comparisons with a report are not, without --baseline', async () => {
    const without = await verifyClusterRules()
    assert.ok(!without.includes(WATCH_CHECK))
    assert.ok(without.includes('verify/kube-proxy-tables'))

    const watched = await verifyClusterRules(90)
    assert.ok(watched.includes(WATCH_CHECK))
    for (const rule of BASELINE_CHECKS) assert.ok(!watched.includes(rule), rule)
  })
})
