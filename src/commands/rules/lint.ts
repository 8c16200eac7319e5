import {Args} from '@oclif/core'
import {existsSync} from 'node:fs'

import {KpxCommand} from '../../cli/base-command.js'
import {EXIT_CODES} from '../../contract/exit-codes.js'
import {ruleFiles} from '../../services/rule-files.js'
import {lintRuleFile} from '../../services/rule-loading.js'
import {UsageError} from '../../util/errors.js'
import {type FileProblem, formatProblem} from '../../util/yaml-file.js'

export interface LintResult {
  files: string[]
  problems: FileProblem[]
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
    const problems = files.flatMap((file) => lintRuleFile(file).problems)
    if (!this.jsonEnabled()) {
      for (const problem of problems) this.log(formatProblem(problem))
      this.logToStderr(`${files.length} file(s) checked, ${problems.length} problem(s)`)
    }

    process.exitCode = problems.length > 0 ? EXIT_CODES.usageError : EXIT_CODES.go
    return {files, problems}
  }
}
