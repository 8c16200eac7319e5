/** The fix steps' advice: each remediation line once, and labelled with its nodes when only some need it. */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import type {GatedFinding} from '../../src/contract/finding.js'
import type {NodeGroup} from '../../src/contract/report.js'
import {stepsForFindings} from '../../src/planner/finding-steps.js'

const KEEP = 'Keep this node on iptables or IPVS mode until then.'

function kernelTooOld(node: string, upgrade: string): GatedFinding {
  return {
    rule: 'node/kernel-version',
    title: 'Kernel is 5.13 or newer',
    status: 'fail',
    severity: 'blocker',
    confidence: 'verified',
    subject: {kind: 'Node', name: node},
    message: 'Kernel too old.',
    evidence: {},
    remediation: [upgrade, KEEP],
    references: [],
  }
}

const group = (name: string, nodes: string[]): NodeGroup => ({name, os: name, kernelRelease: null, nodes, blockers: ['node/kernel-version'], warnings: [], unknown: []})

describe('fix steps', () => {
  it('say which nodes a line of advice is for when only some of them need it', () => {
    const findings = [kernelTooOld('rhel-1', 'Move to RHEL 9.'), kernelTooOld('ubuntu-1', 'Move to Ubuntu 22.04.'), kernelTooOld('rhel-2', 'Move to RHEL 9.')]
    const groups = [group('RHEL 8.10', ['rhel-1', 'rhel-2', 'rhel-3']), group('Ubuntu 20.04', ['ubuntu-1'])]
    const [step] = stepsForFindings(findings, groups, new Map(), {clusterRun: true})
    assert.deepEqual(step.actions, ['For RHEL 8.10 (rhel-1, rhel-2): Move to RHEL 9.', KEEP, 'For Ubuntu 20.04 (ubuntu-1): Move to Ubuntu 22.04.'])
  })

  it('leave advice that every node needs as it is, and name subjects that are no node as they are', () => {
    const findings = [kernelTooOld('rhel-1', 'Move to RHEL 9.'), kernelTooOld('rhel-2', 'Move to RHEL 9.')]
    assert.deepEqual(stepsForFindings(findings, [group('RHEL 8.10', ['rhel-1', 'rhel-2'])], new Map(), {clusterRun: true})[0].actions, ['Move to RHEL 9.', KEEP])
    const daemonSet = {...kernelTooOld('x', 'Upgrade Calico.'), subject: {kind: 'DaemonSet', name: 'kube-system/calico-node'}}
    assert.deepEqual(stepsForFindings([daemonSet, kernelTooOld('rhel-1', 'Move to RHEL 9.')], [group('RHEL 8.10', ['rhel-1'])], new Map(), {clusterRun: true})[0].actions, [
      'For DaemonSet kube-system/calico-node: Upgrade Calico.',
      KEEP,
      'For RHEL 8.10 (rhel-1): Move to RHEL 9.',
    ])
  })
})
