import assert from 'node:assert/strict'
import {it} from 'node:test'

import {writeJson, writeJsonUtf8} from '../../src/report/json.js'

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

it('as UTF-8 in pieces of a megabyte, the same bytes however the text falls across them', () => {
  // Multi-byte characters (– is 3 bytes, 😀 4) on every side of each piece's end, and one string longer than a piece.
  const value = {nodes: Array.from({length: 40_000}, (_, index) => ({name: `node–${index}`, note: index % 7 === 0 ? '😀'.repeat(index % 5) : 'ok'})), long: '–'.repeat(600_000)}
  const pieces: Uint8Array[] = []
  writeJsonUtf8(value, (piece) => pieces.push(piece), {pretty: false})
  assert.ok(pieces.length > 2)
  // Only the piece that holds the long string is longer than a megabyte.
  assert.equal(pieces.filter((piece) => piece.length > 1 << 20).length, 1)
  assert.equal(Buffer.concat(pieces).toString('utf8'), `${JSON.stringify(value)}\n`)
})

it('hands a long text met again over as the same bytes, and never writes again what it handed over', () => {
  // Nodes alike share one checks object, whose text (over 1,024 characters, with multi-byte ones) is written for each.
  const checks = Object.fromEntries(Array.from({length: 30}, (_, index) => [`node/check-${index}`, {status: 'unknown', message: `can't tell – ${index}`}]))
  const value = {nodes: Array.from({length: 2000}, (_, index) => ({name: `node-${index}`, checks, os: {id: index % 2 === 0 ? 'debian' : '😀'}})), long: '–'.repeat(400_000)}
  const handed: Array<{piece: Uint8Array; copy: Buffer}> = []
  writeJsonUtf8(value, (piece) => handed.push({piece, copy: Buffer.from(piece)}), {pretty: false})
  assert.equal(Buffer.concat(handed.map(({piece}) => piece)).toString('utf8'), `${JSON.stringify(value)}\n`)
  for (const {piece, copy} of handed) assert.ok(copy.equals(piece), 'a piece changed after it was handed over')
  const checksText = Buffer.from(JSON.stringify(checks))
  const checksPieces = new Set(handed.filter(({piece}) => checksText.equals(piece)).map(({piece}) => piece))
  // Seen once, then encoded once and handed over as such for each node after.
  assert.equal(handed.filter(({piece}) => checksPieces.has(piece)).length, 1999)
  assert.equal(checksPieces.size, 1)
})

/** Nodes alike share their checks object; it is written once and its text reused, at every depth it stands at. */
function sharedObjects() {
  const checks = {'node/x': {status: 'pass', message: 'fine'}, list: [1, {two: 2}]}
  return {nodes: [{name: 'a', checks}, {name: 'b', checks}], plan: {deep: {deeper: checks}}, top: checks, inList: [[checks]]}
}
