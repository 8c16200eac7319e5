import assert from 'node:assert/strict'
import {appendFileSync, cpSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, it} from 'node:test'

import {RULE_COST_BUDGET} from '../../src/engine/cel-cost.js'
import {lintRule, RuleLoadError} from '../../src/engine/rule-lint.js'
import type {LoadedRule} from '../../src/engine/rule-lint.js'
import {readBuildManifest} from '../../src/services/build-manifest.js'
import {ruleFiles} from '../../src/services/rule-files.js'
import {lintRuleFile, loadRules} from '../../src/services/rule-loading.js'
import {BUILTIN_RULES_DIR} from '../../src/util/paths.js'
import {FIXTURES} from '../helpers/paths.js'
import {atBudgetRule, ruleText} from '../helpers/rule-text.js'

const bad = (name: string) => join(FIXTURES, 'bad-rules', `${name}.yaml`)

describe('rule files', () => {
  it('loads every built-in rule without a problem', () => {
    const rules = loadRules([{label: 'rules', path: BUILTIN_RULES_DIR}])
    assert.ok(rules.length >= 10)
    assert.ok(rules.some((rule) => rule.id === 'node/kernel-version'))
  })

  it('names a misspelt field with its line and the field it meant', () => {
    const {problems} = lintRuleFile(bad('typo-field'))
    assert.deepEqual(
      problems.map((problem) => [problem.line, problem.message]),
      [
        [1, 'rule must have required property \'severity\''],
        [3, 'rule: unknown field "severty"; did you mean "severity"?'],
      ],
    )
  })

  it('rejects a fact that does not exist, at its line', () => {
    const {problems} = lintRuleFile(bad('unknown-fact'))
    assert.equal(problems.length, 1)
    assert.equal(problems[0].line, 8)
    assert.match(problems[0].message, /unknown fact "kernal\.release"/)
  })

  it('type-checks CEL conditions and message placeholders', () => {
    const {problems} = lintRuleFile(bad('cel-type-error'))
    assert.deepEqual(
      problems.map((problem) => problem.line),
      [9, 12],
    )
    assert.match(problems[0].message, /^CEL: .*(string|int)/)
    assert.match(problems[1].message, /kernel\.nope|nope/)
  })

  it('reports YAML syntax errors with their position', () => {
    const {problems} = lintRuleFile(bad('broken-yaml'))
    assert.ok(problems.length > 0)
    assert.match(problems[0].message, /^YAML: /)
    assert.ok(problems[0].line >= 4)
  })

  it('wants the file named after the rule id', () => {
    const {problems} = lintRuleFile(bad('wrong-file-name'))
    assert.match(problems[0].message, /must live in a file named some-other-name\.yaml/)
  })

  it('refuses the same rule id twice', () => {
    assert.throws(
      () => loadRules([{label: 'rules', path: BUILTIN_RULES_DIR}, {path: join(BUILTIN_RULES_DIR, 'node', 'kernel-version.yaml')}]),
      (error: unknown) => error instanceof RuleLoadError && /already defined in rules\/node\/kernel-version\.yaml/.test(error.message),
    )
  })
})

const readRuleManifest = (dir: string) => readBuildManifest<LoadedRule[]>('rules', dir, ruleFiles(dir))

describe('the built-in rules linted by the build (build manifest)', () => {
  it('holds the built-in rules exactly as linting them gives', () => {
    assert.deepEqual(readRuleManifest(BUILTIN_RULES_DIR), loadRules([{label: 'rules', path: BUILTIN_RULES_DIR}]))
  })

  it('is not used once a rule file is added or changed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kpx-rules-'))
    try {
      cpSync(BUILTIN_RULES_DIR, dir, {recursive: true})
      assert.ok(readRuleManifest(dir), 'the same files, elsewhere')
      cpSync(join(dir, 'node', 'kernel-version.yaml'), join(dir, 'node', 'kernel-version-copy.yaml'))
      assert.equal(readRuleManifest(dir), undefined, 'a file added')
      rmSync(join(dir, 'node', 'kernel-version-copy.yaml'))
      appendFileSync(join(dir, 'node', 'kernel-version.yaml'), '# edited\n')
      assert.equal(readRuleManifest(dir), undefined, 'a file changed')
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})

describe('the CEL cost budget of a rule', () => {
  it('rejects eight nested comprehensions over ten items at the condition, saying the estimate, the budget and what to do', () => {
    const {problems} = lintRuleFile(bad('nested-comprehensions'))
    assert.deepEqual(
      problems.map((problem) => [problem.line, problem.message.split('. ', 1)[0]]),
      [[9, 'rule node/nested-comprehensions: its CEL is estimated to cost 433,333,332, over the budget of 1,000,000']],
    )
    assert.match(problems[0].message, /nest fewer of them, or iterate over shorter lists$/)
  })

  it('accepts a rule that costs the budget and rejects one that costs 1 more', () => {
    const accepted = lintRule(atBudgetRule(9940), 'at-budget.yaml')
    assert.deepEqual([accepted.problems, accepted.cost], [[], RULE_COST_BUDGET])
    const {problems} = lintRule(atBudgetRule(9941), 'at-budget.yaml')
    assert.equal(problems.length, 1)
    assert.match(problems[0].message, /^rule node\/at-budget: its CEL is estimated to cost 1,000,001 \(this expression 999,003\), over the budget of 1,000,000\./)
  })

  it('prices every built-in rule under a tenth of the budget', () => {
    for (const file of ruleFiles(BUILTIN_RULES_DIR)) {
      const {cost, problems} = lintRuleFile(file)
      assert.deepEqual(problems, [], file)
      assert.ok(cost !== undefined && cost < RULE_COST_BUDGET / 10, `${file}: ${cost}`)
    }
  })

  it('rejects matches(), whose regular expressions backtrack on a fact', () => {
    const {problems} = lintRule(ruleText('regex', {when: 'kernel.version.matches("^(5|6)+$")'}), 'regex.yaml')
    assert.deepEqual(
      problems.map((problem) => problem.message.split(':', 2).join(':')),
      ['CEL: matches() is not available in rules'],
    )
  })

  it('rejects an expression larger than rules are allowed, saying what to do', () => {
    const when = Array.from({length: 100}, (_, index) => `kernel.version == "${index}"`).join(' || ')
    const {problems} = lintRule(ruleText('huge', {when}), 'huge.yaml')
    assert.equal(problems.length, 1)
    assert.match(problems[0].message, /^CEL: Exceeded maxAstNodes \(256\); rule expressions are kept small: split it, or move constants into data$/)
  })
})
