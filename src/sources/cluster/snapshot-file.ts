import {UsageError} from '../../util/errors.js'
import {isObject} from '../../util/json-value.js'
import {MAX_FILE_BYTES, readUserJson} from '../../util/user-file.js'
import {RESOURCES} from './resources.js'
import {type ClusterSnapshot, SNAPSHOT_API_VERSION} from './snapshot.js'

const SNAPSHOT_HINT = ['Write one with: kpx-check snapshot -o FILE']
const FAILED_STATUSES = new Set(['error', 'forbidden', 'malformed', 'unauthorized'])

/**
 * `--snapshot FILE`: a snapshot `kpx-check snapshot` wrote. Anything else, or a snapshot whose
 * contents are not what a read of the API gives, is a usage error naming the file and the JSON path:
 * a hand-edited or truncated file must not pass for an empty cluster.
 */
export async function readSnapshot(path: string): Promise<ClusterSnapshot> {
  const parsed = (await readUserJson('--snapshot', path, {maxBytes: MAX_FILE_BYTES.snapshot, suggestions: SNAPSHOT_HINT})) as Partial<ClusterSnapshot>
  if (!isObject(parsed) || parsed.apiVersion !== SNAPSHOT_API_VERSION || !isObject(parsed.resources)) {
    throw new UsageError(`--snapshot ${path}: not a kpx-check snapshot (expected apiVersion "${SNAPSHOT_API_VERSION}")`, SNAPSHOT_HINT)
  }

  const problem = snapshotProblem(parsed)
  if (problem) throw new UsageError(`--snapshot ${path}: ${problem}`, SNAPSHOT_HINT)
  return {kind: 'ClusterSnapshot', capturedAt: '', source: {}, ...parsed} as ClusterSnapshot
}

/** The first thing in the snapshot that a read of the API could not have given, as `JSON.path: what`. */
function snapshotProblem(snapshot: Partial<ClusterSnapshot>): string | undefined {
  const source: unknown = snapshot.source ?? {}
  if (!isObject(source)) return 'source: not an object'
  for (const field of ['context', 'server'] as const) {
    if (source[field] !== undefined && typeof source[field] !== 'string') return `source.${field}: not a string`
  }

  for (const resource of RESOURCES) {
    const outcome: unknown = snapshot.resources?.[resource.name]
    const where = `resources.${resource.name}`
    if (outcome === undefined) continue
    if (!isObject(outcome)) return `${where}: not an object`
    if (FAILED_STATUSES.has(String(outcome.status))) {
      if (typeof outcome.message !== 'string') return `${where}.message: not a string`
      continue
    }

    if (outcome.status !== 'ok') return `${where}.status: expected ok, ${[...FAILED_STATUSES].join(', ')}`
    if (!Array.isArray(outcome.items)) return `${where}.items: not an array`
    const unreadable = unreadableProblem(outcome.unreadable)
    if (unreadable) return `${where}.unreadable${unreadable}`
    for (const [index, item] of (outcome.items as unknown[]).entries()) {
      // The version is one object without metadata; every other item is a Kubernetes object.
      if (!isObject(item) || (resource.name !== 'version' && !isObject(item.metadata))) return `${where}.items[${index}]: not an object with metadata`
    }
  }

  return undefined
}

/** What is wrong with a resource's list of named objects that could not be read, as `[index].field: what`. */
function unreadableProblem(unreadable: unknown): string | undefined {
  if (unreadable === undefined) return undefined
  if (!Array.isArray(unreadable)) return ': not an array'
  for (const [index, object] of (unreadable as unknown[]).entries()) {
    if (!isObject(object)) return `[${index}]: not an object`
    if (typeof object.name !== 'string') return `[${index}].name: not a string`
    if (object.namespace !== undefined && typeof object.namespace !== 'string') return `[${index}].namespace: not a string`
    if (!FAILED_STATUSES.has(String(object.status))) return `[${index}].status: expected ${[...FAILED_STATUSES].join(', ')}`
    if (typeof object.message !== 'string') return `[${index}].message: not a string`
  }

  return undefined
}
