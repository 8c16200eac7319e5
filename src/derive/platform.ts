/** The Kubernetes version and the platform (distribution or managed service) the cluster runs. */
import semver from 'semver'

import type {FactSet, UnknownFact} from '../facts/fact-set.js'
import type {KeptNode} from '../sources/cluster/kept-objects.js'
import {readNodeLabels} from '../sources/cluster/read-fields.js'
import type {ClusterSnapshot} from '../sources/cluster/snapshot.js'
import {containersOf} from './components.js'
import {SnapshotReads} from './snapshot-reads.js'

/** The Kubernetes version the cluster's API server reports (v1.33.5-eks-3025e55 is 1.33.5); null when unread or unparseable. */
export function kubernetesVersion(snapshot: ClusterSnapshot): null | semver.SemVer {
  return semver.coerce(gitVersionOf(new SnapshotReads(snapshot)))
}

function gitVersionOf(resources: SnapshotReads): string {
  return String(resources.items('version')[0]?.gitVersion ?? '')
}

/** The API server's version, and the version the migration is planned for (--target-version). */
export function deriveVersionFacts(cluster: FactSet, resources: SnapshotReads, targetVersion: string | undefined): void {
  resources.derive(cluster, ['version'], ['cluster.version', 'cluster.gitVersion'], () => {
    const gitVersion = gitVersionOf(resources)
    cluster.set('cluster.gitVersion', gitVersion)
    const version = semver.coerce(gitVersion)
    if (version) cluster.set('cluster.version', version.version)
    else cluster.unknown('cluster.version', 'unparseable', `gitVersion "${gitVersion}"`)
  })
  if (targetVersion) cluster.set('cluster.targetVersion', targetVersion)
  else cluster.unknown('cluster.targetVersion', 'not-collected', 'no --target-version given')
}

/** The platform, which the nodes tell first: unknown when they could not be read. */
export function derivePlatformFact(cluster: FactSet, resources: SnapshotReads): void {
  resources.derive(cluster, ['nodes'], ['cluster.platform'], () => {
    const platform = detectPlatform(resources.items('nodes'), resources)
    if (typeof platform === 'string') cluster.set('cluster.platform', platform)
    else cluster.unknown('cluster.platform', platform.reason, platform.detail)
  })
}

/**
 * The platform, from providerIDs, labels and versions (domain sheet §5.2); unknown with the reason
 * when an object that could tell it (OpenShift's network, kube-proxy's ConfigMap) could not be read.
 */
export function detectPlatform(nodes: readonly KeptNode[], resources: SnapshotReads): string | UnknownFact {
  const gitVersion = gitVersionOf(resources)
  const node: KeptNode | undefined = nodes[0]
  const providerID = String(node?.spec?.providerID ?? '')
  const labels = Object.keys(readNodeLabels(node?.metadata?.labels)).join(' ')
  const kubelet = String(node?.status?.nodeInfo?.kubeletVersion ?? '')
  const osImage = String(node?.status?.nodeInfo?.osImage ?? '')
  const openshiftNetwork = resources.object('openshiftNetworks', 'cluster')
  if (openshiftNetwork.object || /node\.openshift\.io/.test(labels)) return 'openshift'
  if (openshiftNetwork.failure) return openshiftNetwork.failure
  if (providerID.startsWith('k3s://') || /\+k3s/.test(kubelet) || /\+k3s/.test(gitVersion)) return 'k3s'
  if (providerID.startsWith('rke2://') || /\+rke2/.test(kubelet)) return 'rke2'
  // k0s builds its kubelet and API server as v1.35.1+k0s, and runs kube-proxy on its own image.
  if (/\+k0s/.test(kubelet) || /\+k0s/.test(gitVersion) || resources.items('daemonSets').some((daemonSet) => containersOf(daemonSet).some((container) => container.image.includes('/k0sproject/kube-proxy')))) return 'k0s'
  // KKP's machine deployments label their nodes with the user cluster's and project's IDs (a heuristic: nothing in a user cluster names KKP).
  if (/(^| )system\/cluster( |$)/.test(labels) && /(^| )system\/project( |$)/.test(labels)) return 'kubermatic'
  if (/-eks-/.test(gitVersion) || /eks\.amazonaws\.com\//.test(labels)) return 'eks'
  if (/kubernetes\.azure\.com\//.test(labels) || providerID.startsWith('azure://')) return 'aks'
  if (/-gke\./.test(gitVersion) || /cloud\.google\.com\/gke/.test(labels)) return 'gke'
  if (/cce\.cloud\.com\//.test(labels) || /-CCE/.test(kubelet)) return 'cce'
  if (/alibabacloud\.com\/|ack\.aliyun\.com/.test(labels)) return 'ack'
  if (providerID.startsWith('qcloud://') || /tke\.cloud\.tencent\.com\//.test(labels)) return 'tke'
  if (osImage.startsWith('Talos')) return 'talos'
  if (/kops\.k8s\.io\//.test(labels)) return 'kops'
  if (providerID.startsWith('kind://')) return 'kind'
  const kubeadmConfig = resources.object('configMaps', 'kube-proxy', 'kube-system')
  if (kubeadmConfig.failure) return kubeadmConfig.failure
  return kubeadmConfig.object ? 'kubeadm' : 'unknown'
}
