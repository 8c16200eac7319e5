import {existsSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

/** The folder holding kpx-check's package.json, found from this compiled file (dist/src/paths.js). */
function findPackageRoot(start: string): string {
  let dir = start
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`kpx-check: no package.json above ${start}`)
    dir = parent
  }

  return dir
}

export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)))
export const BUILTIN_RULES_DIR = join(PACKAGE_ROOT, 'rules')
/** How each platform switches: the plan's recipes (data, like the rules, with a schema of their own). */
export const BUILTIN_PLATFORMS_DIR = join(PACKAGE_ROOT, 'platforms')
export const COLLECTOR_SCRIPT = join(PACKAGE_ROOT, 'src', 'sources', 'collector', 'collect.sh')
