/** The rollback-readiness step says how each readiness check came out, on the subjects it is about. */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {exampleClusterReport} from '../helpers/reports.js'

describe('rollback readiness', () => {
  it('counts a node check on the nodes, not on the cluster finding that sums them up, and says a cluster check as it came out', async () => {
    const report = await exampleClusterReport()
    const step = report.plan.steps.find((planned) => planned.id === 'prerequisites/rollback-readiness')!
    const nodes = '3 (master1.taikang1.local, node1.taikang1.local, node2.taikang1.local)'
    assert.deepEqual(step.actions.slice(0, 4), [
      `node/rollback-target: could not be checked on ${nodes}.`,
      'cluster/rollback-cleanup: passes.',
      'cluster/rollback-config: passes.',
      `node/native-nft-rules: could not be checked on ${nodes}.`,
    ])
  })
})
