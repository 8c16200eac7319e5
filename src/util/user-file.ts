/** Files the user names on the command line: one way to read them, and one way to say they cannot be. */
import {closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync} from 'node:fs'
import {stat} from 'node:fs/promises'
import {basename, dirname, isAbsolute, relative, resolve} from 'node:path'

import {UsageError} from './errors.js'

const KIB = 1024
const MIB = 1024 * KIB

/**
 * The most kpx-check reads of each kind of file: far more than a real one holds (a 5,000-node report is 26 MB
 * indented), far less than a mistake costs (a log, an image, a disk). Refused with an error, never cut.
 */
export const MAX_FILE_BYTES = {
  baseline: 256 * MIB,
  bundle: 16 * MIB,
  config: 256 * KIB,
  identity: 1 * MIB,
  inventory: 16 * MIB,
  knownHosts: 16 * MIB,
  kubeconfig: 16 * MIB,
  /** A certificate, key or token file a kubeconfig names. */
  kubeconfigFile: 1 * MIB,
  rule: 1 * MIB,
  snapshot: 256 * MIB,
  sshConfig: 1 * MIB,
  waivers: 4 * MIB,
} as const

/** 256 KiB, 16 MiB. */
function formatBytes(bytes: number): string {
  return bytes >= MIB ? `${bytes / MIB} MiB` : `${bytes / KIB} KiB`
}

/** `--flag PATH: no such file`, or the system's reason, with what to do. */
function unreadable(flag: string, path: string, error: unknown, suggestions: readonly string[]): UsageError {
  const code = (error as NodeJS.ErrnoException).code
  return new UsageError(`${flag} ${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`, [...suggestions])
}

interface ReadOptions {
  maxBytes: number
  /** Undefined instead of an error when the file does not exist. */
  optional?: boolean
  suggestions?: readonly string[]
}

/** A file kpx-check will not read: not a regular file, or over its cap. */
export class RefusedFileError extends Error {}

/**
 * The file's bytes, read with a cap and only from a regular file: a device (/dev/zero), FIFO or socket may never
 * end or never answer, and is refused before a byte is read. A symlink is followed to what it names, which is then
 * held to the same rules. Throws the system's error (ENOENT, EACCES) or a RefusedFileError.
 */
export function readRegularFile(path: string, maxBytes: number): Buffer {
  // Non-blocking, so that opening a FIFO nobody writes to returns at once (it is then refused).
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) throw new RefusedFileError(`not a regular file (${fileKind(info)}); kpx-check reads only files`)
    const bytes = readAtMost(fd, maxBytes + 1)
    if (bytes.length > maxBytes) throw new RefusedFileError(`larger than ${formatBytes(maxBytes)}, more than such a file ever needs`)
    return bytes
  } finally {
    closeSync(fd)
  }
}

/** readRegularFile's bytes, its errors a usage error naming the flag; undefined only for a missing `optional` file. */
function readUserFileBytes(flag: string, path: string, options: ReadOptions): Buffer | undefined {
  try {
    return readRegularFile(path, options.maxBytes)
  } catch (error) {
    if (options.optional && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw unreadable(flag, path, error, options.suggestions ?? [])
  }
}

function fileKind(info: ReturnType<typeof fstatSync>): string {
  if (info.isDirectory()) return 'a folder'
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device'
  if (info.isFIFO()) return 'a FIFO'
  return 'a socket'
}

/** The file's text (see readUserFileBytes). */
export function readUserFileSync(flag: string, path: string, options: ReadOptions): string | undefined {
  return readUserFileBytes(flag, path, options)?.toString('utf8')
}

/** Standard input, refused once it passes `maxBytes` (`--facts - < /dev/zero` ends at the cap). */
export async function readStandardInput(flag: string, maxBytes: number, input: AsyncIterable<Buffer | string> = process.stdin): Promise<string> {
  const chunks: Buffer[] = []
  let length = 0
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    length += bytes.length
    if (length > maxBytes) throw new UsageError(`${flag} -: standard input is larger than ${formatBytes(maxBytes)}, more than such a file ever needs`)
    chunks.push(bytes)
  }

  return Buffer.concat(chunks).toString('utf8')
}

/** The first `limit` bytes at most, so that a huge file is never read whole. */
function readAtMost(fd: number, limit: number): Buffer {
  const buffer = Buffer.alloc(Math.min(limit, Math.max(fstatSync(fd).size + 1, 64 * KIB)))
  let target = buffer
  let length = 0
  let read: number
  do {
    // A file that grows while read (or one whose size stat does not tell, as in /proc) gets a larger buffer.
    if (length === target.length) target = Buffer.concat([target, Buffer.alloc(Math.min(target.length, limit - length))])
    read = readSync(fd, target, length, target.length - length, null)
    length += read
  } while (read > 0 && length < limit)
  return target.subarray(0, length)
}

/**
 * An error about what a file holds, with every quote of that content taken out: a file given by mistake may be
 * credentials (`.env`, `.git-credentials`, /proc/self/environ), and FILE:LINE says where to look. `isFormatWord` keeps
 * the quotes of the format's own words (a bundle's `### end`), which a file holds too.
 */
export function quotingNothingOf<T>(text: string, error: T, isFormatWord: (quoted: string) => boolean = () => false): T {
  if (!(error instanceof UsageError)) return error
  error.message = error.message.replaceAll(/"([^"]*)"(?:\.\.\.)?|'([^'\n]*)'/g, (quote: string, double?: string, single?: string) => {
    // A long quote is cut short with an ellipsis, inside the quotes or after them.
    const quoted = (double ?? single ?? '').replace(/(?:\.\.\.|…)$/, '')
    return quoted.trim() !== '' && text.includes(quoted) && !isFormatWord(quoted) ? '(text of the file)' : quote
  })
  return error
}

/** A user's JSON file, parsed; text that is not JSON is a usage error too, quoting none of it. */
export async function readUserJson(flag: string, path: string, options: ReadOptions): Promise<unknown> {
  const text = readUserFileSync(flag, path, options)!
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw quotingNothingOf(text, new UsageError(`${flag} ${path}: not JSON: ${(error as Error).message}`, [...(options.suggestions ?? [])]))
  }
}

/** A file kpx-check will write must have a folder to go in: checked before any work, so a typo costs nothing. */
export async function checkOutputFolder(where: string, path: string): Promise<void> {
  const folder = await stat(dirname(path)).catch(() => {})
  if (!folder?.isDirectory()) throw new UsageError(`${where}: the folder ${dirname(path)} does not exist`)
}

/**
 * A file kpx-check will write inside `root` (the working directory, a checkout) must stay there: a symlink (the file's
 * own, or a folder's on the way) that leads out of it is refused, so a checkout cannot make kpx-check write over a
 * file elsewhere (~/.bashrc, a CI's credentials). A path that is outside to begin with is the user's to name.
 */
export function checkWritesInside(where: string, path: string, root = process.cwd()): void {
  if (!isInside(resolve(root, path), resolve(root))) return
  const target = whereWritten(resolve(root, path))
  if (!isInside(target, realpathSync(root))) throw new UsageError(`${where}: ${path} leads out of the working directory (to ${target}) through a symlink; kpx-check does not write through it`)
}

/** Whether a path is inside `root` and stays there once every symlink on the way, and its own, is followed. */
export function staysInside(path: string, root = process.cwd()): boolean {
  if (!isInside(resolve(root, path), resolve(root))) return false
  try {
    return isInside(whereWritten(resolve(root, path)), realpathSync(root))
  } catch {
    // A folder on the way that is not there: nothing to read or write.
    return false
  }
}

function isInside(path: string, root: string): boolean {
  const rest = relative(root, path)
  return rest === '' || (!rest.startsWith('..') && !isAbsolute(rest))
}

/** Where writing `path` lands: its folder's real path, and the file itself, or what its symlink names (followed). */
function whereWritten(path: string, hops = 0): string {
  const folder = realpathSync(dirname(path))
  const file = resolve(folder, basename(path))
  const link = lstatSync(file, {throwIfNoEntry: false})
  if (!link?.isSymbolicLink() || hops > 40) return file
  return whereWritten(resolve(folder, readlinkSync(file)), hops + 1)
}
