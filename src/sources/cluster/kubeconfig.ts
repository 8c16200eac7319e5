import {existsSync, readFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {dirname, isAbsolute, join} from 'node:path'
import {parse as parseYaml} from 'yaml'

/**
 * The common kubeconfig, read without @kubernetes/client-node: one file whose context has a
 * static token, a token file or a client certificate. Loading client-node costs about 0.7 s,
 * a third of reading a 5,000-node cluster, so it is loaded only for what this does not cover:
 * several KUBECONFIG files, exec and auth-provider plugins, in-cluster service accounts,
 * impersonation, proxies.
 */
export interface SimpleCredentials {
  server: string
  context: string
  ca?: Buffer
  cert?: Buffer
  key?: Buffer
  insecure: boolean
  servername?: string
  headers: Record<string, string>
}

type Raw = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const CLUSTER_FIELDS = new Set(['server', 'certificate-authority', 'certificate-authority-data', 'insecure-skip-tls-verify', 'tls-server-name', 'extensions'])
const USER_FIELDS = new Set(['token', 'tokenFile', 'client-certificate', 'client-certificate-data', 'client-key', 'client-key-data', 'username', 'password', 'extensions'])

/** The kubeconfig file kubectl would read, when it is a single file. */
function kubeconfigFile(explicit: string | undefined): string | undefined {
  if (explicit) return explicit
  const fromEnv = process.env.KUBECONFIG
  if (fromEnv) return fromEnv.includes(':') ? undefined : fromEnv
  const home = join(homedir(), '.kube', 'config')
  return existsSync(home) ? home : undefined
}

/** Credentials for the simple cases; undefined means "let client-node do it". */
export function readSimpleKubeconfig(explicit: string | undefined, contextName: string | undefined): SimpleCredentials | undefined {
  const file = kubeconfigFile(explicit)
  if (!file) return undefined
  let config: Raw
  try {
    config = parseYaml(readFileSync(file, 'utf8')) as Raw
  } catch {
    return undefined // client-node reports the error in its own words
  }

  const named = (list: unknown, name: string) => (Array.isArray(list) ? (list as Raw[]).find((entry) => entry?.name === name) : undefined)
  const context = named(config?.contexts, contextName ?? config?.['current-context'])?.context as Raw | undefined
  const cluster = context && (named(config.clusters, context.cluster)?.cluster as Raw | undefined)
  const user = context && ((named(config.users, context.user)?.user ?? {}) as Raw)
  if (!context || !cluster || !user) return undefined
  if (!Object.keys(cluster).every((field) => CLUSTER_FIELDS.has(field)) || !Object.keys(user).every((field) => USER_FIELDS.has(field))) return undefined
  if (typeof cluster.server !== 'string' || !cluster.server.startsWith('https://')) return undefined

  const base = dirname(file)
  const read = (data: unknown, path: unknown): Buffer | undefined => {
    if (typeof data === 'string') return Buffer.from(data, 'base64')
    if (typeof path === 'string') return readFileSync(isAbsolute(path) ? path : join(base, path))
    return undefined
  }

  const headers: Record<string, string> = {}
  const token = typeof user.token === 'string' ? user.token : (typeof user.tokenFile === 'string' ? readFileSync(isAbsolute(user.tokenFile) ? user.tokenFile : join(base, user.tokenFile), 'utf8').trim() : undefined)
  if (token) headers.Authorization = `Bearer ${token}`
  else if (typeof user.username === 'string') headers.Authorization = `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}`

  return {
    server: cluster.server,
    context: contextName ?? String(config['current-context']),
    ca: read(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: read(user['client-certificate-data'], user['client-certificate']),
    key: read(user['client-key-data'], user['client-key']),
    insecure: cluster['insecure-skip-tls-verify'] === true,
    servername: typeof cluster['tls-server-name'] === 'string' ? cluster['tls-server-name'] : undefined,
    headers,
  }
}
