import assert from 'node:assert/strict'
import {appendFileSync, cpSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, it} from 'node:test'

import {UNKNOWN_REASONS} from '../../src/contract/finding.js'
import {RULE_COST_BUDGET} from '../../src/engine/cel-cost.js'
import {lintRule, RuleLoadError} from '../../src/engine/rule-lint.js'
import type {LoadedRule} from '../../src/engine/rule-lint.js'
import {RULE_FILE_SCHEMA} from '../../src/engine/rule-schema.js'
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

/** node/probe (probe.yaml), one YAML line an item, with sections replaced: each problem's line is known by counting. */
const PROBE: Record<string, string[]> = {
  scope: ['scope: node'],
  id: ['id: node/probe'],
  subject: [],
  severity: ['severity: warning'],
  title: ['title: t'],
  description: ['description: d'],
  needs: ['needs: [kernel.version]'],
  data: [],
  skip: [],
  outcomes: ['outcomes:', '  - status: fail', `    when: 'kernel.version == "1"'`, '    message: m', '  - status: pass', '    message: ok'],
  unknown: ['unknown:', '  message: u'],
  remediation: ['remediation: [none]'],
  references: ['references: [{title: x, url: "https://example.com"}]'],
}
const probe = (sections: Record<string, string[]> = {}) => `${Object.values({...PROBE, ...sections}).flat().join('\n')}\n`
const problemsOf = (sections: Record<string, string[]>) => lintRule(probe(sections), 'probe.yaml').problems.map((problem) => [problem.line, problem.message])
const outcomes = (when: string, message = 'm') => ['outcomes:', '  - status: fail', `    when: ${JSON.stringify(when)}`, `    message: ${JSON.stringify(message)}`, '  - status: pass', '    message: ok']

describe('what rules lint finds in a rule, and where', () => {
  it('gives the rule and its cost when it finds nothing, and only the problems when it finds some', () => {
    assert.deepEqual(Object.keys(lintRule(probe(), 'probe.yaml')).toSorted(), ['cost', 'problems', 'rule'])
    assert.deepEqual(Object.keys(lintRule(probe({outcomes: outcomes('kernel.version')}), 'probe.yaml')), ['problems'])
  })

  it('wants the id to start with the scope, and a subject only on cluster rules', () => {
    assert.deepEqual(problemsOf({id: ['id: cluster/probe']}), [[2, 'rule id "cluster/probe" must start with its scope "node/"']])
    assert.deepEqual(lintRule(probe(), 'other.yaml').problems.map((problem) => [problem.line, problem.message]), [[2, 'rule id "node/probe" must live in a file named probe.yaml']])
    assert.deepEqual(problemsOf({subject: ['subject: DaemonSet']}), [[3, 'only cluster rules have a subject; node and verify rules are about nodes']])
  })

  it('wants a pass and a fail outcome', () => {
    assert.deepEqual(problemsOf({outcomes: ['outcomes:', '  - status: fail', '    message: m']}), [[7, 'a rule needs at least one "pass" outcome']])
    assert.deepEqual(problemsOf({outcomes: ['outcomes:', '  - status: pass', '    message: m']}), [[7, 'a rule needs at least one "fail" outcome']])
  })

  it('wants every fact an expression reads declared, but not a fact named in a string', () => {
    assert.deepEqual(problemsOf({outcomes: outcomes('kernel.release == "1"')}), [[9, 'reads kernel.release, which the rule does not list in needs or uses']])
    assert.deepEqual(problemsOf({outcomes: outcomes('kernel.version == "1" && kernel.release == "x" && os.id == "y"')}), [
      [9, 'reads kernel.release, os.id, which the rule does not list in needs or uses'],
    ])
    assert.deepEqual(problemsOf({outcomes: outcomes('kernel.version == "kernel.release"', "{{ 'kernel.release' }}")}), [])
  })

  it('says which expression is wrong and how: syntax, a condition that is no bool, a placeholder, each at its line', () => {
    assert.deepEqual(problemsOf({outcomes: outcomes('kernel.version ==')}), [[9, 'CEL: Unexpected token: EOF']])
    assert.deepEqual(problemsOf({outcomes: outcomes('kernel.version', '{{ kernel.nope }}')}), [
      [9, 'CEL: a condition must be a bool, this is string'],
      [10, 'CEL in {{ kernel.nope }}: No such key: nope'],
    ])
    assert.deepEqual(problemsOf({skip: ['skip:', '  - message: "{{ kernel.nope }}"', '    when: kernel.version']}), [
      [9, 'CEL: a condition must be a bool, this is string'],
      [8, 'CEL in {{ kernel.nope }}: No such key: nope'],
    ])
    assert.deepEqual(
      problemsOf({
        unknown: ['unknown:', '  message: "{{ kernel.nope }}"', '  byReason:', '    failed: "{{ kernel.nope }}"', '    nope: x'],
        remediation: ['remediation:', '  - fine', '  - "{{ kernel.nope }}"'],
      }),
      [
        [17, `unknown reason "nope"; one of ${UNKNOWN_REASONS.join(', ')}`],
        [14, 'CEL in {{ kernel.nope }}: No such key: nope'],
        [16, 'CEL in {{ kernel.nope }}: No such key: nope'],
        [20, 'CEL in {{ kernel.nope }}: No such key: nope'],
      ],
    )
  })

  it('checks a remediation line\'s condition as an outcome\'s', () => {
    assert.deepEqual(problemsOf({remediation: ['remediation:', '  - fine', '  - when: kernel.version == "5"', '    text: only on 5']}), [])
    assert.deepEqual(problemsOf({remediation: ['remediation:', '  - fine', '  - when: kernel.release == "5"', '    text: "{{ kernel.nope }}"']}), [
      [17, 'reads kernel.release, which the rule does not list in needs or uses'],
      [18, 'CEL in {{ kernel.nope }}: No such key: nope'],
    ])
    assert.deepEqual(problemsOf({remediation: ['remediation:', '  - fine', '  - when: kernel.version', '    text: t']}), [[17, 'CEL: a condition must be a bool, this is string']])
  })

  it('rejects empty conditions and messages', () => {
    assert.deepEqual(problemsOf({outcomes: outcomes('', '')}), [
      [9, 'outcomes.0.when must NOT have fewer than 1 characters'],
      [10, 'outcomes.0.message must NOT have fewer than 1 characters'],
    ])
  })

  it('puts a rule over its cost budget at its costliest expression', () => {
    // The message: 1 + 2 + 1,000 × (1 + 2 + 1,000 × 3); the condition 5.
    const zeros = JSON.stringify(Array.from({length: 1000}, () => 0))
    const problems = problemsOf({data: [`data: {xs: ${zeros}, ys: ${zeros}}`], outcomes: outcomes('kernel.version == "1"', '{{ data.xs.exists(x, data.ys.exists(y, x < y)) }}')})
    assert.deepEqual(
      problems.map(([line, message]) => [line, String(message).split('. ', 1)[0]]),
      [[11, 'rule node/probe: its CEL is estimated to cost 3,003,008 (this expression 3,003,003), over the budget of 1,000,000']],
    )
  })

  it('says every problem of a file, one a line, when loading it fails', () => {
    assert.throws(
      () => loadRules([{path: bad('typo-field')}]),
      (error: unknown) => error instanceof RuleLoadError && error.message.split('\n').length === 2,
    )
  })

  it('describes messages and conditions in the rule file schema, for editors', () => {
    const schema = JSON.stringify(RULE_FILE_SCHEMA)
    assert.ok(schema.includes('"description":"Text; {{ cel-expression }} is replaced by its value."'))
    assert.ok(schema.includes('"description":"A CEL expression over the facts."'))
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
