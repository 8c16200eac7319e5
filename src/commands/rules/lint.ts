import * as Args from '@oclif/core/args'
import {existsSync} from 'node:fs'

import {KpxCommand} from '../../cli/base-command.js'
import {EXIT_CODES} from '../../contract/exit-codes.js'
import {formatCost, RULE_COST_BUDGET} from '../../engine/cel-cost.js'
import {ruleFiles} from '../../services/rule-files.js'
import {lintRuleFile} from '../../services/rule-loading.js'
import {UsageError} from '../../util/errors.js'
import {type FileProblem, formatProblem} from '../../util/yaml-file.js'

interface LintResult {
  files: string[]
  problems: FileProblem[]
  /** The estimated CEL cost of each valid rule; a rule may cost at most `costBudget`. */
  costs: Array<{cost: number; rule: string}>
  costBudget: number
}

export default class RulesLint extends KpxCommand {
  static summary = 'Validate rule files: schema, known facts, CEL types; errors as file:line:column.'

  static description = 'Exits 0 when every file is valid and 2 when any is not, so it can gate a rules repository in CI.'

  static examples = ['<%= config.bin %> rules lint ./my-rules', '<%= config.bin %> rules lint rules/node/kernel-version.yaml']

  static strict = false

  static args = {
    path: Args.string({description: 'Rule files or folders (repeatable).', required: true}),
  }

  async run(): Promise<LintResult> {
    const {argv} = await this.parse(RulesLint)
    const files: string[] = []
    for (const path of argv as string[]) {
      if (!existsSync(path)) throw new UsageError(`${path}: no such file or folder`)
      files.push(...ruleFiles(path))
    }

    if (files.length === 0) throw new UsageError(`no rule files (*.yaml, *.yml) in ${(argv as string[]).join(', ')}`)
    const results = files.map((file) => lintRuleFile(file))
    const problems = results.flatMap((result) => result.problems)
    const costs = results.flatMap(({cost, rule}) => (rule && cost !== undefined ? [{rule: rule.id, cost}] : [])).toSorted((a, b) => b.cost - a.cost)
    if (!this.jsonEnabled()) {
      for (const problem of problems) this.log(formatProblem(problem))
      const costliest = costs.length > 0 ? `; the costliest rule, ${costs[0].rule}, is estimated at ${formatCost(costs[0].cost)} of the ${formatCost(RULE_COST_BUDGET)} CEL budget` : ''
      this.logToStderr(`${files.length} file(s) checked, ${problems.length} problem(s)${costliest}`)
    }

    process.exitCode = problems.length > 0 ? EXIT_CODES.usageError : EXIT_CODES.go
    return {files, problems, costs, costBudget: RULE_COST_BUDGET}
  }
}
