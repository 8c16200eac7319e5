import {type ProbedNode, probeNodesOverSsh} from '../sources/node/node-probes.js'
import type {SshProbeOptions} from '../sources/ssh/options.js'
import type {SshTarget} from '../sources/ssh/target.js'
import {type ProgressTask, showProbeProgress} from './progress.js'

/** probeNodesOverSsh with its counts in a progress step. One ProbedNode per target, in the targets' order (targets that are one connection share one). */
export async function probeOverSshWithProgress(targets: SshTarget[], probe: SshProbeOptions, task: ProgressTask): Promise<ProbedNode[]> {
  const shown = showProbeProgress(task, targets.length)
  const nodes = await probeNodesOverSsh(targets, {...probe, onProgress: shown.onProgress})
  const progress = shown.last()
  task.title = `Probed ${new Set(nodes).size} node(s) over SSH: ${progress.succeeded} done, ${progress.failed} failed`
  if (progress.failed > 0) task.fellShort(`${progress.failed} of ${targets.length} could not be probed, see the report`)
  return nodes
}
