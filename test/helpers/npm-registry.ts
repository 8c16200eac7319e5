/**
 * An npm registry on loopback that knows only what package-lock.json holds: for each package, the
 * versions the lock names, with their dependencies and integrity. npm resolves a tarball's
 * dependencies from registry metadata, which `npm ci` never fetches (it installs from the lock),
 * so without this an install of the packed tarball needs the internet. With it, npm picks exactly
 * the locked versions and takes their tarballs from its cache, where `npm ci` put them; a tarball
 * the cache lacks is answered 404, so the install fails instead of reaching the internet.
 */
import {readFileSync} from 'node:fs'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import semver from 'semver'

interface LockedPackage {
  bin?: Record<string, string>
  cpu?: string[]
  dependencies?: Record<string, string>
  engines?: Record<string, string>
  integrity?: string
  link?: boolean
  name?: string
  optionalDependencies?: Record<string, string>
  os?: string[]
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, unknown>
  version?: string
}

/** What npm reads from a registry's version record to resolve and fetch a package. */
const RESOLUTION_FIELDS = ['bin', 'cpu', 'dependencies', 'engines', 'optionalDependencies', 'os', 'peerDependencies', 'peerDependenciesMeta'] as const

interface LockRegistry {
  url: string
  close(): Promise<void>
}

/** A package's name from its place in the lock: `node_modules/a/node_modules/@s/b` is `@s/b`. */
const nameAt = (location: string) => location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length)

function packuments(lockFile: string, tarballBase: string): Map<string, {name: string; 'dist-tags': {latest: string}; versions: Record<string, unknown>}> {
  const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as {packages: Record<string, LockedPackage>}
  const byName = new Map<string, Record<string, unknown>>()
  for (const [location, entry] of Object.entries(lock.packages)) {
    // The root project, links to folders and aliases are not registry packages.
    if (!location.includes('node_modules/') || entry.link || entry.name || !entry.version || !entry.integrity) continue
    const name = nameAt(location)
    const record: Record<string, unknown> = {name, version: entry.version, dist: {integrity: entry.integrity, tarball: `${tarballBase}/${name}/-/${entry.version}.tgz`}}
    for (const field of RESOLUTION_FIELDS) if (entry[field]) record[field] = entry[field]
    const versions = byName.get(name) ?? {}
    versions[entry.version] = record
    byName.set(name, versions)
  }

  return new Map([...byName].map(([name, versions]) => [name, {name, 'dist-tags': {latest: semver.rsort(Object.keys(versions))[0]}, versions}]))
}

/** Serves the packages of `packageRoot`/package-lock.json on a free port of 127.0.0.1. */
export async function startLockRegistry(packageRoot: string): Promise<LockRegistry> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const packages = packuments(join(packageRoot, 'package-lock.json'), `${url}/-/tarball`)
  server.on('request', (request, response) => {
    const name = decodeURIComponent(new URL(request.url ?? '/', url).pathname.slice(1))
    const packument = packages.get(name)
    // no-store: npm would otherwise keep these answers, under a port that is never used again, in its cache.
    response.setHeader('cache-control', 'no-store')
    if (packument) {
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify(packument))
      return
    }

    response.statusCode = 404
    response.setHeader('content-type', 'application/json')
    const error = name.startsWith('-/tarball/') ? `${name}: not in the npm cache (run npm ci, which puts it there)` : `${name}: not in package-lock.json`
    response.end(JSON.stringify({error}))
  })
  return {url, close: () => new Promise((resolve) => server.close(() => resolve()))}
}
