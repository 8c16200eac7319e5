import {existsSync} from 'node:fs'

import type {Severity} from '../contract/finding.js'
import {subjectKindOf} from '../engine/evaluate.js'
import type {LoadedRule} from '../engine/rule-lint.js'
import {type RulePlan} from '../planner/plan-input.js'
import {UsageError} from '../util/errors.js'
import {BUILTIN_RULES_DIR} from '../util/paths.js'
import {readBuildManifest} from './build-manifest.js'
import {ruleFiles} from './rule-files.js'

/** The built-in rules plus the user's (--rules), validated; a broken file is a usage error. */
export async function loadRuleCatalog(extraPaths: readonly string[]): Promise<LoadedRule[]> {
  for (const path of extraPaths) {
    if (!existsSync(path)) throw new UsageError(`--rules ${path}: no such file or folder`)
  }

  // The built-in rules alone come linted by the build; other rules need the linter (YAML, schema, CEL), loaded here.
  const linted = extraPaths.length === 0 ? readBuildManifest<LoadedRule[]>('rules', BUILTIN_RULES_DIR, ruleFiles(BUILTIN_RULES_DIR)) : undefined
  if (linted) return linted.map((rule) => migratingNodesOnly(rule))
  const [{loadRules}, {RuleLoadError}] = await Promise.all([import('./rule-loading.js'), import('../engine/rule-lint.js')])
  try {
    return loadRules([{label: 'rules', path: BUILTIN_RULES_DIR}, ...extraPaths.map((path) => ({path}))]).map((rule) => migratingNodesOnly(rule))
  } catch (error) {
    if (error instanceof RuleLoadError) {
      throw new UsageError(`invalid rule files:\n${error.message}`, ['Check them with: kpx-check rules lint PATH'])
    }

    throw error
  }
}

/** The facts that tell a node already switched. */
const RUNNING_MODE_FACTS = ['kubeProxy.runningMode', 'kubeProxy.runningModeEvidence']

/** The skip every node rule about the switch gets: the node is seen running nftables already. */
export const SWITCHED_NODE_SKIP = {
  when: 'has(kubeProxy.runningMode) && kubeProxy.runningMode == "nftables"',
  message: 'kube-proxy on this node already runs in nftables mode ({{ kubeProxy.runningModeEvidence }}): nothing to migrate here.',
} as const

/**
 * A node seen running nftables has nothing left to migrate: a node rule about the switch (evaluate
 * when-migrating) does not apply there, and says why. A node not seen running it (iptables, IPVS, or
 * its mode unknown) keeps every check, whatever kube-proxy's configuration says.
 */
function migratingNodesOnly(rule: LoadedRule): LoadedRule {
  if (rule.scope !== 'node' || rule.evaluate === 'always') return rule
  return {...rule, skip: [SWITCHED_NODE_SKIP, ...(rule.skip ?? [])], uses: [...new Set([...(rule.uses ?? []), ...RUNNING_MODE_FACTS])]}
}

/** --skip and --severity must name rules that exist, so a typo does not silently keep a rule. */
export function validateRuleSelection(rules: readonly LoadedRule[], skip: readonly string[], severity: ReadonlyMap<string, Severity>): void {
  const ids = new Set(rules.map((rule) => rule.id))
  for (const [flag, id] of [...skip.map((id) => ['--skip', id]), ...[...severity.keys()].map((id) => ['--severity', id])]) {
    if (!ids.has(id)) throw new UsageError(`${flag} ${id}: no such rule`, ['List the rules with: kpx-check rules'])
  }
}

/** What the plan does with each rule's failures: the phase of the fix, and configuration to add; and what the rule is about. */
export function rulePlans(rules: readonly LoadedRule[]): Map<string, RulePlan> {
  return new Map(rules.map((rule) => [rule.id, {phase: rule.phase ?? 'prerequisites', subjectKind: subjectKindOf(rule), ...(rule.config ? {config: rule.config} : {})}]))
}
