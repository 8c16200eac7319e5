/** Run by `npm run build`: lints the built-in rules and platform recipes (a problem fails the build) and writes them for readBuildManifest. */
import {writeBuildManifest} from '../services/build-manifest.js'
import {lintRecipes, recipeFiles} from '../services/recipe-catalog.js'
import {ruleFiles} from '../services/rule-files.js'
import {loadRules} from '../services/rule-loading.js'
import {BUILTIN_PLATFORMS_DIR, BUILTIN_RULES_DIR} from '../util/paths.js'

writeBuildManifest('rules', BUILTIN_RULES_DIR, ruleFiles(BUILTIN_RULES_DIR), loadRules([{label: 'rules', path: BUILTIN_RULES_DIR}]))
writeBuildManifest('recipes', BUILTIN_PLATFORMS_DIR, recipeFiles(BUILTIN_PLATFORMS_DIR), [...(await lintRecipes(BUILTIN_PLATFORMS_DIR)).values()])
