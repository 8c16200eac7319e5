import {readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'

import {PACKAGE_ROOT} from '../../src/util/paths.js'

/** A relative import or re-export, static, type-only, side-effect or dynamic: the path is group 1 or 2. */
export const RELATIVE_IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,]+?\s+from\s+)?'(\.{1,2}\/[^']+)'|import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g

/** Every .ts file under `folder` (repository paths, such as src/engine/cel.ts) with the files it imports. */
export function importGraph(folder: string): Map<string, string[]> {
  const files = readdirSync(join(PACKAGE_ROOT, folder), {recursive: true, withFileTypes: true})
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    const targets = [...text.matchAll(RELATIVE_IMPORT)].map((match) => relative(PACKAGE_ROOT, resolve(dirname(file), (match[1] ?? match[2]).replace(/\.js$/, '.ts'))))
    graph.set(relative(PACKAGE_ROOT, file), [...new Set(targets)])
  }

  return graph
}
