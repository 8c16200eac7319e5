/**
 * The node pool a Node belongs to, from the label its platform or autoscaler sets (domain sheet
 * §5.2), else its role: nodes of one pool share an image and a configuration, so they switch as one wave.
 */
import type {NodePool} from '../contract/report.js'

/** Labels that name a node pool, in the order they are believed when a node has several, with what the plan calls such a pool. */
export const POOL_LABELS: ReadonlyArray<{label: string; title: string}> = [
  {label: 'eks.amazonaws.com/nodegroup', title: 'EKS node group'},
  {label: 'karpenter.sh/nodepool', title: 'Karpenter NodePool'},
  {label: 'kubernetes.azure.com/agentpool', title: 'AKS agent pool'},
  {label: 'cloud.google.com/gke-nodepool', title: 'GKE node pool'},
  {label: 'kops.k8s.io/instancegroup', title: 'kOps instance group'},
  {label: 'alibabacloud.com/nodepool-id', title: 'ACK node pool'},
  {label: 'tke.cloud.tencent.com/nodepool-id', title: 'TKE node pool'},
  {label: 'cce.cloud.com/cce-nodepool', title: 'CCE node pool'},
]

export const ROLE_LABEL_PREFIX = 'node-role.kubernetes.io/'
export const CONTROL_PLANE_ROLES: readonly string[] = ['control-plane', 'master']

/** The node's pool: the first pool label it has, else its first role that is not the control plane's. */
export function nodePoolOf(labels: Readonly<Record<string, string>>): NodePool | undefined {
  for (const {label} of POOL_LABELS) {
    if (labels[label]) return {label, name: labels[label]}
  }

  const role = Object.keys(labels)
    .filter((label) => label.startsWith(ROLE_LABEL_PREFIX) && !CONTROL_PLANE_ROLES.includes(label.slice(ROLE_LABEL_PREFIX.length)))
    .toSorted()[0]
  return role ? {label: role, name: role.slice(ROLE_LABEL_PREFIX.length)} : undefined
}
