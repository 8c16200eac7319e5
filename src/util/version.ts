import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {PACKAGE_ROOT} from './paths.js'

const packageJson = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {homepage?: string; name: string; version: string}

export const TOOL_NAME = packageJson.name
export const TOOL_VERSION = packageJson.version
/** Where to read about kpx-check, when package.json says (SARIF links its tool to it). */
export const TOOL_HOMEPAGE = packageJson.homepage
