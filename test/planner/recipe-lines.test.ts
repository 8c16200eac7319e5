/**
 * A recipe line for one CNI is in a cluster's plan where that CNI switches with kube-proxy, not where
 * another does, and stays where the CNIs could not be read (DaemonSets forbidden). Written by hand from
 * platforms/generic.yaml's rollback step and platforms/kubeadm.yaml's persist-mode step.
 */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import type {Component} from '../../src/derive/components.js'
import {buildPlan} from '../../src/planner/plan.js'
import {loadRecipes} from '../../src/services/recipe-catalog.js'
import {KUBEADM_KUBE_PROXY, KUBEADM_SUMMARY} from '../helpers/plan-inputs.js'

const recipes = await loadRecipes()
const cni = (name: string, namespace: string, dataplane?: string): Component => ({name, role: 'cni', daemonSet: {namespace, name: `${name}-node`}, image: `${name}:1`, ...(dataplane ? {dataplane} : {}), replacesKubeProxy: false})
const FLANNEL = cni('flannel', 'kube-flannel', 'iptables')
const CALICO = cni('calico', 'kube-system', 'Iptables')
const FORBIDDEN = {reason: 'permission-denied' as const, detail: 'daemonsets is forbidden'}

/** The kubeadm plan's lines of one step, for a cluster running these CNIs. */
function stepLines(id: string, cnis: Component[], unlistedDaemonSets?: typeof FORBIDDEN): string[] {
  const plan = buildPlan({findings: [], nodes: [], rulePlans: new Map(), cluster: {summary: KUBEADM_SUMMARY, kubeProxy: {...KUBEADM_KUBE_PROXY, mode: 'ipvs'}, cnis, unlistedDaemonSets, recipes}})
  const step = plan.steps.find((candidate) => candidate.id === id)
  assert.ok(step, `the plan has ${id}`)
  return [...step.commands, ...step.verify, ...step.undo]
}

const CALICO_BACKUP = /calico-node-daemonset\.backup\.yaml/
const FLANNEL_BACKUP = /kube-flannel-cfg\.backup\.yaml/
const CALICO_DATAPLANE = /Calico on its iptables dataplane must move to its nftables dataplane/

describe('recipe lines for a CNI', () => {
  it('the rollback restores flannel\'s switch on a flannel cluster, and names no Calico backup', () => {
    const lines = stepLines('rollback/rollback', [FLANNEL]).join('\n')
    assert.match(lines, FLANNEL_BACKUP)
    assert.doesNotMatch(lines, CALICO_BACKUP)
  })

  it('the rollback restores Calico\'s switch on a Calico manifest cluster, and names no flannel backup', () => {
    const lines = stepLines('rollback/rollback', [CALICO]).join('\n')
    assert.match(lines, CALICO_BACKUP)
    assert.doesNotMatch(lines, FLANNEL_BACKUP)
  })

  it('the rollback names neither where flannel already runs nftables', () => {
    const lines = stepLines('rollback/rollback', [cni('flannel', 'kube-flannel', 'nftables')]).join('\n')
    assert.doesNotMatch(lines, CALICO_BACKUP)
    assert.doesNotMatch(lines, FLANNEL_BACKUP)
  })

  it('the rollback names both where the DaemonSets could not be listed', () => {
    const lines = stepLines('rollback/rollback', [], FORBIDDEN).join('\n')
    assert.match(lines, CALICO_BACKUP)
    assert.match(lines, FLANNEL_BACKUP)
  })

  it('the rollback keeps flannel\'s where its dataplane could not be read (its ConfigMap forbidden)', () => {
    const lines = stepLines('rollback/rollback', [{...cni('flannel', 'kube-flannel'), unread: {dataplane: FORBIDDEN}}]).join('\n')
    assert.match(lines, FLANNEL_BACKUP)
    assert.doesNotMatch(lines, CALICO_BACKUP)
  })

  it('kubeadm\'s persist-mode step says Calico must move with kube-proxy only where Calico\'s iptables dataplane runs, or the CNIs are not known', () => {
    assert.doesNotMatch(stepLines('configure/persist-mode', [FLANNEL]).join('\n'), CALICO_DATAPLANE)
    assert.match(stepLines('configure/persist-mode', [CALICO]).join('\n'), CALICO_DATAPLANE)
    assert.match(stepLines('configure/persist-mode', [], FORBIDDEN).join('\n'), CALICO_DATAPLANE)
    assert.match(stepLines('configure/persist-mode', [FLANNEL]).join('\n'), /Installed with Kubespray/)
  })
})
