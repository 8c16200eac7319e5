/** Files the user names on the command line: one way to read them, and one way to say they cannot be. */
import {closeSync, openSync, readFileSync, readSync} from 'node:fs'
import {readFile, stat} from 'node:fs/promises'
import {dirname} from 'node:path'

import {UsageError} from './errors.js'

/** `--flag PATH: no such file`, or the system's reason, with what to do. */
function unreadable(flag: string, path: string, error: unknown, suggestions: readonly string[]): UsageError {
  const code = (error as NodeJS.ErrnoException).code
  return new UsageError(`${flag} ${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`, [...suggestions])
}

export async function readUserFile(flag: string, path: string, suggestions: readonly string[] = []): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    throw unreadable(flag, path, error, suggestions)
  }
}

/** The file's text; with `optional`, undefined when it does not exist; with `maxBytes`, a usage error when it is larger. */
export function readUserFileSync(flag: string, path: string, options: {maxBytes?: number; optional?: boolean} = {}): string | undefined {
  let bytes: Buffer
  try {
    bytes = options.maxBytes === undefined ? readFileSync(path) : readAtMost(path, options.maxBytes + 1)
  } catch (error) {
    if (options.optional && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw unreadable(flag, path, error, [])
  }

  if (options.maxBytes !== undefined && bytes.length > options.maxBytes) throw new UsageError(`${flag} ${path}: larger than ${options.maxBytes / 1024} KiB, more than such a file ever needs`)
  return bytes.toString('utf8')
}

/** The first `limit` bytes at most, so that a huge file or a device (/dev/zero) is never read whole. */
function readAtMost(path: string, limit: number): Buffer {
  const fd = openSync(path, 'r')
  try {
    const buffer = Buffer.alloc(limit)
    let length = 0
    let read: number
    do {
      read = readSync(fd, buffer, length, limit - length, null)
      length += read
    } while (read > 0 && length < limit)
    return buffer.subarray(0, length)
  } finally {
    closeSync(fd)
  }
}

/** A user's JSON file, parsed; text that is not JSON is a usage error too. */
export async function readUserJson(flag: string, path: string, suggestions: readonly string[] = []): Promise<unknown> {
  const text = await readUserFile(flag, path, suggestions)
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new UsageError(`${flag} ${path}: not JSON: ${(error as Error).message}`, [...suggestions])
  }
}

/** A file kpx-check will write must have a folder to go in: checked before any work, so a typo costs nothing. */
export async function checkOutputFolder(where: string, path: string): Promise<void> {
  const folder = await stat(dirname(path)).catch(() => {})
  if (!folder?.isDirectory()) throw new UsageError(`${where}: the folder ${dirname(path)} does not exist`)
}
