import {type Resource, RESOURCES} from './resources.js'

/** The one namespace every cluster has, where Roles can be bound without creating anything. */
const ALWAYS_THERE = 'kube-system'

/** A YAML flow list of strings, each in double quotes. */
const quoted = (values: readonly string[]) => values.map((value) => `"${value}"`).join(', ')

/** One rule of a Role or ClusterRole: the API group and resource, the object names it is limited to, the verbs. */
function rule(apiGroup: string, resource: string, verbs: readonly string[], names?: readonly string[]): string {
  const limited = names ? `\n    resourceNames: [${quoted([...new Set(names)])}]` : ''
  return `  - apiGroups: ["${apiGroup}"]\n    resources: ["${resource}"]${limited}\n    verbs: [${quoted(verbs)}]`
}

/** A rule for a resource the checks read. */
function ruleYaml(resource: Resource, verb: 'get' | 'list', names?: readonly string[]): string {
  return rule(resource.apiGroup, resource.resource, [verb], names)
}

/** A Role in `namespace`, or without one a ClusterRole, with these rules, and its binding to the subject. */
function roleAndBinding(role: string, subject: string, rules: readonly string[], namespace?: string): string[] {
  const kind = namespace === undefined ? 'ClusterRole' : 'Role'
  const metadata = `metadata:\n  name: ${role}${namespace === undefined ? '' : `\n  namespace: ${namespace}`}`
  return [
    `apiVersion: rbac.authorization.k8s.io/v1\nkind: ${kind}\n${metadata}\nrules:\n${rules.join('\n')}`,
    `apiVersion: rbac.authorization.k8s.io/v1\nkind: ${kind}Binding\n${metadata}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ${kind}\n  name: ${role}\nsubjects:\n${subject}`,
  ]
}

/** The manifest, derived from the table of what the probe reads, so the two cannot drift apart. */
export function rbacManifest(name: string, subject: string): string {
  const clusterRules: string[] = ['  - nonResourceURLs: ["/version"]\n    verbs: ["get"]']
  const namespaced = new Map<string, string[]>()
  const addNamespaced = (namespace: string, rule: string) => namespaced.set(namespace, [...(namespaced.get(namespace) ?? []), rule])
  for (const resource of RESOURCES) {
    if (resource.name === 'version') continue
    if (resource.kind === 'list') {
      if (resource.namespace) addNamespaced(resource.namespace, ruleYaml(resource, 'list'))
      else clusterRules.push(ruleYaml(resource, 'list'))
      continue
    }

    // A Role lives in a namespace that must exist; kube-system always does. A name read in any other
    // namespace (kube-flannel), or in none, goes into the ClusterRole, still by name, so the manifest
    // applies anywhere.
    const inKubeSystem = resource.objects.filter((object) => object.namespace === ALWAYS_THERE)
    const elsewhere = resource.objects.filter((object) => object.namespace !== ALWAYS_THERE)
    if (elsewhere.length > 0) clusterRules.push(ruleYaml(resource, 'get', elsewhere.map((object) => object.name)))
    if (inKubeSystem.length > 0) addNamespaced(ALWAYS_THERE, ruleYaml(resource, 'get', inKubeSystem.map((object) => object.name)))
  }

  const documents = roleAndBinding(name, subject, clusterRules)
  for (const [namespace, rules] of namespaced) documents.push(...roleAndBinding(name, subject, rules, namespace))
  return documents.join('\n---\n')
}

/**
 * What `cluster --node-probe exec` needs besides the reads: exec into the kube-proxy pods of
 * kube-system (listing them is among the reads). A Role of its own, so write access stays opt-in.
 * The exec WebSocket is a GET: newer API servers authorize it as create, older ones as get.
 */
export function execRbacManifest(name: string, subject: string): string {
  return subresourceRoleManifest(`${name}-exec`, subject, 'pods/exec', ['create', 'get'])
}

/**
 * What `cluster --kube-proxy-metrics` needs besides the reads: GET through the API server's proxy to the
 * kube-proxy pods of kube-system. A read, but one that reaches the pods' own servers: a Role of its own too.
 */
export function proxyRbacManifest(name: string, subject: string): string {
  return subresourceRoleManifest(`${name}-proxy`, subject, 'pods/proxy', ['get'])
}

/** A Role in kube-system allowing one pod subresource, and its binding. */
function subresourceRoleManifest(role: string, subject: string, resource: string, verbs: readonly string[]): string {
  return roleAndBinding(role, subject, [rule('', resource, verbs)], ALWAYS_THERE).join('\n---\n')
}

/** The rules of pod probe's Role: make, watch, read the log of and delete its pods. */
const POD_PROBE_RULES = [rule('', 'pods', ['create', 'delete', 'get', 'list', 'watch']), rule('', 'pods/log', ['get'])]

/**
 * What `cluster --node-probe pod` needs besides the reads: to create, watch, read the log of and delete
 * its probe pods. In kube-system, a Role of its own, so write access stays opt-in. With a probe
 * namespace, a ClusterRole: a Role cannot be bound in a namespace before it exists, so the pods rules
 * hold in every namespace, beside creating namespaces and deleting that one by name.
 */
export function podProbeRbacManifest(name: string, subject: string, probeNamespace?: string): string {
  const role = `${name}-pod`
  if (probeNamespace === undefined) return roleAndBinding(role, subject, POD_PROBE_RULES, ALWAYS_THERE).join('\n---\n')
  const namespaceRules = [rule('', 'namespaces', ['create']), rule('', 'namespaces', ['delete', 'get'], [probeNamespace])]
  return roleAndBinding(role, subject, [...POD_PROBE_RULES, ...namespaceRules]).join('\n---\n')
}
