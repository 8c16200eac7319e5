import type {GatedFinding} from '../contract/finding.js'
import type {NodeGroup, NodeRow} from '../contract/report.js'
import {needsStep} from './plan-input.js'

/** Nodes alike in OS and kernel, each with the rules that fail or cannot decide on its nodes. */
export function groupNodes(nodes: readonly NodeRow[], findings: readonly GatedFinding[]): NodeGroup[] {
  const groups = new Map<string, NodeGroup>()
  const groupOfNode = new Map<string, NodeGroup>()
  for (const node of nodes) {
    const os = node.os.prettyName ?? node.os.id
    const name = `${os ?? 'unknown OS'}, kernel ${node.kernelRelease ?? 'unknown'}`
    let group = groups.get(name)
    if (!group) {
      group = {name, os, kernelRelease: node.kernelRelease, nodes: [], blockers: [], warnings: [], unknown: []}
      groups.set(name, group)
    }

    group.nodes.push(node.name)
    groupOfNode.set(node.name, group)
  }

  for (const finding of findings) {
    const group = finding.subject.kind === 'Node' ? groupOfNode.get(finding.subject.name) : undefined
    if (!group || !needsStep(finding)) continue
    const list = finding.status === 'unknown' ? group.unknown : (finding.severity === 'blocker' ? group.blockers : group.warnings)
    if (!list.includes(finding.rule)) list.push(finding.rule)
  }

  return [...groups.values()].toSorted((a, b) => b.blockers.length - a.blockers.length || b.nodes.length - a.nodes.length || a.name.localeCompare(b.name))
}
