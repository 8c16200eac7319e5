import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {ItemArrayCounter} from '../../../src/sources/cluster/list-json.js'
import {benchCluster} from '../../bench/big-cluster.js'
import {loadScenario} from '../../helpers/apiserver-scenario.js'
import {countedList} from '../../helpers/list-json.js'

type Item = Record<string, unknown>
const SLICES = '/apis/discovery.k8s.io/v1/endpointslices'

const list = (items: Item[]) => ({kind: 'EndpointSliceList', apiVersion: 'discovery.k8s.io/v1', metadata: {resourceVersion: '42', continue: 'eyJ2IjoibWV0YSJ9'}, items})

/** What the counter should give: each item's `endpoints` array as `endpointCount`, the rest as it was. */
const expected = (items: Item[]) => countedList(list(items))

/** The counter's text for `json` written in chunks of the given sizes (cycled), parsed. */
function counted(json: string, chunkSizes: number[]): unknown {
  const bytes = Buffer.from(json)
  const counter = new ItemArrayCounter('endpoints', 'endpointCount')
  for (let offset = 0, turn = 0; offset < bytes.length; turn++) {
    const size = chunkSizes[turn % chunkSizes.length]
    counter.write(bytes.subarray(offset, offset + size))
    offset += size
  }

  assert.equal(counter.received, bytes.length)
  return JSON.parse(counter.end())
}

/** Items that try to trip a scanner: the field's name in labels, values and nested objects, escapes, non-ASCII text. */
const TRICKY: Item[] = [
  {
    metadata: {name: 'a', labels: {endpoints: 'x'}, annotations: {note: String.raw`say "endpoints":[1,2] \ and \"endpoints\"`, 'é': 'ünïcødé 日本 🚀'}},
    addressType: 'IPv4',
    endpoints: [{addresses: ['10.0.0.1'], targetRef: {name: 'p[0]{"}'}, zone: 'a,b'}, {addresses: ['10.0.0.2']}, {hostname: String.raw`\\"],\\\"`, zone: '\\'}],
    ports: [{name: 'endpoints', port: 80}],
  },
  {metadata: {name: 'b'}, addressType: 'IPv6', endpoints: []},
  {metadata: {name: 'c'}, addressType: 'FQDN', endpoints: null},
  {metadata: {name: 'd', items: [{endpoints: [1, 2, 3]}]}, addressType: 'IPv4'},
  {metadata: {name: 'e\\'}, endpoints: [[1, [2]], {}, 'x', 3, true, null], nested: {endpoints: [1, 2]}},
]

describe('counting the items’ arrays in a list’s JSON (ItemArrayCounter)', () => {
  it('replaces each item’s endpoints by their number and leaves everything else, however the bytes are cut', () => {
    const compact = JSON.stringify(list(TRICKY))
    for (let cut = 1; cut < Buffer.byteLength(compact); cut++) {
      assert.deepEqual(counted(compact, [cut, Buffer.byteLength(compact)]), expected(TRICKY), `cut at byte ${cut}`)
    }

    const pretty = JSON.stringify(list(TRICKY), null, 2)
    for (const sizes of [[1], [2, 3], [7, 1, 13], [4096]]) assert.deepEqual(counted(pretty, sizes), expected(TRICKY), `chunks of ${sizes}`)
  })

  it('gives what JSON.parse gives on real EndpointSlices and on the benchmark’s', () => {
    const real = loadScenario('ipvs-metallb').objects[SLICES] as Item[]
    const bench = benchCluster({nodes: 20, services: 50, slices: 30, endpointsPerSlice: 40}).objects[SLICES] as Item[]
    for (const items of [real, bench]) assert.deepEqual(counted(JSON.stringify(list(items)), [16_384]), expected(items))
  })

  it('passes other JSON through (a Status error), and a body cut short does not parse', () => {
    const status = {kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'endpointslices is forbidden', reason: 'Forbidden', code: 403}
    assert.deepEqual(counted(JSON.stringify(status), [5]), status)
    const json = JSON.stringify(list(TRICKY))
    for (const end of [json.indexOf('"endpoints":[') + 20, json.length - 3]) {
      assert.throws(() => counted(json.slice(0, end), [64]), SyntaxError)
    }
  })

  it('counts on past a backslash outside a string, which no JSON has, however the bytes are cut', () => {
    const json = String.raw`{"items":[{"endpoints":[\{"a":"b\"c"},\\,"d\\"],"x":1}]}`
    for (const sizes of [[1], [2], [3], [json.length]]) assert.deepEqual(counted(json, sizes), {items: [{endpointCount: 3, x: 1}]}, `chunks of ${sizes}`)
  })
})
