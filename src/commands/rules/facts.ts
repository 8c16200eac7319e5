import {Flags} from '@oclif/core'

import {KpxCommand} from '../../cli/base-command.js'
import {type FactSpec, factSpecs} from '../../facts/catalog.js'
import {renderTable} from '../../report/table.js'

export default class RulesFacts extends KpxCommand {
  static summary = 'List the facts rules can read in CEL, with their types.'

  static examples = ['<%= config.bin %> rules facts', '<%= config.bin %> rules facts --scope node --json']

  static flags = {
    scope: Flags.string({description: 'Facts of this scope.', options: ['node', 'cluster'], default: 'node'}),
  }

  async run(): Promise<readonly FactSpec[]> {
    const {flags} = await this.parse(RulesFacts)
    const specs = factSpecs(flags.scope === 'cluster' ? 'cluster' : 'node')
    if (!this.jsonEnabled()) this.log(renderTable(['FACT', 'TYPE', 'MEANING'], specs.map((spec) => [spec.path, spec.type, spec.description])))
    return specs
  }
}
