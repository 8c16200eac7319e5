/**
 * Rule files read and linted (YAML, the schema, CEL): loaded only when a rule file must be checked,
 * since the built-in rules come linted by the build.
 */
import {join, relative} from 'node:path'

import {lintRule, type LoadedRule, RuleLoadError} from '../engine/rule-lint.js'
import {MAX_FILE_BYTES, readUserFileSync} from '../util/user-file.js'
import type {FileProblem} from '../util/yaml-file.js'
import {ruleFiles} from './rule-files.js'

/** Lints one rule file. */
export function lintRuleFile(file: string, displayName = file): ReturnType<typeof lintRule> {
  return lintRule(readUserFileSync('rule file', file, {maxBytes: MAX_FILE_BYTES.rule})!, file, displayName)
}

/** Loads every rule under the given paths; any problem in any file fails the whole load. */
export function loadRules(paths: Array<{label?: string; path: string}>): LoadedRule[] {
  const problems: FileProblem[] = []
  const rules: LoadedRule[] = []
  const seen = new Map<string, string>()
  for (const {label, path} of paths) {
    for (const file of ruleFiles(path)) {
      const displayName = label ? join(label, relative(path, file)) : file
      const result = lintRuleFile(file, displayName)
      problems.push(...result.problems)
      if (!result.rule) continue
      const earlier = seen.get(result.rule.id)
      if (earlier) {
        problems.push({file: displayName, line: 1, column: 1, message: `rule id "${result.rule.id}" is already defined in ${earlier}`})
        continue
      }

      seen.set(result.rule.id, displayName)
      rules.push({...result.rule, source: label ?? file})
    }
  }

  if (problems.length > 0) throw new RuleLoadError(problems)
  return rules
}
