/** The platform recipes: the built-in ones in platforms/, checked against their schema. */
import {readdirSync, readFileSync} from 'node:fs'
import {basename, join} from 'node:path'

import {PLAN_VARIABLES, type PlatformRecipe, RECIPE_FILE_SCHEMA} from '../planner/recipes.js'
import {BUILTIN_PLATFORMS_DIR} from '../util/paths.js'
import type {FileProblem} from '../util/yaml-file.js'
import {readBuildManifest} from './build-manifest.js'

/** The recipe files of a folder, sorted. */
export function recipeFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .toSorted()
    .map((file) => join(dir, file))
}

/** The platform recipes by platform: the built-in ones as the build linted them, unless their files changed since. */
export async function loadRecipes(dir: string = BUILTIN_PLATFORMS_DIR): Promise<Map<string, PlatformRecipe>> {
  const linted = dir === BUILTIN_PLATFORMS_DIR ? readBuildManifest<PlatformRecipe[]>('recipes', dir, recipeFiles(dir)) : undefined
  return linted ? new Map(linted.map((recipe) => [recipe.platform, recipe])) : lintRecipes(dir)
}

/**
 * Reads and checks every recipe in a folder; problems name FILE:LINE:COLUMN. YAML and the schema
 * validator load here, not at start-up: the build lints the built-in recipes, and a cluster run
 * that needs this loads them while the API reads run.
 */
export async function lintRecipes(dir: string): Promise<Map<string, PlatformRecipe>> {
  const {compileFileSchema, formatProblem, parseYamlFile} = await import('../util/yaml-file.js')
  const validateRecipeFile = compileFileSchema(RECIPE_FILE_SCHEMA)
  const problems: FileProblem[] = []
  const recipes = new Map<string, PlatformRecipe>()
  for (const path of recipeFiles(dir)) {
    const name = basename(path)
    const parsed = parseYamlFile<PlatformRecipe>(readFileSync(path, 'utf8'), join('platforms', name), validateRecipeFile, 'recipe')
    problems.push(...parsed.problems)
    if (!parsed.file) continue
    const recipe = parsed.file.value
    if (`${recipe.platform}.yaml` !== name) problems.push(parsed.file.problemAt(['platform'], `platform "${recipe.platform}" must live in ${recipe.platform}.yaml`))
    for (const [index, step] of recipe.steps.entries()) {
      const texts: Array<[Array<number | string>, string]> = [
        [['steps', index, 'title'], step.title],
        ...(['commands', 'verify', 'undo'] as const).flatMap((field) => (step[field] ?? []).map((text, line): [Array<number | string>, string] => [['steps', index, field, line], text])),
      ]
      for (const [where, text] of texts) {
        for (const variable of text.matchAll(/{{\s*([^}]*?)\s*}}/g)) {
          if (!(PLAN_VARIABLES as readonly string[]).includes(variable[1])) {
            problems.push(parsed.file.problemAt(where, `unknown variable {{${variable[1]}}}; one of ${PLAN_VARIABLES.join(', ')}`))
          }
        }
      }
    }

    recipes.set(recipe.platform, recipe)
  }

  for (const recipe of recipes.values()) {
    if (recipe.extends !== undefined && !recipes.has(recipe.extends)) problems.push({file: `platforms/${recipe.platform}.yaml`, line: 1, column: 1, message: `extends unknown recipe "${recipe.extends}"`})
  }

  if (problems.length > 0) throw new Error(`invalid platform recipes:\n${problems.map((problem) => formatProblem(problem)).join('\n')}`)
  return recipes
}
