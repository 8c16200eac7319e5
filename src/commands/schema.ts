import {Flags} from '@oclif/core'

import {KpxCommand} from '../cli/base-command.js'
import {FLEET_SCHEMA} from '../contract/fleet-schema.js'
import {REPORT_SCHEMA} from '../contract/report-schema.js'
import {RULE_FILE_SCHEMA} from '../engine/rule-schema.js'

export default class Schema extends KpxCommand {
  static enableJsonFlag = false

  static summary = 'Print the JSON Schema of the report (with --fleet, of a fleet\'s; with --rule, of a rule file).'

  static examples = ['<%= config.bin %> schema > kpx-check-report.schema.json', '<%= config.bin %> schema --fleet > kpx-check-fleet.schema.json', '<%= config.bin %> schema --rule']

  static flags = {
    rule: Flags.boolean({description: 'Print the schema of a rule file instead.', default: false, exclusive: ['fleet']}),
    fleet: Flags.boolean({description: 'Print the schema of a fleet report instead (`<%= config.bin %> cluster --all-contexts --json`).', default: false}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Schema)
    this.log(JSON.stringify(flags.rule ? RULE_FILE_SCHEMA : (flags.fleet ? FLEET_SCHEMA : REPORT_SCHEMA), null, 2))
  }
}
