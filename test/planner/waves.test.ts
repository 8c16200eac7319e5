/** Waves by node pool: which nodes go together, in what order, with which canary, and selectors that pick exactly a wave's nodes. */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import type {NodeCheck, NodePool, NodeReport, Verdict} from '../../src/contract/report.js'
import {planWaves} from '../../src/planner/waves.js'
import {labelSelector} from '../helpers/apiserver-selectors.js'

const KERNEL_FAILS: Record<string, NodeCheck> = {'node/kernel-version': {status: 'fail', severity: 'blocker', message: 'Kernel 4.18 is older than 5.13.'}}
const NFT_UNKNOWN: Record<string, NodeCheck> = {'node/nft-version': {status: 'unknown', severity: 'blocker', message: 'Cannot tell the host nft version.', reason: 'not-collected'}}

/** A node with its labels (what a selector sees) and what kpx-check made of them (its pool, control plane or not). */
function node(name: string, labels: Record<string, string>, verdict: Verdict = 'go', checks: Record<string, NodeCheck> = {}, pool?: NodePool) {
  const controlPlane = 'node-role.kubernetes.io/control-plane' in labels || 'node-role.kubernetes.io/master' in labels
  const report: NodeReport = {name, source: 'api', origin: 'test', kernelRelease: '6.1.0', os: {id: 'amzn', prettyName: null, versionId: '2023'}, nftVersion: null, reachable: true, controlPlane, verdict, checks, ...(pool ? {pool} : {})}
  return {report, labels: {'kubernetes.io/os': 'linux', ...labels}}
}

const EKS = 'eks.amazonaws.com/nodegroup'
const KARPENTER = 'karpenter.sh/nodepool'
const NODES = [
  node('a', {[EKS]: 'ng-1', 'node-role.kubernetes.io/worker': ''}, 'go', {}, {label: EKS, name: 'ng-1'}),
  node('b', {[EKS]: 'ng-1'}, 'no-go', KERNEL_FAILS, {label: EKS, name: 'ng-1'}),
  node('c', {[KARPENTER]: 'spot'}, 'go', {}, {label: KARPENTER, name: 'spot'}),
  // Both labels: the node group's is believed, and the Karpenter wave's selector must leave the node out.
  node('d', {[EKS]: 'ng-2', [KARPENTER]: 'spot'}, 'incomplete', NFT_UNKNOWN, {label: EKS, name: 'ng-2'}),
  node('e', {'node-role.kubernetes.io/infra': '', 'node-role.kubernetes.io/worker': ''}, 'go', {}, {label: 'node-role.kubernetes.io/infra', name: 'infra'}),
  node('f', {'node-role.kubernetes.io/worker': ''}, 'go', {}, {label: 'node-role.kubernetes.io/worker', name: 'worker'}),
  node('g', {}),
  node('cp-1', {'node-role.kubernetes.io/control-plane': '', 'node-role.kubernetes.io/master': ''}),
  node('cp-2', {'node-role.kubernetes.io/master': ''}),
]

describe('waves by node pool', () => {
  const waves = planWaves(NODES.map(({report}) => report))

  it('one wave per pool, the most ready and smallest first, nodes in no pool next to last, the control plane last', () => {
    assert.deepEqual(
      waves.map((wave) => [wave.name, wave.nodes]),
      [
        ['Karpenter NodePool spot', ['c']],
        ['role infra', ['e']],
        ['role worker', ['f']],
        ['EKS node group ng-1', ['a', 'b']],
        ['EKS node group ng-2', ['d']],
        ['nodes in no pool', ['g']],
        ['control plane', ['cp-1', 'cp-2']],
      ],
    )
  })

  it('says per wave which nodes are ready and what blocks the others; the canary is a ready node, never an unchecked one', () => {
    const ng1 = waves.find((wave) => wave.name === 'EKS node group ng-1')!
    assert.deepEqual([ng1.ready, ng1.blocked, ng1.undecided, ng1.canary], [['a'], [{node: 'b', rules: ['node/kernel-version']}], [], 'a'])
    const ng2 = waves.find((wave) => wave.name === 'EKS node group ng-2')!
    assert.deepEqual([ng2.ready, ng2.blocked, ng2.undecided, ng2.canary], [[], [], [{node: 'd', rules: ['node/nft-version']}], null])
  })

  it('a node seen running nftables has switched: neither ready nor the canary', () => {
    const switched = {...node('s', {[EKS]: 'ng-3'}, 'go', {}, {label: EKS, name: 'ng-3'}).report, proxyMode: {running: 'nftables', evidence: '/proxyMode answered nftables'}}
    const [wave] = planWaves([switched, node('t', {[EKS]: 'ng-3'}, 'go', {}, {label: EKS, name: 'ng-3'}).report])
    assert.deepEqual([wave.switched, wave.ready, wave.canary], [['s'], ['t'], 't'])
  })

  it('no canary where every node is blocked, and a waived blocker blocks nothing', () => {
    const waived = {'node/kernel-version': {...KERNEL_FAILS['node/kernel-version'], waiver: {reason: 'accepted', expired: false, source: 'w.yaml:2'}}}
    const [onlyBlocked] = planWaves([node('x', {[EKS]: 'old'}, 'no-go', KERNEL_FAILS, {label: EKS, name: 'old'}).report])
    assert.deepEqual([onlyBlocked.canary, onlyBlocked.ready], [null, []])
    const [accepted] = planWaves([node('y', {[EKS]: 'old'}, 'go', waived, {label: EKS, name: 'old'}).report])
    assert.deepEqual([accepted.canary, accepted.ready, accepted.blocked], ['y', ['y'], []])
  })

  it('each selector picks exactly its wave\'s nodes; the control plane (control-plane, master or both) is named instead', () => {
    for (const wave of waves) {
      const picked = wave.selector === null ? [] : NODES.filter(({report, labels}) => labelSelector(wave.selector!)({name: report.name, namespace: '', labels, fields: {}})).map(({report}) => report.name)
      assert.deepEqual(picked, wave.name === 'control plane' ? [] : wave.nodes, `${wave.name}: ${wave.selector}`)
    }

    assert.equal(waves.find((wave) => wave.name === 'role worker')?.selector, 'node-role.kubernetes.io/worker,!karpenter.sh/nodepool,!node-role.kubernetes.io/infra,!eks.amazonaws.com/nodegroup,!node-role.kubernetes.io/control-plane,!node-role.kubernetes.io/master')
  })

  it('a pool name no label may have gets no selector: no shell can be handed it', () => {
    const [hostile] = planWaves([node('z', {}, 'go', {}, {label: EKS, name: "ng';touch PWNED;'"}).report])
    assert.equal(hostile.selector, null)
  })
})
