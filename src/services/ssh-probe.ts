import {type ProbedNode, probeNodesOverSsh} from '../sources/node/node-probes.js'
import type {FleetProgress, SshProbeOptions} from '../sources/ssh/options.js'
import type {SshTarget} from '../sources/ssh/target.js'
import type {ProgressTask} from './progress.js'

/** probeNodesOverSsh with its counts in a progress step. One ProbedNode per target, in the targets' order (targets that are one connection share one). */
export async function probeOverSshWithProgress(targets: SshTarget[], probe: SshProbeOptions, task: ProgressTask): Promise<ProbedNode[]> {
  let progress: FleetProgress = {succeeded: 0, failed: 0, remaining: targets.length}
  const nodes = await probeNodesOverSsh(targets, {
    ...probe,
    onProgress(update) {
      progress = update
      task.status(`${progress.succeeded} done, ${progress.failed} failed, ${progress.remaining} remaining`)
    },
  })
  task.title = `Probed ${new Set(nodes).size} node(s) over SSH: ${progress.succeeded} done, ${progress.failed} failed`
  if (progress.failed > 0) task.fellShort(`${progress.failed} of ${targets.length} could not be probed, see the report`)
  return nodes
}
