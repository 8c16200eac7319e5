import {parseGenericVersion} from './versions.js'

/** The `uname -r` text: its first non-empty line, trimmed; undefined when there is none. */
export function parseKernelRelease(text: string): string | undefined {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '')
  const release = line?.trim()
  return release && !/\s/.test(release) ? release : undefined
}

/**
 * The kernel version as kube-proxy sees it: `version.ParseGeneric` on the release, which keeps
 * the leading `major.minor[.patch]` digits and ignores the rest. Returned as `major.minor.patch`
 * (a missing patch is 0): `5.15.0-1034-azure` → `5.15.0`, `6.12.55+` → `6.12.55`,
 * `5.4.119-19-0009.6` → `5.4.119`, `6.1` → `6.1.0`. Undefined when ParseGeneric would fail.
 */
export function parseKernelVersion(release: string): string | undefined {
  const components = parseGenericVersion(release)
  if (!components) return undefined
  const [major, minor, patch = 0] = components
  return `${major}.${minor}.${patch}`
}
