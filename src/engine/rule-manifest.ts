/**
 * The built-in rules as `npm run build` linted them (write-rule-manifest.ts), with each rule file's
 * SHA-256. Reading them from here skips YAML, the rule schema and the CEL checks, which cost about a
 * third of a second at every start; a rule file added, removed or changed since the build means the
 * rules are linted again.
 */
import {createHash} from 'node:crypto'
import {readFileSync, writeFileSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'

import {ruleFiles} from './rule-files.js'
import type {LoadedRule} from './rule-loader.js'

/** Beside this module in dist: shipped with it, and rewritten by every build. */
const MANIFEST = join(dirname(fileURLToPath(import.meta.url)), 'builtin-rules.json')

interface RuleManifest {
  /** SHA-256 of each rule file, by its path under the rules folder. */
  files: Record<string, string>
  rules: LoadedRule[]
}

function fileHashes(dir: string): Record<string, string> {
  return Object.fromEntries(ruleFiles(dir).map((file) => [relative(dir, file), createHash('sha256').update(readFileSync(file)).digest('hex')]))
}

export function writeRuleManifest(dir: string, rules: LoadedRule[]): void {
  const manifest: RuleManifest = {files: fileHashes(dir), rules}
  writeFileSync(MANIFEST, JSON.stringify(manifest))
}

/** The linted rules of `dir` if its rule files are the ones the build linted; otherwise undefined. */
export function readRuleManifest(dir: string): LoadedRule[] | undefined {
  let manifest: RuleManifest
  try {
    manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as RuleManifest
  } catch {
    return undefined // not built by `npm run build` (tsc alone does not write it)
  }

  const files = Object.entries(fileHashes(dir))
  const unchanged = files.length === Object.keys(manifest.files).length && files.every(([file, hash]) => manifest.files[file] === hash)
  return unchanged ? manifest.rules : undefined
}
