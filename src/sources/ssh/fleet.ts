/**
 * Probing a fleet over SSH: every target is resolved first (so a bad host name or key is a usage
 * error before any connection), then at most `concurrency` nodes are probed at once, each bounded
 * by its own timeout. A node's failure is its own: it becomes a result with a reason and the
 * others go on. Each node's output is handed to `toResult` as soon as it arrives, so memory grows
 * with the concurrency, not with the fleet.
 */
import {readFileSync} from 'node:fs'
import {userInfo} from 'node:os'
import type {Duplex} from 'node:stream'

import {COLLECTOR_SCRIPT} from '../../util/paths.js'
import {forEachConcurrently} from '../../util/pool.js'
import {progressCounter} from '../probe.js'
import {type AuthPlan, Credentials} from './credentials.js'
import {type Hop, JumpHosts} from './jump-hosts.js'
import {KnownHosts} from './known-hosts.js'
import type {SshProbeOptions} from './options.js'
import {type RemoteCollectorRun, runRemoteCollector} from './remote-collector.js'
import {type HostKeyRules, SshFailure, SshSession} from './session.js'
import {SshConfig} from './ssh-config.js'
import {DEFAULT_SSH_PORT, formatEndpoint, type SshEndpoint, type SshTarget} from './target.js'

/** What came back from one target: the collector's output, or why there is none. */
type SshCollectorRun = RemoteCollectorRun & {
  target: SshTarget
  /** The connection as `user@host:port`, after ~/.ssh/config. */
  origin: string
}

interface NodePlan extends Hop {
  target: SshTarget
  jump: Hop[]
  /** Positions of the targets that resolve to this connection (a host listed twice is probed once). */
  indices: number[]
}

/**
 * Runs the collector on every target and turns each run into a result with `toResult`, in the
 * targets' order. Throws a UsageError, before connecting anywhere, for a target, key or
 * configuration line that cannot be used.
 */
export async function runCollectorOverSsh<Result>(targets: SshTarget[], options: SshProbeOptions, toResult: (run: SshCollectorRun) => Result): Promise<Result[]> {
  const resolver = new TargetResolver(options)
  const plans = new Map<string, NodePlan>()
  for (const [index, target] of targets.entries()) {
    const plan = resolver.resolve(target)
    const earlier = plans.get(plan.origin)
    if (earlier) earlier.indices.push(index)
    else plans.set(plan.origin, {...plan, indices: [index]})
  }

  const script = readFileSync(COLLECTOR_SCRIPT)
  const jumps = new JumpHosts(options.timeoutSeconds)
  const results = Array.from<Result>({length: targets.length})
  const ended = progressCounter(plans.size, options.onProgress)
  try {
    await forEachConcurrently([...plans.values()], options.concurrency, async (plan) => {
      const {ok, result} = await probeNode(plan, {script, jumps, options}, toResult)
      for (const index of plan.indices) results[index] = result
      ended(ok)
    })
  } finally {
    jumps.closeAll()
  }

  return results
}

/** Resolves targets and jump hosts through ~/.ssh/config and the defaults, and picks their keys. */
class TargetResolver {
  private readonly config: SshConfig
  private readonly credentials: Credentials
  private readonly hostKeys: HostKeyRules

  constructor(private readonly options: SshProbeOptions) {
    this.config = options.sshConfigFile ? SshConfig.load(options.sshConfigFile, true) : SshConfig.EMPTY
    this.credentials = new Credentials(options.identityFiles, options.agentSocket, options.passphrase)
    this.hostKeys = {knownHosts: KnownHosts.load(options.knownHostsFiles), policy: options.hostKeyPolicy, files: options.knownHostsFiles}
  }

  resolve(target: SshTarget): Omit<NodePlan, 'indices'> {
    const {hop, proxyJump} = this.hop(target)
    const chain = this.options.jump.length > 0 ? this.options.jump : proxyJump
    return {...hop, target, jump: chain.map((jump) => this.hop(jump).hop)}
  }

  private hop(target: SshTarget): {hop: Hop; proxyJump: SshTarget[]} {
    const settings = this.config.settingsFor(target.host)
    const endpoint: SshEndpoint = {
      host: settings.hostName ?? target.host,
      port: target.port ?? settings.port ?? DEFAULT_SSH_PORT,
      user: target.user ?? settings.user ?? userInfo().username,
    }
    const auth: AuthPlan = this.credentials.planFor(endpoint.user, settings.identityFiles)
    return {
      hop: {endpoint, origin: formatEndpoint(endpoint), auth: auth.methods, authTried: auth.tried, hostKeys: this.hostKeys},
      proxyJump: settings.proxyJump,
    }
  }
}

interface ProbeContext {
  script: Buffer
  jumps: JumpHosts
  options: SshProbeOptions
}

/**
 * Probes one node within --timeout, from the TCP connect to the end of `toResult` (parsing and
 * deriving its output): a result ready after the deadline becomes the timeout's.
 */
async function probeNode<Result>(plan: NodePlan, context: ProbeContext, toResult: (run: SshCollectorRun) => Result): Promise<{ok: boolean; result: Result}> {
  const session = new SshSession(context.options.timeoutSeconds)
  const tunnel: Promise<Duplex> | undefined = plan.jump.length > 0 ? context.jumps.tunnel(plan.jump, plan.endpoint) : undefined
  const {target, origin} = plan
  try {
    const sock = tunnel && (await session.during('while reaching the jump host', tunnel))
    await session.connect({...plan, ...(sock ? {sock} : {})})
    const run: SshCollectorRun = {...(await runRemoteCollector(session, context.script, context.options.sudo)), target, origin}
    return {ok: run.ok, result: session.within("while reading the collector's output", () => toResult(run))}
  } catch (error) {
    if (!(error instanceof SshFailure)) throw error
    return {ok: false, result: toResult({ok: false, failure: {class: error.kind, detail: error.detail}, target, origin})}
  } finally {
    session.close()
    // A tunnel that opened after the node gave up would otherwise stay open on the jump host.
    tunnel?.then((stream) => stream.destroy(), () => {})
  }
}
