import {readFile} from 'node:fs/promises'

import {UsageError} from '../../util/errors.js'
import {type ClusterSnapshot, SNAPSHOT_API_VERSION} from './snapshot.js'

/** `--snapshot FILE`: a snapshot `kpx-check snapshot` wrote; anything else is a usage error naming the file. */
export async function readSnapshot(path: string): Promise<ClusterSnapshot> {
  let parsed: Partial<ClusterSnapshot>
  try {
    parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<ClusterSnapshot>
  } catch (error) {
    throw new UsageError(`--snapshot ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not JSON: ${(error as Error).message}`}`, [
      'Write one with: kpx-check snapshot -o FILE',
    ])
  }

  if (parsed.apiVersion !== SNAPSHOT_API_VERSION || typeof parsed.resources !== 'object' || parsed.resources === null) {
    throw new UsageError(`--snapshot ${path}: not a kpx-check snapshot (expected apiVersion "${SNAPSHOT_API_VERSION}")`, ['Write one with: kpx-check snapshot -o FILE'])
  }

  return {kind: 'ClusterSnapshot', capturedAt: '', source: {}, ...parsed} as ClusterSnapshot
}
