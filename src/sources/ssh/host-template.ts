/**
 * --ssh-host-template: the host `cluster --node-probe ssh` reaches each Node at, made from the
 * Node's name and addresses. Kept apart from the probe itself, which loads much more, because the
 * command checks the template before it reads anything.
 */
import {UsageError} from '../../util/errors.js'
import {isValidHost} from './target.js'

export const DEFAULT_HOST_TEMPLATE = '{internalIP}'

/** The placeholders, and what each stands for in the Node. */
export const HOST_PLACEHOLDERS = {name: 'name', internalIP: 'InternalIP', externalIP: 'ExternalIP'} as const
export type HostPlaceholder = keyof typeof HOST_PLACEHOLDERS

/** Refuses a template with an unknown placeholder, or one that cannot give a host name. */
export function checkHostTemplate(template: string): string {
  const where = `--ssh-host-template ${template}`
  for (const [, placeholder] of template.matchAll(/\{([^}]*)\}/g)) {
    if (!(placeholder in HOST_PLACEHOLDERS)) throw new UsageError(`${where}: unknown placeholder {${placeholder}}`, ['Use {name}, {internalIP} or {externalIP}.'])
  }

  const sample = expandHostTemplate(template, {name: 'node-1', internalIP: '10.0.0.1', externalIP: '192.0.2.1'})
  if (!isValidHost(sample)) throw new UsageError(`${where}: gives "${sample}", not a host name or IP address`, ['Use a DNS name or an address placeholder, without user or port (see --ssh-user, ~/.ssh/config).'])
  return template
}

export function expandHostTemplate(template: string, values: Partial<Record<HostPlaceholder, string>>): string {
  return template.replaceAll(/\{(name|internalIP|externalIP)\}/g, (_, placeholder: HostPlaceholder) => values[placeholder] ?? '')
}
