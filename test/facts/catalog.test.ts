import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {CLUSTER_FACTS, NODE_FACTS} from '../../src/facts/catalog.js'

describe('the fact catalogue', () => {
  it('names every fact group.name, the shape rules see in CEL (kernel.release)', () => {
    for (const {path} of [...NODE_FACTS, ...CLUSTER_FACTS]) assert.match(path, /^[a-z][A-Za-z\d]*\.[a-z][A-Za-z\d]*$/, path)
  })
})
