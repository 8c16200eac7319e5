import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {PACKAGE_ROOT} from './paths.js'

const packageJson = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {name: string; version: string}

export const TOOL_NAME = packageJson.name
export const TOOL_VERSION = packageJson.version
