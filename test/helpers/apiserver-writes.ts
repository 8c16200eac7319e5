/**
 * Updates and patches as kube-apiserver applies them, for the test API server: JSON merge patch (RFC 7386),
 * JSON patch (RFC 6902), strategic merge patch for the fields kubectl's commands touch (lists of named items
 * merge by name), and the preconditions of an update (a stale `metadata.resourceVersion` or another
 * `metadata.uid` is a 409 Conflict, as the real server answers it).
 */

type AnyObject = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** A patch the server cannot apply: the request gets this status and message. */
export class PatchError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

const PATCH_TYPES = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
} as const

/** The object `current` becomes under a PATCH of this content type. */
export function patched(current: AnyObject, body: string, contentType: string | undefined): AnyObject {
  let patch: unknown
  try {
    patch = JSON.parse(body)
  } catch {
    throw new PatchError(400, 'the body of the request was in an unknown format')
  }

  switch (contentType?.split(';', 1)[0].trim()) {
    case PATCH_TYPES.merge: {
      return mergePatch(current, patch) as AnyObject
    }

    case PATCH_TYPES.json: {
      if (!Array.isArray(patch)) throw new PatchError(400, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch')
      return jsonPatch(current, patch as AnyObject[])
    }

    case PATCH_TYPES.strategic: {
      return strategicMergePatch(current, patch) as AnyObject
    }

    default: {
      throw new PatchError(415, `the body of the request was in an unknown format - accepted media types include: ${Object.values(PATCH_TYPES).join(', ')}`)
    }
  }
}

const isObject = (value: unknown): value is AnyObject => typeof value === 'object' && value !== null && !Array.isArray(value)

/** RFC 7386: objects merge key by key, null deletes, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch
  const result: AnyObject = isObject(target) ? {...target} : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key]
    else result[key] = mergePatch(result[key], value)
  }

  return result
}

/**
 * A strategic merge patch as the fields kubectl patches need it: a merge patch whose lists of named items
 * (containers, volumes, env, nodeSelectorTerms' neighbours…) merge item by item on `name`; directives
 * (`$patch`, `$setElementOrder/…`, `$retainKeys`) are dropped, other lists replace.
 */
function strategicMergePatch(target: unknown, patch: unknown): unknown {
  if (Array.isArray(patch) && Array.isArray(target) && patch.every((item) => isObject(item) && typeof item.name === 'string')) {
    const merged = target.map((item: unknown) => {
      const match = isObject(item) ? (patch as AnyObject[]).find((candidate) => candidate.name === item.name) : undefined
      return match ? strategicMergePatch(item, match) : item
    })
    const added = (patch as AnyObject[]).filter((item) => !target.some((existing: unknown) => isObject(existing) && existing.name === item.name))
    return [...merged, ...added.map((item) => strategicMergePatch(undefined, item))]
  }

  if (!isObject(patch)) return patch
  const result: AnyObject = isObject(target) ? {...target} : {}
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue
    if (value === null) delete result[key]
    else result[key] = strategicMergePatch(result[key], value)
  }

  return result
}

/** RFC 6902's add, remove, replace and test, on JSON pointers. */
function jsonPatch(target: AnyObject, operations: readonly AnyObject[]): AnyObject {
  const result = structuredClone(target)
  for (const {op, path, value} of operations) {
    const tokens = String(path).split('/').slice(1).map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    const last = tokens.pop()
    let parent: unknown = result
    for (const token of tokens) parent = isObject(parent) || Array.isArray(parent) ? (parent as AnyObject)[token] : undefined
    if (last === undefined || !(isObject(parent) || Array.isArray(parent))) throw new PatchError(422, `doc is missing path: "${path}": missing value`)
    const container = parent as AnyObject
    const present = Array.isArray(container) ? Number(last) < container.length : Object.hasOwn(container, last)
    switch (op) {
      case 'add': {
        if (Array.isArray(container)) container.splice(last === '-' ? container.length : Number(last), 0, value)
        else container[last] = value
        break
      }

      case 'replace':
      case 'remove': {
        if (!present) throw new PatchError(422, `the server rejected our request due to an error in our request: ${op} operation does not apply: doc is missing path: "${path}": missing value`)
        if (op === 'replace') container[last] = value
        else if (Array.isArray(container)) container.splice(Number(last), 1)
        else delete container[last]
        break
      }

      case 'test': {
        if (JSON.stringify(container[last]) !== JSON.stringify(value)) throw new PatchError(422, `the server rejected our request due to an error in our request: testing value ${path} failed: test failed`)
        break
      }

      default: {
        throw new PatchError(400, `Unexpected kind: ${String(op)}`)
      }
    }
  }

  return result
}

/** How the server names a resource in messages: `configmaps "kube-proxy"`, `daemonsets.apps "kube-proxy"`. */
interface NamedResource {
  qualified: string
  name: string
}

/**
 * Why an update of `current` to `next` is refused, as kube-apiserver words it; undefined when it goes
 * through. A resourceVersion the body sets must be the stored one (optimistic concurrency); an empty one
 * is an unconditional update, which ConfigMaps, DaemonSets and Nodes allow. A uid the body sets must be the
 * stored one (the object was not deleted and made again).
 */
export function updateRefusal(current: AnyObject, next: AnyObject, resource: NamedResource): undefined | {message: string; status: number} {
  const given = next.metadata ?? {}
  if (given.name !== undefined && given.name !== resource.name) return {status: 400, message: `the name of the object (${String(given.name)}) does not match the name on the URL (${resource.name})`}
  if (given.uid && given.uid !== current.metadata.uid) {
    return {status: 409, message: `Operation cannot be fulfilled on ${resource.qualified}: Precondition failed: UID in precondition: ${String(given.uid)}, UID in object meta: ${String(current.metadata.uid)}`}
  }

  if (given.resourceVersion && given.resourceVersion !== current.metadata.resourceVersion) {
    return {status: 409, message: `Operation cannot be fulfilled on ${resource.qualified}: the object has been modified; please apply your changes to the latest version and try again`}
  }

  return undefined
}

/**
 * The object as stored after an update: what the server sets itself (uid, creationTimestamp, status, which
 * only the status subresource changes) kept from `current`; generation counted up when the spec changed.
 */
export function updatedObject(current: AnyObject, next: AnyObject): AnyObject {
  const {metadata: given = {}} = next
  const metadata: AnyObject = {...given, uid: current.metadata.uid, creationTimestamp: current.metadata.creationTimestamp, resourceVersion: undefined}
  if (current.metadata.generation !== undefined) {
    const changed = JSON.stringify(current.spec) !== JSON.stringify(next.spec)
    metadata.generation = Number(current.metadata.generation) + (changed ? 1 : 0)
  }

  return {...next, metadata, ...(current.status === undefined ? {} : {status: current.status})}
}
