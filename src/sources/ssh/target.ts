/**
 * SSH targets: where to reach a node, as the user wrote it (`--ssh`, an inventory line) and as
 * kpx-check will connect to it. Host names and user names come from files and flags, so they
 * are checked against strict patterns before anything uses them.
 */
import {isIP, isIPv6} from 'node:net'

import {UsageError} from '../../util/errors.js'

/** A node to probe over SSH. Unset fields come from ~/.ssh/config, then from OpenSSH's defaults. */
export interface SshTarget {
  /** DNS name, ~/.ssh/config alias, or IP address (IPv6 without brackets). */
  host: string
  user?: string
  port?: number
  /**
   * The node's name when the caller knows it (an inventory host name, a Kubernetes Node); without
   * it, the node is named by the hostname the collector reports.
   */
  name?: string
}

/** Where a connection goes once ~/.ssh/config and the defaults have filled in the gaps. */
export interface SshEndpoint {
  host: string
  port: number
  user: string
}

export const DEFAULT_SSH_PORT = 22

const DNS_LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?'
const DNS_NAME = new RegExp(String.raw`^(?=.{1,253}$)${DNS_LABEL}(?:\.${DNS_LABEL})*\.?$`)
// POSIX-portable user names (useradd's default pattern, plus upper case).
const USER_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/

export function isValidHost(host: string): boolean {
  return isIP(host) !== 0 || DNS_NAME.test(host)
}

function isValidUser(user: string): boolean {
  return USER_NAME.test(user)
}

/** Checks a host name, user name or port read from `where` (a flag, or `file:line`). */
export function checkHost(host: string, where: string): string {
  if (!isValidHost(host)) {
    throw new UsageError(`${where}: "${host}" is not a host name or IP address`, ['Use a DNS name, an IPv4 address, or an IPv6 address.'])
  }

  return host
}

export function checkUser(user: string, where: string): string {
  if (!isValidUser(user)) {
    throw new UsageError(`${where}: "${user}" is not a valid user name`, ['User names are letters, digits, "_", "." and "-", starting with a letter or "_".'])
  }

  return user
}

export function checkPort(port: string, where: string): number {
  const value = /^\d{1,5}$/.test(port) ? Number(port) : Number.NaN
  if (!(value >= 1 && value <= 65_535)) throw new UsageError(`${where}: "${port}" is not a port number (1-65535)`)
  return value
}

/**
 * Parses `[USER@]HOST[:PORT]`; an IPv6 address takes brackets when a port follows
 * (`[fd00::1]:2222`). `where` names the flag or `file:line` in errors.
 */
export function parseTargetSpec(spec: string, where: string): SshTarget {
  const target = splitTargetSpec(spec, where)
  return {...target, host: checkHost(target.host, where)}
}

/** Like parseTargetSpec, but leaves the host unchecked: an inventory host may be an alias. */
export function splitTargetSpec(spec: string, where: string): SshTarget {
  const at = spec.indexOf('@')
  const user = at === -1 ? undefined : checkUser(spec.slice(0, at), where)
  const address = spec.slice(at + 1)
  const bracketed = /^\[([^\]]+)\](?::([^:]*))?$/.exec(address)
  let host: string
  let port: string | undefined
  if (bracketed) {
    ;[, host, port] = bracketed
    if (!isIPv6(host)) throw new UsageError(`${where}: "${host}" in brackets is not an IPv6 address`)
  } else if (isIPv6(address)) {
    host = address
  } else {
    ;[host, port] = address.split(/:(?=[^:]*$)/)
  }

  return {
    host,
    ...(user === undefined ? {} : {user}),
    ...(port === undefined ? {} : {port: checkPort(port, where)}),
  }
}

/** `user@host:port`, the way the report names an SSH origin (IPv6 in brackets). */
export function formatEndpoint(endpoint: SshEndpoint): string {
  const host = isIPv6(endpoint.host) ? `[${endpoint.host}]` : endpoint.host
  return `${endpoint.user}@${host}:${endpoint.port}`
}
