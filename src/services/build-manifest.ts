/**
 * What `npm run build` linted (write-build-manifests.ts): the built-in rules and platform recipes,
 * each with the SHA-256 of its source files. Reading them from here skips YAML, the schemas and the
 * CEL checks, which cost about a third of a second at every start for the rules and a tenth more
 * for the recipes; a file added, removed or changed since the build means it is linted again.
 */
import {createHash} from 'node:crypto'
import {readFileSync, writeFileSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'

/** The data a build manifest holds, by name. */
type BuiltName = 'recipes' | 'rules'

interface BuildManifest<T> {
  /** SHA-256 of each source file, by its path under the source folder. */
  files: Record<string, string>
  value: T
}

/** Beside this module in dist: shipped with it, and rewritten by every build. */
const manifestPath = (name: BuiltName) => join(dirname(fileURLToPath(import.meta.url)), `builtin-${name}.json`)

function fileHashes(dir: string, files: readonly string[]): Record<string, string> {
  return Object.fromEntries(files.map((file) => [relative(dir, file), createHash('sha256').update(readFileSync(file)).digest('hex')]))
}

export function writeBuildManifest(name: BuiltName, dir: string, files: readonly string[], value: unknown): void {
  const manifest: BuildManifest<unknown> = {files: fileHashes(dir, files), value}
  writeFileSync(manifestPath(name), JSON.stringify(manifest))
}

/** What the build linted from `files` (under `dir`) if they are the files it linted; otherwise undefined. */
export function readBuildManifest<T>(name: BuiltName, dir: string, files: readonly string[]): T | undefined {
  let manifest: BuildManifest<T>
  try {
    manifest = JSON.parse(readFileSync(manifestPath(name), 'utf8')) as BuildManifest<T>
  } catch {
    return undefined // not built by `npm run build` (tsc alone does not write it)
  }

  const hashes = Object.entries(fileHashes(dir, files))
  const unchanged = hashes.length === Object.keys(manifest.files).length && hashes.every(([file, hash]) => manifest.files[file] === hash)
  return unchanged ? manifest.value : undefined
}
