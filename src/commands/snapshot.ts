import * as Flags from '@oclif/core/flags'

import {KpxCommand} from '../cli/base-command.js'
import {connectionFlags, connectionOptions} from '../cli/check-flags.js'
import {configFlags} from '../cli/config-file.js'
import {helpDescription} from '../cli/help-text.js'
import {type SnapshotResult, writeSnapshot} from '../services/cluster-reads.js'
import {checkOutputFolder} from '../util/user-file.js'

export default class Snapshot extends KpxCommand {
  static summary = 'Save what the cluster checks read from the API to a file, to evaluate offline with `cluster --snapshot`.'

  static description = helpDescription([
    'The snapshot holds only the objects, fields, flags, environment variables and ConfigMap keys the checks read (no',
    'Secrets; nothing else is collected, so nothing needs redacting): it can travel to where kpx-check runs, or be',
    'attached to a change ticket.',
  ])

  static examples = ['<%= config.bin %> snapshot -o prod.snapshot.json', '<%= config.bin %> cluster --snapshot prod.snapshot.json']

  static flags = {
    output: Flags.string({char: 'o', description: 'File to write.', required: true, helpValue: 'FILE'}),
    ...connectionFlags,
    ...configFlags,
  }

  async run(): Promise<SnapshotResult> {
    const {flags} = await this.parse(Snapshot)
    // Checked before the cluster is read: reading 5,000 nodes for a file that cannot be written wastes minutes.
    await checkOutputFolder(`--output ${flags.output}`, flags.output)
    const result = await writeSnapshot(connectionOptions(flags), flags.output, this.progress())
    if (!this.jsonEnabled()) this.logToStderr(`Wrote ${flags.output}`)
    return result
  }
}
