import {readFile} from 'node:fs/promises'

import {KpxCommand} from '../cli/base-command.js'
import {helpDescription} from '../cli/help-text.js'
import {COLLECTOR_SCRIPT} from '../util/paths.js'

export default class Collect extends KpxCommand {
  static enableJsonFlag = false

  static summary = 'Print the node facts collector, a POSIX sh script, to run on a node.'

  static description = helpDescription([
    'The script is read-only, bounds every command it runs, needs no Node.js on the node, and prints a',
    'facts bundle (format v1) on standard output. Run it as root to see everything. Given the word kube-proxy-pod,',
    'it runs inside a kube-proxy container (as `cluster --node-probe exec` does) and says what the container cannot see of the node.',
  ])

  static examples = [
    '<%= config.bin %> collect | ssh node-1 sudo sh > node-1.facts',
    '<%= config.bin %> collect > kpx-collect.sh   # copy it to an air-gapped node, run `sh kpx-collect.sh > $(hostname).facts`',
    '<%= config.bin %> collect | kubectl exec -i -n kube-system kube-proxy-8xq2w -- sh -s kube-proxy-pod > node-1.facts',
  ]

  async run(): Promise<void> {
    await this.parse(Collect)
    process.stdout.write(await readFile(COLLECTOR_SCRIPT, 'utf8'))
  }
}
