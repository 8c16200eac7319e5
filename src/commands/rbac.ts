import * as Flags from '@oclif/core/flags'

import {KpxCommand} from '../cli/base-command.js'
import {helpDescription} from '../cli/help-text.js'
import {probeNamespace} from '../cli/ssh-flags.js'
import {execRbacManifest, podProbeRbacManifest, proxyRbacManifest, rbacManifest} from '../sources/cluster/rbac.js'

export default class Rbac extends KpxCommand {
  static enableJsonFlag = false

  static summary = 'Print the least-privilege ClusterRole, Role and bindings to run `<%= config.bin %> cluster`.'

  static description = helpDescription([
    'Read-only (get/list), no Secrets, ConfigMaps only by name. Apply it for a person or group, or for an in-cluster Job\'s service account.',
    '',
    'With --node-probe exec, also a Role of its own in kube-system that allows pods/exec (create, get), which `cluster --node-probe exec` needs to',
    'run the collector in the kube-proxy pods: write access is opt-in, and can be granted and revoked apart from the reads.',
    '',
    'With --node-probe pod, a Role NAME-pod in kube-system that allows creating, watching and deleting pods and reading',
    'their logs, for `cluster --node-probe pod`; with --probe-namespace too, a ClusterRole instead (a Role cannot be bound in',
    'a namespace before it exists) that also allows creating namespaces and deleting that one. --node-probe exec,pod prints both.',
    '',
    'With --kube-proxy-metrics, also a Role of its own in kube-system that allows pods/proxy (get), which `cluster --kube-proxy-metrics`',
    'needs to read kube-proxy\'s /proxyMode and /metrics through the API server: a read, but one that reaches into the pods, so opt-in too.',
  ])

  static examples = [
    '<%= config.bin %> rbac --group platform-readers | kubectl apply -f -',
    '<%= config.bin %> rbac --service-account kpx-check/kpx-check | kubectl apply -f -',
    '<%= config.bin %> rbac --node-probe exec --group platform-readers | kubectl apply -f -',
    '<%= config.bin %> rbac --node-probe exec --kube-proxy-metrics --group platform-readers | kubectl apply -f -',
    '<%= config.bin %> rbac --node-probe pod --service-account kpx-check/kpx-check | kubectl apply -f -',
  ]

  static flags = {
    name: Flags.string({description: 'Name of the roles and bindings.', default: 'kpx-check-reader'}),
    user: Flags.string({description: 'Bind to this user.', exclusive: ['group', 'service-account']}),
    group: Flags.string({description: 'Bind to this group.', exclusive: ['user', 'service-account']}),
    'service-account': Flags.string({description: 'Bind to this service account (NAMESPACE/NAME).', exclusive: ['user', 'group'], helpValue: 'NAMESPACE/NAME'}),
    'node-probe': Flags.string({
      description: 'Also print what `cluster --node-probe` needs to write: pods/exec in kube-system (NAME-exec), probe pods (NAME-pod), or both.',
      options: ['exec', 'pod', 'exec,pod'],
    }),
    'probe-namespace': Flags.string({description: 'With --node-probe pod: the namespace `cluster --probe-namespace` names, which it creates and deletes.', helpValue: 'NAMESPACE'}),
    'kube-proxy-metrics': Flags.boolean({description: 'Also print the Role `cluster --kube-proxy-metrics` needs (pods/proxy get in kube-system), named NAME-proxy.'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Rbac)
    const subject = subjectOf(flags)
    const probe = flags['node-probe'] ?? ''
    const namespace = probeNamespace(flags['probe-namespace'], flags['node-probe'])
    const documents = [
      rbacManifest(flags.name, subject),
      ...(probe.includes('exec') ? [execRbacManifest(flags.name, subject)] : []),
      ...(probe.includes('pod') ? [podProbeRbacManifest(flags.name, subject, namespace)] : []),
      ...(flags['kube-proxy-metrics'] ? [proxyRbacManifest(flags.name, subject)] : []),
    ]
    this.log(documents.join('\n---\n'))
  }
}

/** JSON strings are YAML strings: whatever a flag holds stays one scalar. */
function quoted(value: string): string {
  return JSON.stringify(value)
}

function subjectOf(flags: {group?: string; 'service-account'?: string; user?: string}): string {
  if (flags['service-account']) {
    const [namespace, name] = flags['service-account'].split('/', 2)
    return `  - kind: ServiceAccount\n    name: ${quoted(name ?? '')}\n    namespace: ${quoted(namespace)}`
  }

  if (flags.group) return `  - kind: Group\n    name: ${quoted(flags.group)}\n    apiGroup: rbac.authorization.k8s.io`
  return `  - kind: User\n    name: ${quoted(flags.user ?? 'REPLACE-ME')}\n    apiGroup: rbac.authorization.k8s.io`
}
