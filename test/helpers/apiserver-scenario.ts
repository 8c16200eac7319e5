/**
 * Cluster scenarios for the test API server: test/fixtures/clusters/<name>/scenario.json.
 *
 *   {
 *     "description": "what the cluster is",
 *     "version": {"gitVersion": "v1.33.5-eks-3025e55", "platform": "linux/amd64", …},
 *     "objects": {
 *       "/api/v1/nodes": [object, …],
 *       "/apis/apps/v1/daemonsets": [object, …],
 *       …
 *     }
 *   }
 *
 * `version` is the body of GET /version. `objects` are keyed by the cluster-wide path of their
 * collection. A namespaced object names its namespace in `metadata.namespace`. Each object is
 * written inline, or taken from a real capture in test/fixtures/k8s/:
 *
 *   {"$fixture": "node-eks-al2023.json", "$replace": {"ip-10-0-10-170": "ip-10-0-11-23"}, "$patch": {…}}
 *
 * - `$replace` substitutes text in the file before it is parsed (e.g. a node's name everywhere it
 *   appears); each string must occur in the file.
 * - `$patch` is a JSON merge patch (RFC 7386, as `kubectl patch --type merge`), applied after:
 *   objects merge, arrays and scalars replace, null deletes.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {parse as parseYaml} from 'yaml'

import type {KubeObject} from '../../src/sources/cluster/snapshot.js'
import {FIXTURES} from './paths.js'

/** The body of GET /version. */
export interface VersionInfo {
  major: string
  minor: string
  gitVersion: string
  gitCommit: string
  gitTreeState: string
  buildDate: string
  goVersion: string
  compiler: string
  platform: string
}

export interface Scenario {
  description?: string
  version?: Partial<VersionInfo>
  /** Objects by the cluster-wide path of their collection: `/api/v1/nodes`, `/apis/apps/v1/daemonsets`. */
  objects: Record<string, KubeObject[]>
}

interface FixtureReference {
  $fixture: string
  $replace?: Record<string, string>
  $patch?: Record<string, unknown>
}

type ScenarioFile = Omit<Scenario, 'objects'> & {objects: Record<string, Array<FixtureReference | KubeObject>>}

export const CLUSTERS_DIR = join(FIXTURES, 'clusters')
const K8S_FIXTURES_DIR = join(FIXTURES, 'k8s')

/** The scenario folders in test/fixtures/clusters. */
export function scenarioNames(): string[] {
  return readdirSync(CLUSTERS_DIR, {withFileTypes: true})
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .toSorted()
}

export function loadScenario(name: string): Scenario {
  const file: ScenarioFile = JSON.parse(readFileSync(join(CLUSTERS_DIR, name, 'scenario.json'), 'utf8'))
  const objects = Object.fromEntries(
    Object.entries(file.objects).map(([path, entries]) => [path, entries.map((entry) => (isFixtureReference(entry) ? fromFixture(entry, `${name} ${path}`) : entry))]),
  )
  return {...file, objects}
}

const isFixtureReference = (entry: FixtureReference | KubeObject): entry is FixtureReference => typeof entry.$fixture === 'string'

function fromFixture(reference: FixtureReference, where: string): KubeObject {
  let text = readFileSync(join(K8S_FIXTURES_DIR, reference.$fixture), 'utf8')
  for (const [from, to] of Object.entries(reference.$replace ?? {})) {
    if (!text.includes(from)) throw new Error(`${where}: "${from}" does not occur in ${reference.$fixture}`)
    text = text.replaceAll(from, to)
  }

  const object = reference.$fixture.endsWith('.json') ? JSON.parse(text) : parseYaml(text)
  return mergePatch(object, reference.$patch ?? {}) as KubeObject
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch
  const result: Record<string, unknown> = isPlainObject(target) ? {...target} : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key]
    else result[key] = mergePatch(result[key], value)
  }

  return result
}
