import {Plugin} from '@oclif/core'
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {it} from 'node:test'

import {PACKAGE_ROOT} from '../../src/util/paths.js'

// oclif reads a present manifest even in development, so a stale one hides new commands and flags.
it('oclif.manifest.json matches the commands (rebuild with npm run build)', async () => {
  const plugin = new Plugin({root: PACKAGE_ROOT, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, respectNoCacheDefault: true})
  await plugin.load()
  const committed = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'oclif.manifest.json'), 'utf8'))
  // As written to disk: a JSON round trip drops the undefined fields the file cannot hold.
  assert.deepEqual(committed, JSON.parse(JSON.stringify(plugin.manifest))) // eslint-disable-line unicorn/prefer-structured-clone
})
