import {RESOURCES} from './resources.js'

/** The one namespace every cluster has, where Roles can be bound without creating anything. */
const ALWAYS_THERE = 'kube-system'

/** The manifest, derived from the table of what the probe reads, so the two cannot drift apart. */
export function rbacManifest(name: string, subject: string): string {
  const clusterRules: string[] = ['  - nonResourceURLs: ["/version"]\n    verbs: ["get"]']
  const namespaced = new Map<string, string[]>()
  for (const resource of RESOURCES) {
    if (resource.name === 'version') continue
    if (resource.kind === 'list' && !resource.namespace) {
      clusterRules.push(`  - apiGroups: ["${resource.apiGroup}"]\n    resources: ["${resource.resource}"]\n    verbs: ["list"]`)
    } else if (resource.kind === 'list') {
      namespaced.set(resource.namespace!, [...(namespaced.get(resource.namespace!) ?? []), `  - apiGroups: ["${resource.apiGroup}"]\n    resources: ["${resource.resource}"]\n    verbs: ["list"]`])
    } else if (resource.objects.every((object) => !object.namespace)) {
      clusterRules.push(`  - apiGroups: ["${resource.apiGroup}"]\n    resources: ["${resource.resource}"]\n    resourceNames: [${resource.objects.map((object) => `"${object.name}"`).join(', ')}]\n    verbs: ["get"]`)
    } else {
      // A Role lives in a namespace that must exist; kube-system always does. A name read in any other
      // namespace (kube-flannel) goes into the ClusterRole, still by name, so the manifest applies anywhere.
      const elsewhere = resource.objects.filter((object) => object.namespace !== ALWAYS_THERE)
      if (elsewhere.length > 0) {
        const names = [...new Set(elsewhere.map((object) => `"${object.name}"`))]
        clusterRules.push(`  - apiGroups: ["${resource.apiGroup}"]\n    resources: ["${resource.resource}"]\n    resourceNames: [${names.join(', ')}]\n    verbs: ["get"]`)
      }

      for (const namespace of new Set(resource.objects.filter((object) => object.namespace === ALWAYS_THERE).map((object) => object.namespace!))) {
        const names = resource.objects.filter((object) => object.namespace === namespace).map((object) => `"${object.name}"`)
        namespaced.set(namespace, [
          ...(namespaced.get(namespace) ?? []),
          `  - apiGroups: ["${resource.apiGroup}"]\n    resources: ["${resource.resource}"]\n    resourceNames: [${names.join(', ')}]\n    verbs: ["get"]`,
        ])
      }
    }
  }

  const documents = [
    `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${name}\nrules:\n${clusterRules.join('\n')}`,
    `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: ${name}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: ${name}\nsubjects:\n${subject}`,
  ]
  for (const [namespace, rules] of namespaced) {
    documents.push(
      `apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\nrules:\n${rules.join('\n')}`,
      `apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: ${name}\nsubjects:\n${subject}`,
    )
  }

  return documents.join('\n---\n')
}
