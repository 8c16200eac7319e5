/**
 * The trim keeps everything the checks read: every cluster scenario gives the same report from its
 * objects as the API serves them as from what the trim keeps of them. A check that comes to read a
 * field the trim drops fails here, on the first scenario that has the field.
 */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import type {GatePolicy} from '../../../src/planner/verdict.js'
import {evaluateSnapshot} from '../../../src/services/cluster-evaluation.js'
import {loadRecipes} from '../../../src/services/recipe-catalog.js'
import {loadRuleCatalog} from '../../../src/services/rule-catalog.js'
import {type ResourceName, RESOURCES} from '../../../src/sources/cluster/resources.js'
import {type ClusterSnapshot, type KubeObject, SNAPSHOT_API_VERSION} from '../../../src/sources/cluster/snapshot.js'
import {trimObject} from '../../../src/sources/cluster/trim.js'
import {loadScenario, type Scenario, scenarioNames} from '../../helpers/apiserver-scenario.js'

const POLICY: GatePolicy = {failOn: 'blocker', allowIncomplete: false}
const rules = await loadRuleCatalog([])
const recipes = await loadRecipes()

/** `/api/v1/namespaces/kube-system/pods` → `/api/v1/pods`, the key the scenario's objects are under. */
const collectionOf = (path: string) => path.replace(/\/namespaces\/[^/]+\//, '/')

/** What each read of the scenario gives: lists filtered by namespace and `key=value` selector, objects by name; as the list reader counts endpoints. */
function read(scenario: Scenario, resource: (typeof RESOURCES)[number]): KubeObject[] {
  if (resource.kind === 'get') {
    if (resource.name === 'version') return [{...scenario.version}]
    return resource.objects.flatMap((object) => {
      const collection = collectionOf(object.path).replace(/\/[^/]+$/, '')
      return (scenario.objects[collection] ?? []).filter((candidate) => candidate.metadata?.name === object.name && candidate.metadata?.namespace === object.namespace)
    })
  }

  const [label, value] = resource.labelSelector?.split('=') ?? []
  const items = (scenario.objects[collectionOf(resource.path)] ?? []).filter(
    (object) => (!resource.namespace || object.metadata?.namespace === resource.namespace) && (!label || object.metadata?.labels?.[label] === value),
  )
  const counted = resource.countOnly
  return counted ? items.map((object) => ({...object, [counted.as]: ((object as Record<string, unknown[]>)[counted.field] ?? []).length})) : items
}

function snapshotOf(scenario: Scenario, keep: (name: ResourceName, object: KubeObject) => KubeObject): ClusterSnapshot {
  const resources = Object.fromEntries(RESOURCES.map((resource) => [resource.name, {status: 'ok', items: read(scenario, resource).map((object) => keep(resource.name, object))}]))
  return {apiVersion: SNAPSHOT_API_VERSION, kind: 'ClusterSnapshot', capturedAt: '', source: {context: 'test'}, resources}
}

describe('what the trim keeps is all the checks read', () => {
  for (const name of scenarioNames()) {
    it(`${name}: the same report from the objects as served and as trimmed`, () => {
      const scenario = loadScenario(name)
      const options = {policy: POLICY, severity: new Map(), skip: [], recipes}
      const served = evaluateSnapshot(snapshotOf(scenario, (_, object) => structuredClone(object)), rules, options)
      const trimmed = evaluateSnapshot(snapshotOf(scenario, (resource, object) => trimObject(resource, object)), rules, options)
      assert.deepEqual({...trimmed, generatedAt: ''}, {...served, generatedAt: ''})
    })
  }
})
