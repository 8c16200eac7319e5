import * as Flags from '@oclif/core/flags'

import {KpxCommand} from '../../cli/base-command.js'
import {FACT_STRING_LENGTH, type FactSpec, factSpecs} from '../../facts/catalog.js'
import {renderTable} from '../../report/table.js'

/** The size rules' CEL costs are estimated with (a fact can be larger; evaluation prices it as it is). */
function lintedSize(spec: FactSpec): string {
  const chars = `${spec.maxLength ?? FACT_STRING_LENGTH} chars`
  if ('maxItems' in spec) return `${spec.maxItems} × ${chars}`
  return spec.type === 'string' ? chars : ''
}

export default class RulesFacts extends KpxCommand {
  static summary = 'List the facts rules can read in CEL, with their types.'

  static examples = ['<%= config.bin %> rules facts', '<%= config.bin %> rules facts --scope node --json']

  static flags = {
    scope: Flags.string({description: 'Facts of this scope.', options: ['node', 'cluster'], default: 'node'}),
  }

  async run(): Promise<readonly FactSpec[]> {
    const {flags} = await this.parse(RulesFacts)
    const specs = factSpecs(flags.scope === 'cluster' ? 'cluster' : 'node')
    if (!this.jsonEnabled()) this.log(renderTable(['FACT', 'TYPE', 'LINTED FOR', 'MEANING'], specs.map((spec) => [spec.path, spec.type, lintedSize(spec), spec.description])))
    return specs
  }
}
