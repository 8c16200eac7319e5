import {Plugin} from '@oclif/core'
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {it} from 'node:test'

import {PACKAGE_ROOT} from '../../src/util/paths.js'

/**
 * oclif reads a present manifest even in development, so a stale one hides new commands and flags.
 * The committed file is only written by `npm run manifest`, never by `npm run build` (which `npm test`
 * runs first): the file read here is the one in git, compared with a manifest made afresh from the
 * built commands.
 */
it('oclif.manifest.json matches the commands (regenerate with npm run manifest, and commit it)', async () => {
  const plugin = new Plugin({root: PACKAGE_ROOT, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, respectNoCacheDefault: true})
  await plugin.load()
  const committed = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'oclif.manifest.json'), 'utf8'))
  // As written to disk: a JSON round trip drops the undefined fields the file cannot hold.
  assert.deepEqual(committed, JSON.parse(JSON.stringify(plugin.manifest)), 'oclif.manifest.json is stale: run npm run manifest and commit it') // eslint-disable-line unicorn/prefer-structured-clone
})
