import {Flags} from '@oclif/core'
import {writeFile} from 'node:fs/promises'

import {connectionFlags, connectionOptions, KpxCommand} from '../cli/base-command.js'
import {progressMode} from '../cli/progress.js'
import {collectLive} from '../services/cluster-check.js'

export interface SnapshotResult {
  file: string
  resources: Record<string, {count?: number; status: string}>
}

export default class Snapshot extends KpxCommand {
  static summary = 'Save what the cluster checks read from the API to a file, to evaluate offline with `cluster --snapshot`.'

  static description = [
    'The snapshot holds only the objects and fields the checks read (no Secrets, no managedFields; sensitive flags and',
    'environment values redacted), so it can travel to where kpx-check runs, or be attached to a change ticket.',
  ].join('\n')

  static examples = ['<%= config.bin %> snapshot -o prod.snapshot.json', 'kpx-check cluster --snapshot prod.snapshot.json']

  static flags = {
    output: Flags.string({char: 'o', description: 'File to write.', required: true, helpValue: 'FILE'}),
    ...connectionFlags,
  }

  async run(): Promise<SnapshotResult> {
    const {flags} = await this.parse(Snapshot)
    const snapshot = await collectLive(connectionOptions(flags), progressMode({json: this.jsonEnabled(), stderrIsTTY: Boolean(process.stderr.isTTY)}))
    await writeFile(flags.output, `${JSON.stringify(snapshot, null, 1)}\n`)
    const resources = Object.fromEntries(
      Object.entries(snapshot.resources).map(([name, outcome]) => [name, outcome.status === 'ok' ? {status: 'ok', count: outcome.items.length} : {status: outcome.status}]),
    )
    if (!this.jsonEnabled()) this.logToStderr(`Wrote ${flags.output}`)
    return {file: flags.output, resources}
  }
}
