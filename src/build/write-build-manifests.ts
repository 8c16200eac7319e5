/** Run by `npm run build`: lints the built-in rules and platform recipes (a problem fails the build) and writes them for readBuildManifest. */
import {BUILTIN_PLATFORMS_DIR, BUILTIN_RULES_DIR} from '../util/paths.js'
import {writeBuildManifest} from '../engine/build-manifest.js'
import {ruleFiles} from '../engine/rule-files.js'
import {loadRules} from '../engine/rule-loader.js'
import {lintRecipes, recipeFiles} from '../services/recipe-catalog.js'

writeBuildManifest('rules', BUILTIN_RULES_DIR, ruleFiles(BUILTIN_RULES_DIR), loadRules([{label: 'rules', path: BUILTIN_RULES_DIR}]))
writeBuildManifest('recipes', BUILTIN_PLATFORMS_DIR, recipeFiles(BUILTIN_PLATFORMS_DIR), [...(await lintRecipes(BUILTIN_PLATFORMS_DIR)).values()])
