import {readdirSync, statSync} from 'node:fs'
import {basename, extname, join} from 'node:path'

const RULE_EXTENSIONS = new Set(['.yaml', '.yml'])
/** rules/platforms holds the plan's platform recipes, which have a schema of their own. */
const PLATFORMS_FOLDER = 'platforms'

/** Rule files under a path (a file or a folder, searched recursively), sorted for stable output. */
export function ruleFiles(path: string): string[] {
  const stat = statSync(path)
  if (stat.isFile()) return [path]
  return readdirSync(path, {recursive: true, withFileTypes: true})
    .filter((entry) => entry.isFile() && RULE_EXTENSIONS.has(extname(entry.name)) && basename(entry.parentPath) !== PLATFORMS_FOLDER)
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
}
