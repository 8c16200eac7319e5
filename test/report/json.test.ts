import assert from 'node:assert/strict'
import {it} from 'node:test'

import {writeJson} from '../../src/report/json.js'

const VALUES = [
  {schemaVersion: 'kpx-check/v1', nodes: [], findings: [{rule: 'node/x', evidence: {'kernel.version': '5.15.0'}, remediation: ['a', 'b']}], plan: {steps: []}},
  {empty: {}, list: [1, [2, 3], {a: [4]}], text: 'quote " and – dash', none: null, skipped: undefined},
  [],
  'plain',
  sharedObjects(),
]

const written = (value: unknown, pretty: boolean) => {
  let out = ''
  writeJson(value, (chunk) => (out += chunk), {pretty})
  return out
}

it('writes exactly what JSON.stringify(value, null, 2) does, in pieces', () => {
  for (const value of VALUES) assert.equal(written(value, true), `${JSON.stringify(value, null, 2)}\n`)
})

it('on one line, exactly what JSON.stringify(value) does', () => {
  for (const value of VALUES) assert.equal(written(value, false), `${JSON.stringify(value)}\n`)
})

/** Nodes alike share their checks object; it is written once and its text reused, at every depth it stands at. */
function sharedObjects() {
  const checks = {'node/x': {status: 'pass', message: 'fine'}, list: [1, {two: 2}]}
  return {nodes: [{name: 'a', checks}, {name: 'b', checks}], plan: {deep: {deeper: checks}}, top: checks, inList: [[checks]]}
}
