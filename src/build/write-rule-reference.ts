/** Run by `npm run docs`: writes docs/rules.md from the built-in rules (test/meta/docs.test.ts fails when it is stale). */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {loadRules} from '../services/rule-loading.js'
import {BUILTIN_RULES_DIR, PACKAGE_ROOT} from '../util/paths.js'
import {ruleReference} from './rule-reference.js'

writeFileSync(join(PACKAGE_ROOT, 'docs', 'rules.md'), ruleReference(loadRules([{label: 'rules', path: BUILTIN_RULES_DIR}])))
