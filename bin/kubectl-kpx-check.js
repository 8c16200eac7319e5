#!/usr/bin/env node
// Installed as kubectl-kpx_check, which kubectl runs for `kubectl kpx-check` (a dash in a plugin's name is an
// underscore in its file's): help and examples then show the command the way it was typed.
import {execute} from '@oclif/core/execute'
import {readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
await execute({loadOptions: {pjson: {...pjson, oclif: {...pjson.oclif, bin: 'kubectl kpx-check'}}, root}})
