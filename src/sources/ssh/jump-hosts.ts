/**
 * Jump hosts (`--jump`, ProxyJump): one SSH connection per chain of hops, opened when the first
 * node needs it and shared by every node behind it; each node gets its own tunnel (a
 * direct-tcpip channel) through it. A fleet of 500 nodes behind one bastion thus costs the
 * bastion one login, not 500.
 */
import type {Duplex} from 'node:stream'

import {type ConnectRequest, SshFailure, SshSession} from './session.js'
import type {SshEndpoint} from './target.js'

/** One hop, resolved: where it is and how to log in there. */
export interface Hop extends Omit<ConnectRequest, 'sock'> {
  origin: string
}

export class JumpHosts {
  private readonly sessions = new Map<string, Promise<SshSession>>()

  constructor(private readonly timeoutSeconds: number) {}

  /** A stream to `destination` through `chain` (the hops in order). */
  async tunnel(chain: Hop[], destination: SshEndpoint): Promise<Duplex> {
    const jump = chain.at(-1)!
    const session = await this.session(chain)
    try {
      return await session.tunnel(destination.host, destination.port)
    } catch (error) {
      throw viaJump(jump, error)
    }
  }

  closeAll(): void {
    for (const session of this.sessions.values()) session.then((open) => open.close(), () => {})
  }

  private session(chain: Hop[]): Promise<SshSession> {
    const key = chain.map((hop) => hop.origin).join(',')
    let session = this.sessions.get(key)
    if (!session) {
      session = this.open(chain)
      // A failed jump host fails every node behind it with the same reason; the nodes report it.
      session.catch(() => {})
      this.sessions.set(key, session)
    }

    return session
  }

  private async open(chain: Hop[]): Promise<SshSession> {
    const hop = chain.at(-1)!
    const sock = chain.length > 1 ? await this.tunnel(chain.slice(0, -1), hop.endpoint) : undefined
    const session = new SshSession(this.timeoutSeconds)
    try {
      await session.connect({...hop, ...(sock ? {sock} : {})})
    } catch (error) {
      throw viaJump(hop, error)
    }

    session.keepOpen()
    return session
  }
}

function viaJump(hop: Hop, error: unknown): unknown {
  return error instanceof SshFailure ? new SshFailure(error.kind, `jump host ${hop.origin}: ${error.detail}`) : error
}
