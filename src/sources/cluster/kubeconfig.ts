import {createPrivateKey, X509Certificate} from 'node:crypto'
import {statSync} from 'node:fs'
import {isIPv6} from 'node:net'
import {homedir} from 'node:os'
import {delimiter, dirname, isAbsolute, join, sep} from 'node:path'
import {createSecureContext} from 'node:tls'
import {LineCounter, parseDocument} from 'yaml'

import {UsageError} from '../../util/errors.js'
import {isObject} from '../../util/json-value.js'
import {MAX_FILE_BYTES, readRegularFile} from '../../util/user-file.js'

/**
 * The kubeconfig, found and merged as kubectl does, and checked here, so that every mistake in it is
 * one usage error naming the file and the field. @kubernetes/client-node, which costs about 0.7 s to
 * load (a third of reading a 5,000-node cluster), is loaded only for what this does not do itself:
 * exec and auth-provider plugins, impersonation, proxies.
 */
export interface KubeContext {
  /** The context's name; `in-cluster` for the pod's service account. */
  name: string
  server: string
  tls: {ca?: Buffer; cert?: Buffer; key?: Buffer; insecure: boolean; servername?: string}
  /** What to send for a token or a password; undefined when only client-node can authenticate this user. */
  headers?: Record<string, string>
  /** This context alone as a kubeconfig, with its paths absolute, for client-node. */
  kubeconfig: Raw
}

type Raw = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** Where a pod's service account is mounted; with KUBERNETES_SERVICE_HOST and _PORT set, kubectl uses it when there is no kubeconfig. */
const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount'

const CLUSTER_FIELDS = new Set(['server', 'certificate-authority', 'certificate-authority-data', 'insecure-skip-tls-verify', 'tls-server-name', 'extensions'])
const USER_FIELDS = new Set(['token', 'tokenFile', 'client-certificate', 'client-certificate-data', 'client-key', 'client-key-data', 'username', 'password', 'extensions'])
const LISTS = [
  ['clusters', 'cluster'],
  ['users', 'user'],
  ['contexts', 'context'],
] as const

/** A named entry of a kubeconfig list, and the file that wrote it. */
interface Entry {
  value: Raw
  file: string
}

/** The kubeconfig files read, merged: for each name, the entry of the first file that has it (kubectl's rule). */
interface Kubeconfig {
  files: string[]
  clusters: Map<string, Entry>
  users: Map<string, Entry>
  contexts: Map<string, Entry>
  currentContext?: {name: string; file: string}
  /** Each place looked at and what was there, for the message when nothing usable was. */
  looked: string[]
}

/**
 * The context to use, from `--kubeconfig` (`explicit`), else the files in KUBECONFIG, else
 * ~/.kube/config, else the pod's service account; `contextName` (`--context`) or the
 * current-context picks it. Throws a UsageError for anything kubectl would refuse, naming the file
 * and the field, and for certificates and keys that are not what their field says.
 */
export function resolveKubeconfig(explicit: string | undefined, contextName: string | undefined): KubeContext {
  const config = readKubeconfig(explicit)
  if (config.clusters.size + config.users.size + config.contexts.size === 0 && !config.currentContext) {
    // kubectl turns to the service account only when the kubeconfig is empty (client-go's DeferredLoadingClientConfig).
    if (contextName === undefined) {
      const inCluster = inClusterContext()
      if (typeof inCluster !== 'string') return inCluster
      config.looked.push(`in-cluster service account: ${inCluster}`)
    }

    throw new UsageError(`no kubeconfig to use. kpx-check looked where kubectl looks:\n${config.looked.map((line) => `  ${line}`).join('\n')}`, [
      'Pass --kubeconfig FILE or set KUBECONFIG, as for kubectl; in a pod, give it a service account.',
    ])
  }

  const contexts = `Contexts there: ${[...config.contexts.keys()].join(', ') || 'none'}.`
  const name = contextName ?? config.currentContext?.name
  if (!name) throw new UsageError(`no context chosen: ${config.files.join(', ')} set no current-context`, [`Pick one with --context NAME. ${contexts}`])
  const context = config.contexts.get(name)
  if (!context) {
    const picked = contextName === undefined ? `current-context "${name}" (set in ${config.currentContext!.file})` : `--context ${name}`
    throw new UsageError(`${picked}: no such context in ${config.files.join(', ')}`, [contexts])
  }

  const part = (field: 'cluster' | 'user') => referenced(config, name, context, field)
  return checkedContext(name, part('cluster'), part('user'))
}

/** kubectl's search: the explicit file must exist; KUBECONFIG's files may be missing; ~/.kube/config only without KUBECONFIG. */
function readKubeconfig(explicit: string | undefined): Kubeconfig {
  const config: Kubeconfig = {files: [], clusters: new Map(), users: new Map(), contexts: new Map(), looked: []}
  if (explicit) {
    addFile(config, explicit, `--kubeconfig ${explicit}`, false)
    config.looked.push('(KUBECONFIG and ~/.kube/config are not read when --kubeconfig is given)')
    return config
  }

  config.looked.push('--kubeconfig: not given')
  const fromEnv = process.env.KUBECONFIG
  if (fromEnv) {
    // client-go's clientcmd loader (ClientConfigLoadingRules.Load, tools/clientcmd/loader.go): "A missing
    // ExplicitPath file produces an error. Empty filenames or other missing files are ignored." Each path
    // is read once; for each name, the first file to define it wins, and so does the first current-context.
    for (const file of new Set(fromEnv.split(delimiter).filter(Boolean))) addFile(config, file, `KUBECONFIG ${file}`, true)
    config.looked.push('(~/.kube/config is not read when KUBECONFIG is set)')
  } else {
    config.looked.push('KUBECONFIG: not set')
    const home = join(homedir(), '.kube', 'config')
    addFile(config, home, `~/.kube/config (${home})`, true)
  }

  return config
}

/** Reads one kubeconfig file into `config`; a missing one is skipped when `optional`. `where` names it as it was found. */
function addFile(config: Kubeconfig, file: string, where: string, optional: boolean): void {
  let text: string
  try {
    text = readRegularFile(file, MAX_FILE_BYTES.kubeconfig).toString('utf8')
  } catch (error) {
    const why = systemReason(error)
    if (optional && (error as NodeJS.ErrnoException).code === 'ENOENT') {
      config.looked.push(`${where}: ${why}`)
      return
    }

    throw new UsageError(`${where}: ${why}`, ['Point --kubeconfig or KUBECONFIG at a readable kubeconfig file.'])
  }

  const parsed = parseKubeconfigText(text, file)
  config.files.push(file)
  const base = dirname(file)
  for (const [list, field] of LISTS) {
    const seen = new Set<string>()
    for (const [index, item] of (parsed[list] ?? []).entries()) {
      const entry = item as Raw
      if (!isObject(entry) || typeof entry.name !== 'string' || entry.name === '') throw notKubeconfig(file, `${list}[${index}] has no name`)
      if (seen.has(entry.name)) throw notKubeconfig(file, `two ${list} are named "${entry.name}"`)
      seen.add(entry.name)
      const value: unknown = entry[field] ?? {}
      if (!isObject(value)) throw notKubeconfig(file, `${list}[${index}].${field} is ${describe(value)}, not a mapping`)
      const known = config[list]
      if (!known.has(entry.name)) known.set(entry.name, {value: absolutePaths(value, base), file})
    }
  }

  const current: unknown = parsed['current-context']
  if (current !== undefined && current !== null && typeof current !== 'string') throw notKubeconfig(file, `current-context is ${describe(current)}, not a string`)
  if (current && !config.currentContext) config.currentContext = {name: current, file}
  if (!current && LISTS.every(([list]) => !parsed[list]?.length)) config.looked.push(`${where}: empty`)
}

/** The file's kubeconfig; text that is not a kubeconfig is a usage error. */
function parseKubeconfigText(text: string, file: string): Raw {
  const lineCounter = new LineCounter()
  const document = parseDocument(text, {lineCounter, prettyErrors: false})
  const [error] = document.errors
  if (error) {
    const {line, col} = lineCounter.linePos(error.pos[0])
    throw new UsageError(`kubeconfig ${file}:${line}:${col} is not YAML: ${error.message.split('\n', 1)[0]}`, ['Point --kubeconfig or KUBECONFIG at a kubeconfig file (kubectl config view shows one).'])
  }

  let value: unknown
  try {
    value = document.toJS()
  } catch (error_) {
    // The yaml package refuses documents whose aliases would multiply (a "billion laughs").
    throw notKubeconfig(file, `YAML: ${(error_ as Error).message.split('\n', 1)[0]}`)
  }

  // An empty file is an empty kubeconfig (client-go: "if there's no data in a file, return the default object").
  if (value === null || value === undefined) return {}
  if (!isObject(value)) throw notKubeconfig(file, `expected a mapping with clusters, users and contexts, found ${describe(value)}`)
  for (const [list] of LISTS) {
    if (value[list] !== undefined && value[list] !== null && !Array.isArray(value[list])) throw notKubeconfig(file, `${list} is ${describe(value[list])}, not a list`)
  }

  return value
}

/**
 * Relative paths in a kubeconfig are relative to its folder (client-go's ResolveLocalPaths); an exec
 * plugin's command only when it names a path, not a command looked up in PATH.
 */
function absolutePaths(value: Raw, base: string): Raw {
  const resolved: Raw = {...value}
  for (const field of ['certificate-authority', 'client-certificate', 'client-key', 'tokenFile']) {
    if (typeof resolved[field] === 'string' && resolved[field] !== '' && !isAbsolute(resolved[field])) resolved[field] = join(base, resolved[field])
  }

  const command: unknown = resolved.exec?.command
  if (typeof command === 'string' && command.includes(sep) && !isAbsolute(command)) resolved.exec = {...resolved.exec, command: join(base, command)}
  return resolved
}

/** The cluster or user a context names, which one of the files must define. */
function referenced(config: Kubeconfig, contextName: string, context: Entry, field: 'cluster' | 'user'): Part {
  const name: unknown = context.value[field]
  const defined = `${field === 'cluster' ? 'Clusters' : 'Users'} there: ${[...config[`${field}s`].keys()].join(', ') || 'none'}.`
  if (typeof name !== 'string' || name === '') throw new UsageError(`kubeconfig ${context.file}: context "${contextName}" names no ${field}`, [defined])
  const entry = config[`${field}s`].get(name)
  if (!entry) throw new UsageError(`kubeconfig ${context.file}: context "${contextName}" names ${field} "${name}", which is not in ${config.files.join(', ')}`, [defined])
  return {where: `kubeconfig ${entry.file}: ${field} "${name}" (of context "${contextName}")`, value: entry.value}
}

interface Part {
  /** How messages name it: `kubeconfig FILE: user "admin" (of context "prod")`. */
  where: string
  value: Raw
}

/**
 * A server URL as kpx-check prints and saves it: without the user name and password a URL may carry
 * (`https://user:password@host`), nor its query and fragment (`?token=`); what cannot be parsed is not shown at all.
 */
export function serverShown(server: string): string {
  if (!URL.canParse(server)) return '(a server address that is not a URL)'
  const url = new URL(server)
  return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`
}

/** The context's server, TLS material and authentication, each checked: what kubectl would refuse is said here, naming the field. */
function checkedContext(name: string, cluster: Part, user: Part): KubeContext {
  const server: unknown = cluster.value.server
  if (typeof server !== 'string' || server === '') throw credentialError(cluster, 'has no server')
  if (!URL.canParse(server) || new URL(server).protocol !== 'https:') throw credentialError(cluster, `server "${serverShown(server)}" is not an https:// URL; kpx-check reads the API over HTTPS only`)
  const ca = material(cluster, 'certificate-authority', 'certificate')
  const cert = material(user, 'client-certificate', 'certificate')
  const key = material(user, 'client-key', 'private key')
  if (cert && !key) throw credentialError(user, 'has a client certificate but no client-key or client-key-data')
  if (cert && key) {
    try {
      createSecureContext({cert, key})
    } catch {
      throw credentialError(user, 'the client certificate and the client key do not belong together')
    }
  }

  const direct = Object.keys(cluster.value).every((field) => CLUSTER_FIELDS.has(field)) && Object.keys(user.value).every((field) => USER_FIELDS.has(field))
  return {
    name,
    server,
    tls: {ca, cert, key, insecure: cluster.value['insecure-skip-tls-verify'] === true, servername: optionalString(cluster, 'tls-server-name')},
    headers: direct ? authorization(user) : undefined,
    kubeconfig: {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{name, cluster: cluster.value}],
      users: [{name, user: user.value}],
      contexts: [{name, context: {cluster: name, user: name}}],
      'current-context': name,
    },
  }
}

/** A token, a token file or a user name and password, as the Authorization header; none is fine (client certificates). */
function authorization(user: Part): Record<string, string> {
  const token = optionalString(user, 'token') ?? readText(user, 'tokenFile')?.trim()
  if (token) return {Authorization: `Bearer ${token}`}
  const username = optionalString(user, 'username')
  if (username !== undefined) return {Authorization: `Basic ${Buffer.from(`${username}:${optionalString(user, 'password') ?? ''}`).toString('base64')}`}
  return {}
}

const PEM_LABEL = {certificate: 'CERTIFICATE', 'private key': 'PRIVATE KEY'} as const

/**
 * A certificate or key from `<field>-data` (base64 of PEM, which wins, as in kubectl) or from the
 * file `<field>` names, checked to be what the field says: Node would otherwise fail later with an
 * OpenSSL code, or ignore a CA that is not one and call every server untrusted.
 */
function material(part: Part, field: string, kind: keyof typeof PEM_LABEL): Buffer | undefined {
  const data = optionalString(part, `${field}-data`)
  let pem: Buffer | undefined
  let named: string
  if (data === undefined) {
    pem = readBytes(part, field)
    named = `${field} ${part.value[field]}`
  } else {
    pem = decodeBase64(data)
    named = `${field}-data`
    if (!pem) throw credentialError(part, `${named} is not base64`)
  }

  if (pem && !isPem(pem, kind)) throw credentialError(part, `${named} is not a PEM ${kind}${data === undefined ? '' : ' once decoded from base64'}`)
  return pem
}

function isPem(pem: Buffer, kind: keyof typeof PEM_LABEL): boolean {
  // "BEGIN PRIVATE KEY", "BEGIN RSA PRIVATE KEY" and "BEGIN EC PRIVATE KEY" all end the same way.
  if (!pem.includes(`${PEM_LABEL[kind]}-----`)) return false
  try {
    if (kind === 'certificate') new X509Certificate(pem)
    else createPrivateKey(pem)
    return true
  } catch {
    return false
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** Standard base64 with its padding, as kubectl decodes it; line breaks and spaces are allowed. */
function decodeBase64(text: string): Buffer | undefined {
  const compact = text.replaceAll(/\s/g, '')
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) return undefined
  return Buffer.from(compact, 'base64')
}

function optionalString(part: Part, field: string): string | undefined {
  const value: unknown = part.value[field]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw credentialError(part, `${field} is ${describe(value)}, not a string`)
  return value
}

/** The file a field names, or undefined when the field is not set. */
function readBytes(part: Part, field: string): Buffer | undefined {
  const path = optionalString(part, field)
  if (!path) return undefined
  try {
    return readRegularFile(path, MAX_FILE_BYTES.kubeconfigFile)
  } catch (error) {
    throw credentialError(part, `${field} ${path}: ${systemReason(error)}`)
  }
}

function readText(part: Part, field: string): string | undefined {
  return readBytes(part, field)?.toString('utf8')
}

/**
 * The pod's service account, as client-go's rest.InClusterConfig reads it: the API server from
 * KUBERNETES_SERVICE_HOST and _PORT, the token and the CA from the mounted files. When it cannot
 * be used, why not (for the message that lists the places looked at).
 */
function inClusterContext(): KubeContext | string {
  const host = process.env.KUBERNETES_SERVICE_HOST
  const port = process.env.KUBERNETES_SERVICE_PORT
  const tokenFile = join(SERVICE_ACCOUNT_DIR, 'token')
  if (!host || !port) return 'KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not in a pod)'
  if (!statSync(tokenFile, {throwIfNoEntry: false})?.isFile()) return `KUBERNETES_SERVICE_HOST is set, but there is no token at ${tokenFile}`
  const where = 'in-cluster service account'
  const cluster = {where, value: {server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`, 'certificate-authority': join(SERVICE_ACCOUNT_DIR, 'ca.crt')}}
  return checkedContext('in-cluster', cluster, {where, value: {tokenFile}})
}

function notKubeconfig(file: string, why: string): UsageError {
  return new UsageError(`kubeconfig ${file} is not a valid kubeconfig: ${why}`, ['Point --kubeconfig or KUBECONFIG at a kubeconfig file (kubectl config view shows one).'])
}

function credentialError(part: Part, why: string): UsageError {
  return new UsageError(`${part.where}: ${why}`, ['Fix that entry (kubectl config view --raw --minify shows it), or pick another context with --context.'])
}

function systemReason(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT': {
      return 'no such file'
    }

    case 'EACCES': {
      return 'permission denied'
    }

    default: {
      return (error as Error).message
    }
  }
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list'
  if (value === null) return 'null'
  return typeof value === 'object' ? 'a mapping' : `a ${typeof value}`
}

/**
 * Every context of the kubeconfig (found as resolveKubeconfig finds it: --kubeconfig, else KUBECONFIG, else
 * ~/.kube/config), in the order its files list them, and the files read: a fleet's clusters.
 */
export function kubeconfigContexts(explicit: string | undefined): {contexts: string[]; files: string[]} {
  const config = readKubeconfig(explicit)
  return {contexts: [...config.contexts.keys()], files: config.files}
}
