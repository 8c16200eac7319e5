import * as Flags from '@oclif/core/flags'

import {KpxCommand} from '../cli/base-command.js'
import {configSchema, configuredCommands} from '../cli/config-file.js'
import {FLEET_SCHEMA} from '../contract/fleet-schema.js'
import {REPORT_SCHEMA} from '../contract/report-schema.js'
import {RULE_FILE_SCHEMA} from '../engine/rule-schema.js'

export default class Schema extends KpxCommand {
  static enableJsonFlag = false

  static summary = 'Print the JSON Schema of the report (with --fleet, of a fleet\'s; with --rule, of a rule file; with --config, of the configuration file).'

  static examples = [
    '<%= config.bin %> schema > kpx-check-report.schema.json',
    '<%= config.bin %> schema --fleet > kpx-check-fleet.schema.json',
    '<%= config.bin %> schema --rule',
    '<%= config.bin %> schema --config > kpx-check-config.schema.json',
  ]

  static flags = {
    rule: Flags.boolean({description: 'Print the schema of a rule file instead.', default: false, exclusive: ['fleet', 'config']}),
    fleet: Flags.boolean({description: 'Print the schema of a fleet report instead (`<%= config.bin %> cluster --all-contexts --json`).', default: false, exclusive: ['config']}),
    config: Flags.boolean({description: 'Print the schema of the configuration file (.kpx-check.yaml) instead.', default: false}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Schema)
    let schema: object = REPORT_SCHEMA
    if (flags.rule) schema = RULE_FILE_SCHEMA
    if (flags.fleet) schema = FLEET_SCHEMA
    if (flags.config) schema = configSchema(await configuredCommands(this.config))
    this.log(JSON.stringify(schema, null, 2))
  }
}
