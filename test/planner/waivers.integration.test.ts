import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {runCli} from '../helpers/cli.js'
import {FIXTURES} from '../helpers/paths.js'
import {scratchFiles} from '../helpers/scratch.js'

/** Its kernel (4.18) fails node/kernel-version, a blocker: exit 3 without waivers. */
const RHEL8_BUNDLE = join(FIXTURES, 'bundles', 'rhel-8.10-firewalld.facts')
const RHEL8_NODE = 'rhel8-worker-07.corp.example'
const file = scratchFiles('kpx-waivers-cli-')

describe('kpx-check node --waivers', () => {
  async function check(waivers: string): Promise<{code: null | number; report: Report}> {
    const {code, stdout, stderr} = await runCli(['node', '--facts', RHEL8_BUNDLE, '--json', '--waivers', waivers])
    assert.ok(stdout.startsWith('{'), stderr)
    return {code, report: JSON.parse(stdout) as Report}
  }

  it('a waived blocker is reported as waived, not counted: no-go (3) becomes go (0)', async () => {
    const path = file('active.yaml', `waivers:\n  - rule: node/kernel-version\n    subject: node/${RHEL8_NODE}\n    reason: Kernel upgrade booked as CHG-1234\n    expires: 2099-12-31\n`)
    const {code, report} = await check(path)
    assert.equal(code, 0)
    assert.equal(report.verdict, 'go')
    assert.equal(report.summary.blockers, 0)
    assert.equal(report.summary.waived, 1)
    const waived = report.findings.find((item) => item.rule === 'node/kernel-version')!
    assert.equal(waived.status, 'fail', 'the finding itself is unchanged')
    assert.deepEqual(waived.waiver, {reason: 'Kernel upgrade booked as CHG-1234', expires: '2099-12-31', expired: false, source: `${path}:2`})
    assert.deepEqual(report.waivers, {file: path, applied: 1, expired: 0, unused: []})
    assert.ok(!report.plan.steps.some((step) => step.rules.includes('node/kernel-version')), 'an accepted risk needs no step')
  })

  it('an expired waiver counts again and says so: exit 3', async () => {
    const path = file('expired.yaml', 'waivers:\n  - rule: node/kernel-version\n    reason: Kernel upgrade booked as CHG-1234\n    expires: 2020-01-31\n')
    const {code, report} = await check(path)
    assert.equal(code, 3)
    assert.equal(report.summary.blockers, 1)
    assert.equal(report.findings.find((item) => item.rule === 'node/kernel-version')?.waiver?.expired, true)
    // The one screen counts it; the long form says which waiver and when.
    const screen = await runCli(['node', '--facts', RHEL8_BUNDLE, '--waivers', path])
    assert.match(screen.stdout, /: 0 finding\(s\) waived, 1 with an expired waiver$/m)
    const text = await runCli(['node', '--facts', RHEL8_BUNDLE, '--waivers', path, '--details'])
    assert.match(text.stdout, /waiver expired on 2020-01-31/)
  })

  it('a broken waivers file is a usage error (exit 2) before anything runs', async () => {
    const path = file('broken.yaml', 'waivers:\n  - rule: node/no-such-rule\n    reason: Kernel upgrade booked\n')
    const {code, stderr} = await runCli(['node', '--facts', RHEL8_BUNDLE, '--waivers', path])
    assert.equal(code, 2)
    assert.match(stderr, /no rule "node\/no-such-rule"/)
  })
})
