import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {KpxCommand} from '../cli/base-command.js'
import {connectionFlags, connectionOptions} from '../cli/check-flags.js'
import {configFlags} from '../cli/config-file.js'
import {helpDescription} from '../cli/help-text.js'
import {type SnapshotResult, writeSnapshot} from '../services/cluster-reads.js'
import {UsageError} from '../util/errors.js'
import {checkOutputFolder} from '../util/user-file.js'

export default class Snapshot extends KpxCommand {
  static summary = 'Save what the cluster checks read from the API to a file, to evaluate offline with `cluster --snapshot`.'

  static description = helpDescription([
    'The snapshot holds only the objects, fields, flags, environment variables and ConfigMap keys the checks read (no',
    'Secrets; nothing else is collected, so nothing needs redacting): it can travel to where kpx-check runs, or be',
    'attached to a change ticket.',
  ])

  static examples = ['<%= config.bin %> snapshot prod.snapshot.json', '<%= config.bin %> snapshot --context prod-eu -f prod-eu.snapshot.json', '<%= config.bin %> cluster --snapshot prod.snapshot.json']

  static args = {
    file: Args.string({description: 'File to write (or -f FILE, or -o FILE).'}),
  }

  static flags = {
    file: Flags.string({char: 'f', description: 'File to write, as the argument FILE.', helpValue: 'FILE', exclusive: ['output']}),
    output: Flags.string({char: 'o', description: 'File to write, as the argument FILE.', helpValue: 'FILE', exclusive: ['file']}),
    ...connectionFlags,
    ...configFlags,
  }

  async run(): Promise<SnapshotResult> {
    const {args, flags} = await this.parse(Snapshot)
    const file = snapshotFile(args.file, flags)
    // Checked before the cluster is read: reading 5,000 nodes for a file that cannot be written wastes minutes.
    await checkOutputFolder(file.named, file.path)
    const result = await writeSnapshot(connectionOptions(flags), file.path, this.progress())
    if (!this.jsonEnabled()) this.logToStderr(`Wrote ${file.path}`)
    return result
  }
}

/** The one file to write, given as the argument, -f or -o, and how its errors name it. */
function snapshotFile(argument: string | undefined, flags: {file?: string; output?: string}): {named: string; path: string} {
  const given = [
    ...(argument === undefined ? [] : [{named: argument, path: argument}]),
    ...(flags.file === undefined ? [] : [{named: `--file ${flags.file}`, path: flags.file}]),
    ...(flags.output === undefined ? [] : [{named: `--output ${flags.output}`, path: flags.output}]),
  ]
  if (given.length === 0) throw new UsageError('snapshot needs the file to write', ['kpx-check snapshot FILE (or -f FILE).'])
  if (given.length > 1) throw new UsageError(`snapshot writes one file: ${given.map((file) => file.named).join(' and ')} are two`, ['Give the file once: kpx-check snapshot FILE.'])
  return given[0]
}
