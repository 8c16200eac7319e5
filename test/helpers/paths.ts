import {join} from 'node:path'

import {PACKAGE_ROOT} from '../../src/util/paths.js'

/** Fixtures live in the source tree (test/fixtures), not in the compiled dist/. */
export const FIXTURES = join(PACKAGE_ROOT, 'test', 'fixtures')
export const RUN_JS = join(PACKAGE_ROOT, 'bin', 'run.js')
