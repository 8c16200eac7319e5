
import {UsageError} from '../../util/errors.js'
import {readUserJson} from '../../util/user-file.js'
import {type ClusterSnapshot, SNAPSHOT_API_VERSION} from './snapshot.js'

const SNAPSHOT_HINT = ['Write one with: kpx-check snapshot -o FILE']

/** `--snapshot FILE`: a snapshot `kpx-check snapshot` wrote; anything else is a usage error naming the file. */
export async function readSnapshot(path: string): Promise<ClusterSnapshot> {
  const parsed = (await readUserJson('--snapshot', path, SNAPSHOT_HINT)) as Partial<ClusterSnapshot>

  if (parsed.apiVersion !== SNAPSHOT_API_VERSION || typeof parsed.resources !== 'object' || parsed.resources === null) {
    throw new UsageError(`--snapshot ${path}: not a kpx-check snapshot (expected apiVersion "${SNAPSHOT_API_VERSION}")`, SNAPSHOT_HINT)
  }

  return {kind: 'ClusterSnapshot', capturedAt: '', source: {}, ...parsed} as ClusterSnapshot
}
