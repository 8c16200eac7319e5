/** The platform recipes: the built-in ones in platforms/, checked against their schema. */
import {readdirSync, readFileSync} from 'node:fs'
import {basename, join} from 'node:path'

import {lineText, PLAN_VARIABLES, type PlatformRecipe, RECIPE_FILE_SCHEMA, recipeSnippets, WAVE_VARIABLES} from '../planner/recipes.js'
import {BUILTIN_PLATFORMS_DIR} from '../util/paths.js'
import type {FileProblem, ValidYamlFile} from '../util/yaml-file.js'
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
  const {fileSchemaValidator, formatProblem, parseYamlFile} = await import('../util/yaml-file.js')
  const validateRecipeFile = fileSchemaValidator(RECIPE_FILE_SCHEMA)()
  const problems: FileProblem[] = []
  const recipes = new Map<string, PlatformRecipe>()
  const files = new Map<string, ValidYamlFile<PlatformRecipe>>()
  for (const path of recipeFiles(dir)) {
    const name = basename(path)
    const parsed = parseYamlFile<PlatformRecipe>(readFileSync(path, 'utf8'), join('platforms', name), validateRecipeFile, 'recipe')
    problems.push(...parsed.problems)
    if (!parsed.file) continue
    const recipe = parsed.file.value
    if (`${recipe.platform}.yaml` !== name) problems.push(parsed.file.problemAt(['platform'], `platform "${recipe.platform}" must live in ${recipe.platform}.yaml`))
    recipes.set(recipe.platform, recipe)
    files.set(recipe.platform, parsed.file)
  }

  for (const recipe of recipes.values()) {
    if (recipe.extends !== undefined && !recipes.has(recipe.extends)) {
      problems.push({file: `platforms/${recipe.platform}.yaml`, line: 1, column: 1, message: `extends unknown recipe "${recipe.extends}"`})
    } else {
      problems.push(...variableProblems(recipe, files.get(recipe.platform)!, recipeSnippets(recipes, recipe)))
    }
  }

  if (problems.length > 0) throw new Error(`invalid platform recipes:\n${problems.map((problem) => formatProblem(problem)).join('\n')}`)
  return recipes
}

/** {{names}} that are neither a plan variable nor a snippet the recipe has; snippets name plan variables only. */
function variableProblems(recipe: PlatformRecipe, file: ValidYamlFile<PlatformRecipe>, snippets: Record<string, string>): FileProblem[] {
  type Text = {where: Array<number | string>; text: string; known: readonly string[]}
  const inSteps = [...PLAN_VARIABLES, ...Object.keys(snippets)]
  const inWaveSteps = [...inSteps, ...WAVE_VARIABLES]
  const texts: Text[] = [
    ...Object.entries(recipe.snippets ?? {}).map(([name, text]) => ({where: ['snippets', name], text, known: PLAN_VARIABLES})),
    ...recipe.steps.flatMap((step, index) => {
      const known = step.forEachWave ? inWaveSteps : inSteps
      return [
        {where: ['steps', index, 'title'], text: step.title, known},
        ...(['commands', 'verify', 'undo'] as const).flatMap((field) =>
          (step[field] ?? []).map((line, at) => ({where: typeof line === 'string' ? ['steps', index, field, at] : ['steps', index, field, at, 'command'], text: lineText(line), known})),
        ),
      ]
    }),
  ]
  const shadowing = Object.keys(recipe.snippets ?? {}).filter((name) => (PLAN_VARIABLES as readonly string[]).includes(name))
  return [
    ...shadowing.map((name) => file.problemAt(['snippets', name], `snippet {{${name}}} has the name of a plan variable`)),
    ...texts.flatMap(({where, text, known}) =>
      [...text.matchAll(/{{\s*([^}]*?)\s*}}/g)].filter((variable) => !known.includes(variable[1])).map((variable) => file.problemAt(where, `unknown variable {{${variable[1]}}}; one of ${known.join(', ')}`)),
    ),
  ]
}
