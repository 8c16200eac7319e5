import type {ClusterAccessReason} from '../../contract/fleet.js'
import {ClusterAccessError} from '../../util/errors.js'
import {isObject} from '../../util/json-value.js'
import {ApiError, kindOf, type KubeClient, malformed} from './kube-client.js'
import {type GetResource, type NamedObject, objectPermission, permissionOf, type Resource, RESOURCES} from './resources.js'
import {type ClusterSnapshot, type FailedStatus, type KubeObject, type ResourceOutcome, SNAPSHOT_API_VERSION, type UnreadableObject} from './snapshot.js'
import {trimObject} from './trim.js'

/**
 * Reads the API server's version: it proves the server is reachable and the credentials work, so
 * a bad URL, certificate or token is one clear usage error (exit 2), not a report full of unknowns;
 * in a fleet, that cluster's entry, with the reason.
 */
export async function checkConnection(client: KubeClient): Promise<KubeObject> {
  try {
    return trimObject('version', await client.get('/version'))
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    const hint =
      error.code === 401
        ? 'The credentials were rejected: log in again or refresh the token (expired?).'
        : (error.code === 0
          ? 'Check the server address, the network path, and the CA in the kubeconfig.'
          : 'Check the kubeconfig context.')
    throw new ClusterAccessError(accessReason(error), `cannot use the API server ${client.server} (context ${client.context}): ${error.message}`, [hint])
  }
}

/** Why an API server could not be used, from how its /version read failed. */
function accessReason(error: ApiError): ClusterAccessReason {
  if (error.code === 401) return 'unauthorized'
  if (error.code === 403) return 'forbidden'
  if (error.code !== 0 || error.reason === 'MalformedResponse') return 'api-error'
  if (error.reason === 'TLS') return 'TLS'
  return error.reason === 'Timeout' ? 'timeout' : 'unreachable'
}

/** Fetches one resource; a forbidden or failing read becomes an outcome the rules see, never a crash. */
export async function collectResource(client: KubeClient, resource: Resource): Promise<ResourceOutcome> {
  if (resource.kind === 'get') return collectNamed(client, resource)
  const items: KubeObject[] = []
  try {
    const query: Record<string, string> = resource.labelSelector ? {labelSelector: resource.labelSelector} : {}
    const trim = (page: Array<Record<string, unknown>>) => {
      for (const item of page) items.push(trimObject(resource.name, item))
    }

    await client.list(resource.path, query, trim, {countOnly: resource.countOnly, kind: resource.objectKind})
    return {status: 'ok', items}
  } catch (error) {
    if (error instanceof ApiError && error.code === 404) {
      if (resource.optional) return {status: 'ok', items: []} // the API group is not served: nothing installs it here
      return {status: 'error', message: `${error.message} (404 for a list every API server serves: a proxy or gateway between kpx-check and the API server?)`}
    }

    return failure(error, permissionOf(resource))
  }
}

/** Each object on its own: one that cannot be read is listed as unreadable, and the others' reads stand. */
async function collectNamed(client: KubeClient, resource: GetResource): Promise<ResourceOutcome> {
  const items: KubeObject[] = []
  const unreadable: UnreadableObject[] = []
  for (const object of resource.objects) {
    try {
      const found = await getIfPresent(client, object.path)
      if (found) items.push(trimObject(resource.name, theObjectAsked(found, object, resource.objectKind)))
    } catch (error) {
      unreadable.push({name: object.name, ...(object.namespace ? {namespace: object.namespace} : {}), ...failure(error, objectPermission(resource, object))})
    }
  }

  return unreadable.length > 0 ? {status: 'ok', items, unreadable} : {status: 'ok', items}
}

/** How a read failed, with the permission it needs when it was refused. */
function failure(error: unknown, permission: string): {message: string; status: FailedStatus} {
  if (!(error instanceof ApiError)) throw error
  if (error.code === 403) return {status: 'forbidden', message: `${error.message} (needs: ${permission})`}
  if (error.code === 401) return {status: 'unauthorized', message: error.message}
  if (error.reason === 'MalformedResponse') return {status: 'malformed', message: error.message}
  return {status: 'error', message: error.message}
}

/**
 * The answer, when it is the object asked for: its kind, name and namespace. A 200 that is a Status, `{}`, another
 * kind or another object (a proxy's, a gateway's, a misrouted request's) is a malformed answer, not that object.
 */
function theObjectAsked(answer: Record<string, unknown>, asked: NamedObject, kind: string | undefined): Record<string, unknown> {
  if (kind === undefined) return answer
  const metadata = isObject(answer.metadata) ? answer.metadata : {}
  const wanted = `${kind} ${asked.namespace ? `${asked.namespace}/` : ''}${asked.name}`
  if (answer.kind !== kind) throw malformed(asked.path, `expected the ${wanted}, found ${kindOf(answer)}`)
  if (metadata.name !== asked.name || (metadata.namespace ?? undefined) !== asked.namespace) {
    const name = typeof metadata.name === 'string' ? JSON.stringify(metadata.name.slice(0, 253)) : 'no name'
    throw malformed(asked.path, `expected the ${wanted}, found ${kind} ${name}${typeof metadata.namespace === 'string' ? ` in namespace ${JSON.stringify(metadata.namespace.slice(0, 63))}` : ''}`)
  }

  return answer
}

async function getIfPresent(client: KubeClient, path: string): Promise<Record<string, unknown> | undefined> {
  try {
    return await client.get(path)
  } catch (error) {
    if (error instanceof ApiError && error.code === 404) return undefined
    throw error
  }
}

export function emptySnapshot(client: KubeClient): ClusterSnapshot {
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'ClusterSnapshot',
    capturedAt: new Date().toISOString(),
    source: {context: client.context, server: client.server},
    resources: {},
  }
}

export const LISTED_RESOURCES = RESOURCES.filter((resource) => resource.name !== 'version')
