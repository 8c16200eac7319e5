import {spawn, type SpawnOptions} from 'node:child_process'
import type {IncomingMessage} from 'node:http'
import https from 'node:https'

import type {ClusterAccessReason} from '../../contract/fleet.js'
import {ClusterAccessError, UsageError} from '../../util/errors.js'
import {describeJson, isObject} from '../../util/json-value.js'
import {type KubeContext, resolveKubeconfig, serverShown} from './kubeconfig.js'
import {ItemArrayCounter} from './list-json.js'
import type {CountedField} from './resources.js'

/** How to reach the API server, resolved from kubeconfig the way kubectl does. */
export interface ConnectOptions {
  /** --kubeconfig; else KUBECONFIG (several paths), ~/.kube/config, then the in-cluster service account. */
  kubeconfig?: string
  context?: string
  /** Per-request bound, seconds (--request-timeout). */
  requestTimeoutSeconds: number
  /** Lists fetched at once. */
  concurrency: number
  /** Once aborted, every request in flight or to come fails with the signal's reason. */
  signal?: AbortSignal
}

/** A Kubernetes `Status` error answer, or a transport failure (code 0). */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly reason = '',
  ) {
    super(message)
  }
}

const RETRIES = 4

/**
 * List pages are sized in bytes, not items: the first page asks for `first` items, each next one
 * for as many as make, at the size the items have had so far, about `parsed` characters of JSON
 * for JSON.parse and at most `received` characters from the server. Small items (Services,
 * ~0.5 kB) then come in fewer round trips than kubectl's 500 a page, and large ones in pages whose
 * parsed objects die in V8's young generation instead of being copied out of it (pages of 500
 * EndpointSlices of 100 endpoints are 12 MB). Counted fields (countOnly) are not parsed: such a
 * list's pages hold up to `received`, twice a parsed page, for fewer round trips. Not more: while a
 * server that builds a page before it sends it (the test server does) builds a large one, the other
 * lists wait (the benchmark's 73 MB of EndpointSlices, and the Nodes with them, came 35–50 ms sooner
 * in 4 MB pages than in 16 MB ones).
 */
export const PAGING = {first: 100, parsed: 2_000_000, received: 4_000_000, min: 10, max: 2000} as const

/** Characters of JSON a list's pages have held so far: as received, and as left to JSON.parse. */
interface PagedLength {
  received: number
  parsed: number
}

/** The `limit` of a list's next page, after `items` items in `length` of JSON. */
export function nextPageLimit(length: PagedLength, items: number): number {
  if (items === 0) return PAGING.first
  const fitting = Math.min(PAGING.parsed / (length.parsed / items), PAGING.received / (length.received / items))
  return Math.max(PAGING.min, Math.min(PAGING.max, Math.round(fitting)))
}

/**
 * A small Kubernetes client: the kubeconfig is found and checked in kubeconfig.ts, and
 * authentication comes from it, or from @kubernetes/client-node for plugins (imported lazily: it
 * costs about 0.7 s to load); requests are plain HTTPS GETs whose JSON is parsed once, without
 * client-node's model objects, which are slow on tens of thousands of Services. Only the probe pods
 * (`--node-probe pod`, asked for) write: create() and delete(), never retried blindly.
 */
export class KubeClient {
  /** The server as messages, snapshots and reports show it: no credentials in it (kubeconfig.ts, serverShown). */
  readonly server: string

  private constructor(
    /** The server's URL as the kubeconfig gives it, user and password included: only requests see it. */
    private readonly endpoint: string,
    readonly context: string,
    private readonly agent: https.Agent,
    private readonly tls: https.AgentOptions,
    private readonly headers: Record<string, string>,
    private readonly timeoutMs: number,
    private readonly signal?: AbortSignal,
  ) {
    this.server = serverShown(endpoint)
    // Destroying the sockets ends the requests in flight; get() refuses the ones to come.
    signal?.addEventListener('abort', () => this.close(), {once: true})
  }

  static async connect(options: ConnectOptions): Promise<KubeClient> {
    const context = usableContext(options.kubeconfig, options.context)
    const access = context.headers ? directAccess(context, context.headers) : await accessWithClientNode(context, options.requestTimeoutSeconds, options.signal)
    const agent = new https.Agent({...access.tls, keepAlive: true, maxSockets: options.concurrency})
    const headers = {Accept: 'application/json', 'User-Agent': 'kpx-check', ...access.headers}
    return new KubeClient(access.server.replace(/\/+$/, ''), access.context, agent, access.tls, headers, options.requestTimeoutSeconds * 1000, options.signal)
  }

  close(): void {
    this.agent.destroy()
  }

  /** What a WebSocket to `path` (pods/exec) needs: its wss:// URL, and the TLS settings and credentials the reads use. */
  webSocketTarget(path: string): {url: string; tls: https.AgentOptions; headers: Record<string, string>} {
    return {url: `${this.endpoint.replace(/^http/, 'ws')}${path}`, tls: this.tls, headers: this.headers}
  }

  /** GET one object, parsed; retries 429 and 5xx with backoff (Retry-After when given). Anything but a JSON object is malformed. */
  async get(path: string): Promise<Record<string, unknown>> {
    const {value} = await this.getParsed<unknown>(path)
    if (!isObject(value)) throw malformed(path, `expected an object, found ${describeJson(value)}`)
    return value
  }

  /** POST an object to a collection; the created object, parsed. Not retried: a create that timed out may have happened. */
  async create(path: string, object: Record<string, unknown>): Promise<Record<string, unknown>> {
    const {value} = await this.requestJson<unknown>('POST', path, {body: JSON.stringify(object)})
    if (!isObject(value)) throw malformed(path, `expected an object, found ${describeJson(value)}`)
    return value
  }

  /** DELETE one object; one that is gone already (404) counts as deleted. Retried as reads are (deleting twice is deleting). */
  async delete(path: string): Promise<void> {
    try {
      await this.withRetries(() => this.requestJson<unknown>('DELETE', path, {}))
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 404)) throw error
    }
  }

  /**
   * Every item of a list, page by page (limit + continue); `each` sees each page's items as they come.
   * With `countOnly`, each item's array under that field comes as its length (list-json.ts). With `kind`, a page
   * of another kind (a PodList for the Nodes, from a proxy or gateway in between) is a malformed answer.
   */
  async list(path: string, query: Record<string, string>, each: (items: Array<Record<string, unknown>>) => void, options: {countOnly?: CountedField; kind?: string} = {}): Promise<void> {
    let continueToken = ''
    const tokens = new Set<string>()
    const length: PagedLength = {received: 0, parsed: 0}
    let items = 0
    for (let pages = 1; ; pages++) {
      const params = new URLSearchParams({...query, limit: String(nextPageLimit(length, items)), ...(continueToken ? {continue: continueToken} : {})})
      const page = await this.getParsed<unknown>(`${path}?${params}`, options.countOnly)
      const checked = listPage(page.value, path, options.kind)
      each(checked.items)
      length.received += page.length.received
      length.parsed += page.length.parsed
      items += checked.items.length
      continueToken = checked.continueToken
      if (!continueToken) return
      if (tokens.has(continueToken)) throw malformed(path, 'the server sent the same continue token twice, which would page forever')
      if (items > LIST_CAP.items || pages >= LIST_CAP.pages) throw malformed(path, `more than ${LIST_CAP.items.toLocaleString('en')} items or ${LIST_CAP.pages.toLocaleString('en')} pages: kpx-check stops reading such a list`)
      tokens.add(continueToken)
    }
  }

  /** GET a path: its parsed body, and the body's length as received and as parsed (`countOnly` arrays counted). */
  private getParsed<T>(path: string, countOnly?: CountedField): Promise<{value: T; length: PagedLength}> {
    return this.withRetries(() => this.requestJson<T>('GET', path, {countOnly}))
  }

  /** Retries 429 and 5xx answers with backoff (Retry-After when given). */
  private async withRetries<T>(attempt: () => Promise<T>): Promise<T> {
    for (let tries = 0; ; tries++) {
      this.signal?.throwIfAborted()
      try {
        return await attempt()
      } catch (error) {
        const retryable = error instanceof ApiError && (error.code === 429 || error.code >= 500)
        if (!retryable || tries >= RETRIES) throw error
        await sleep((error as ApiError & {retryAfterMs?: number}).retryAfterMs ?? 200 * 2 ** tries)
      }
    }
  }

  /** One request, a JSON body sent when given, its JSON answer parsed; an error answer is an ApiError with the server's Status. */
  private async requestJson<T>(method: Method, path: string, options: {body?: string; countOnly?: CountedField}): Promise<{value: T; length: PagedLength}> {
    const {response, body: {body, received}} = await this.exchange(method, path, this.headers, (answer) => readBody(answer, options.countOnly), options.body)
    const code = response.statusCode ?? 0
    if (code >= 200 && code < 300) {
      try {
        return {value: JSON.parse(body) as T, length: {received, parsed: body.length}}
      } catch {
        throw malformed(path, 'the server answered with something that is not JSON')
      }
    }

    const error = statusError(code, body, path)
    const retryAfter = Number(response.headers['retry-after'])
    if (Number.isFinite(retryAfter) && retryAfter > 0) Object.assign(error, {retryAfterMs: Math.min(retryAfter, 10) * 1000})
    throw error
  }

  /**
   * GET a path whose answer is text, not an API object (a pod's HTTP server through the API server's
   * proxy), once, within the same deadline: its body, at most `maxBytes` of it (more is an ApiError
   * with reason `TooLarge`, and the rest is not read). An error answer is an ApiError with the API
   * server's Status message, or the first line of what the pod answered.
   */
  async getText(path: string, accept: string, maxBytes: number): Promise<string> {
    return (await this.getAnswer(path, accept, maxBytes)).body
  }

  /**
   * As getText, but an answer with a status in `answers` (kube-proxy's /healthz 503, through the pod proxy) is
   * returned with its code, unless it is the API server's own error (a Status object): then it is thrown.
   */
  async getAnswer(path: string, accept: string, maxBytes: number, answers: readonly number[] = []): Promise<{body: string; code: number}> {
    const {response, body} = await this.exchange('GET', path, {...this.headers, Accept: accept}, (answer) => readCapped(answer, path, maxBytes))
    const code = response.statusCode ?? 0
    if ((code >= 200 && code < 300) || (answers.includes(code) && !isStatus(body))) return {body, code}
    const error = statusError(code, body, path)
    const firstLine = body.trim().split('\n', 1)[0]
    throw error.reason === '' && firstLine ? new ApiError(code, `${error.message}: ${firstLine.slice(0, 200)}`) : error
  }

  /** One request: the answer and its body as `read` takes it, all within --request-timeout; a failure on the way is an ApiError. */
  private exchange<B>(method: Method, path: string, headers: Record<string, string>, read: (response: IncomingMessage) => Promise<B>, body?: string): Promise<{body: B; response: IncomingMessage}> {
    return new Promise((resolve, reject) => {
      // Once aborted, whatever broke the request (its socket, destroyed) is the abort.
      const fail = (error: unknown) => reject(this.signal?.aborted ? this.signal.reason : error)
      const sent = body === undefined ? headers : {...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body))}
      const request = https.request(`${this.endpoint}${path}`, {method, agent: this.agent, headers: sent}, (response) => {
        read(response).then((body) => {
          clearTimeout(deadline)
          resolve({body, response})
        }, (error: unknown) => {
          clearTimeout(deadline)
          fail(error instanceof ApiError ? error : new ApiError(0, `${path}: the connection broke before the answer was complete (${(error as Error).message})`, 'Transport'))
        })
      })
      // The whole answer, not only each wait for a byte, must come within --request-timeout.
      const deadline = setTimeout(() => request.destroy(new ApiError(0, `no answer within ${this.timeoutMs / 1000}s (--request-timeout)`, 'Timeout')), this.timeoutMs)
      request.on('close', () => clearTimeout(deadline))
      request.on('error', (error) => fail(error instanceof ApiError ? error : transportError(error)))
      request.end(body)
    })
  }
}

type Method = 'DELETE' | 'GET' | 'POST'

/** Bounds on one list, so a server that pages forever cannot make kpx-check read forever. */
const LIST_CAP = {items: 1_000_000, pages: 5000} as const

/** An answer that is not what the API promises: the resource is unreadable, as a 403 makes it. */
export function malformed(path: string, why: string): ApiError {
  return new ApiError(0, `${path}: malformed answer: ${why}`, 'MalformedResponse')
}

/** A list page as the API defines it: an object, its `items` an array of objects with `metadata`, `metadata.continue` a string when set; of `kind` when given. */
function listPage(value: unknown, path: string, kind?: string): {continueToken: string; items: Array<Record<string, unknown>>} {
  if (!isObject(value)) throw malformed(path, `expected a list object, found ${describeJson(value)}`)
  const {items, metadata} = value
  // A server names a list `<Kind>List`; clients and proxies that merge lists say `List`.
  if (kind !== undefined && value.kind !== `${kind}List` && value.kind !== 'List') throw malformed(path, `expected a ${kind}List, found ${kindOf(value)}`)
  if (!Array.isArray(items)) throw malformed(path, `"items" is ${describeJson(items)}, not an array`)
  // findIndex, not a loop over entries(): its pair for each of 35,000 items took 6 times as long, in code that runs cold.
  const bad = items.findIndex((item) => !isObject(item) || !isObject(item.metadata))
  if (bad !== -1) throw malformed(path, `items[${bad}] is not an object with metadata`)

  if (metadata !== undefined && !isObject(metadata)) throw malformed(path, `"metadata" is ${describeJson(metadata)}`)
  const token = metadata?.continue
  if (token !== undefined && typeof token !== 'string') throw malformed(path, `"metadata.continue" is ${describeJson(token)}, not a string`)
  return {items: items as Array<Record<string, unknown>>, continueToken: token ?? ''}
}

/** An answer's kind as a message shows it: `kind "PodList"`, or what stands there instead. */
export function kindOf(value: Record<string, unknown>): string {
  return typeof value.kind === 'string' ? `kind ${JSON.stringify(value.kind.slice(0, 64))}` : `no kind (${describeJson(value.kind)})`
}

/** Where the API server is and how to authenticate, however the kubeconfig was read. */
interface Access {
  server: string
  context: string
  tls: https.AgentOptions
  headers: Record<string, string>
}

function directAccess(context: KubeContext, headers: Record<string, string>): Access {
  const {ca, cert, key, servername, insecure} = context.tls
  return {server: context.server, context: context.name, tls: {ca, cert, key, servername, rejectUnauthorized: !insecure}, headers}
}

/**
 * What only client-node does: exec and auth-provider plugins, impersonation, proxies; the context was checked already.
 * An exec plugin gets the request deadline from its start to its last byte (a device-code login nobody completes
 * never answers): past it, or once the run is aborted, it is killed with every process it started.
 */
async function accessWithClientNode(context: KubeContext, timeoutSeconds: number, signal?: AbortSignal): Promise<Access> {
  const {KubeConfig} = await import('@kubernetes/client-node')
  const config = new KubeConfig()
  // JSON is YAML: the context alone, its paths already made absolute against the files that named them.
  config.loadFromString(JSON.stringify(context.kubeconfig))
  const plugins = new PluginProcesses()
  plugins.adopt(config)
  const requestOptions: https.RequestOptions = {}
  const failed = (reason: ClusterAccessReason, why: string) =>
    new ClusterAccessError(reason, `cannot get credentials for context ${context.name} (${serverShown(context.server)}): ${why}`, [
      'If the kubeconfig uses an exec plugin (aws, gke-gcloud-auth-plugin, kubelogin), check that it is installed and logged in.',
    ])
  const timer = setTimeout(() => plugins.stop(failed('timeout', `the credential plugin did not answer within ${timeoutSeconds}s (--request-timeout); it was stopped`)), timeoutSeconds * 1000)
  const onAbort = () => plugins.stop(signal!.reason)
  signal?.addEventListener('abort', onAbort, {once: true})
  try {
    await Promise.race([config.applyToHTTPSOptions(requestOptions), plugins.stopped])
  } catch (error) {
    if (error instanceof ClusterAccessError || signal?.aborted) throw error
    throw failed('unauthorized', (error as Error).message)
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
  }

  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(requestOptions.headers ?? {})) if (typeof value === 'string') headers[name] = value
  if (requestOptions.auth) headers.Authorization = `Basic ${Buffer.from(requestOptions.auth).toString('base64')}`
  return {
    server: context.server,
    context: context.name,
    // client-node builds a one-off agent; keep its TLS settings, and reuse connections across pages.
    tls: {
      ca: requestOptions.ca,
      cert: requestOptions.cert,
      key: requestOptions.key,
      pfx: requestOptions.pfx,
      passphrase: requestOptions.passphrase,
      servername: (requestOptions as {servername?: string}).servername,
      rejectUnauthorized: requestOptions.rejectUnauthorized ?? true,
    },
    headers,
  }
}

/**
 * The exec plugins client-node starts for one context, each in a process group of its own, so that stopping one stops
 * whatever it started too (a browser helper, a shell). client-node's ExecAuth spawns through a field it keeps for
 * tests; kpx-check sets it, on the one authenticator it uses, rather than reimplement the ExecCredential exchange.
 */
class PluginProcesses {
  /** Process group ids (each plugin's pid): kept after a plugin exits, since what it started may not have. */
  private readonly groups = new Set<number>()
  private reject?: (reason: unknown) => void
  /** Rejects with the reason once stop() is called. */
  readonly stopped = new Promise<never>((_resolve, reject) => {
    this.reject = reject
  })

  constructor() {
    this.stopped.catch(() => {})
  }

  adopt(config: object): void {
    const authenticators = (config as {authenticators?: Array<{execFn?: unknown}>}).authenticators ?? []
    for (const authenticator of authenticators) {
      if (!('execFn' in authenticator)) continue
      authenticator.execFn = (command: string, args: string[], options: SpawnOptions) => {
        const child = spawn(command, args, {...options, detached: true})
        if (child.pid !== undefined) this.groups.add(child.pid)
        return child
      }
    }
  }

  stop(reason: unknown): void {
    for (const group of this.groups) {
      try {
        process.kill(-group, 'SIGKILL')
      } catch {
        // Every process of the group is gone already.
      }
    }

    this.groups.clear()
    this.reject?.(reason)
  }
}

/**
 * The body as text, and its length as received (characters decoded, or bytes with `countOnly`: the
 * same for JSON in ASCII). The chunks stay bytes, outside V8's heap, until the body is whole, and are
 * decoded once into a flat string, which JSON.parse reads fastest: decoded one by one, a page's chunks
 * were young strings that each garbage collection during the page copied (a tenth less scavenging
 * over a 5,000-node cluster). With `countOnly`, the bytes go through an ItemArrayCounter instead (list-json.ts).
 */
function readBody(response: IncomingMessage, countOnly?: CountedField): Promise<{body: string; received: number}> {
  return new Promise((resolve, reject) => {
    response.on('error', reject)
    // A connection that ends before the body is complete: what came is not the answer.
    response.on('close', () => {
      if (!response.complete) reject(new Error('cut short'))
    })
    if (countOnly) {
      const counter = new ItemArrayCounter(countOnly.field, countOnly.as)
      response.on('data', (chunk: Buffer) => counter.write(chunk))
      response.on('end', () => resolve({body: counter.end(), received: counter.received}))
      return
    }

    const chunks: Buffer[] = []
    response.on('data', (chunk: Buffer) => chunks.push(chunk))
    response.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      resolve({body, received: body.length})
    })
  })
}

/** The body as text, refused past `maxBytes`: the connection is dropped rather than the rest read. */
function readCapped(response: IncomingMessage, path: string, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let received = 0
    response.on('error', reject)
    response.on('close', () => {
      if (!response.complete) reject(new Error('cut short'))
    })
    response.on('data', (chunk: Buffer) => {
      received += chunk.length
      if (received <= maxBytes) {
        chunks.push(chunk)
        return
      }

      reject(new ApiError(0, `${path}: the answer is larger than ${maxBytes.toLocaleString('en')} bytes: kpx-check stops reading it`, 'TooLarge'))
      response.destroy()
    })
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
  })
}

/** A Kubernetes Status object: the API server's own answer, not the one of the pod it proxies to. */
function isStatus(body: string): boolean {
  try {
    return (JSON.parse(body) as {kind?: unknown}).kind === 'Status'
  } catch {
    return false
  }
}

/** The API's own words from a `Status` body, passed through verbatim. */
function statusError(code: number, body: string, path: string): ApiError {
  try {
    const status = JSON.parse(body) as {message?: string; reason?: string}
    if (status.message) return new ApiError(code, status.message, status.reason ?? '')
  } catch {
    // not a Status body: fall through
  }

  return new ApiError(code, `${path}: HTTP ${code}`)
}

/** The node:https failures whose cause is the server's certificate, not the network. */
const CERTIFICATE_ERRORS = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID'])

/** A request that got no answer, as an ApiError with code 0: reason `TLS` for an untrusted certificate, else `Transport`. */
function transportError(error: NodeJS.ErrnoException): ApiError {
  if (error.code !== undefined && CERTIFICATE_ERRORS.has(error.code)) return new ApiError(0, `the server's certificate is not trusted (${error.code}): ${error.message}`, 'TLS')
  switch (error.code) {
    case 'ECONNREFUSED': {
      return new ApiError(0, 'connection refused', 'Transport')
    }

    case 'ENOTFOUND':
    case 'EAI_AGAIN': {
      return new ApiError(0, `cannot resolve the server's name (${error.code})`, 'Transport')
    }

    default: {
      return new ApiError(0, error.message, 'Transport')
    }
  }
}

/** The context, resolved and checked: what is wrong with its kubeconfig entry is a ClusterAccessError, so a fleet goes on without it. */
function usableContext(kubeconfig: string | undefined, name: string | undefined): KubeContext {
  try {
    return resolveKubeconfig(kubeconfig, name)
  } catch (error) {
    if (error instanceof UsageError && !(error instanceof ClusterAccessError)) throw new ClusterAccessError('kubeconfig', error.message, error.suggestions)
    throw error
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
