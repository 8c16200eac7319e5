/** Run by `npm run build`: lints the built-in rules (a problem fails the build) and writes them for readRuleManifest. */
import {BUILTIN_RULES_DIR} from '../paths.js'
import {loadRules} from './rule-loader.js'
import {writeRuleManifest} from './rule-manifest.js'

writeRuleManifest(BUILTIN_RULES_DIR, loadRules([{label: 'rules', path: BUILTIN_RULES_DIR}]))
