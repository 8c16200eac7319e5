import {readdirSync, statSync} from 'node:fs'
import {extname, join} from 'node:path'

const RULE_EXTENSIONS = new Set(['.yaml', '.yml'])

/** Rule files under a path (a file or a folder, searched recursively), sorted for stable output. */
export function ruleFiles(path: string): string[] {
  const stat = statSync(path)
  // Anything but a folder is one file, which the reader refuses unless it is a regular file.
  if (!stat.isDirectory()) return [path]
  return readdirSync(path, {recursive: true, withFileTypes: true})
    .filter((entry) => entry.isFile() && RULE_EXTENSIONS.has(extname(entry.name)))
    .map((entry) => join(entry.parentPath, entry.name))
    .toSorted()
}
