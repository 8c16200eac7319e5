import {readdirSync, readFileSync} from 'node:fs'
import {basename, join} from 'node:path'

import {readBuildManifest} from '../engine/build-manifest.js'
import {BUILTIN_PLATFORMS_DIR} from '../util/paths.js'
import {PLAN_PHASES, type PlanPhase} from '../contract/phases.js'
import type {FileProblem} from '../util/yaml-file.js'
import {CONFIDENCES, type Confidence, REFERENCES_SCHEMA, type RuleReference} from '../contract/finding.js'

/**
 * How one platform switches kube-proxy to nftables: its plan steps, as data in platforms/.
 * Commands name the cluster's own objects through {{variables}} (PLAN_VARIABLES).
 */
export interface PlatformRecipe {
  platform: string
  title: string
  /** A recipe whose steps this one starts from; a step with the same id replaces the inherited one. */
  extends?: string
  confidence: Confidence
  /** How the switch works on this platform, in a sentence (the plan summary quotes it). */
  summary: string
  steps: RecipeStep[]
  references: RuleReference[]
}

export interface RecipeStep {
  id: string
  phase: PlanPhase
  title: string
  why: string
  /** The step applies only when all these hold (see RECIPE_CONDITIONS). */
  when?: RecipeCondition[]
  commands: string[]
  verify?: string[]
  undo?: string[]
}

/** What a recipe step can depend on. */
export const RECIPE_CONDITIONS = ['from-ipvs', 'from-iptables', 'carry-over', 'old-kube-proxy', 'calico-operator-iptables', 'calico-manifest-iptables', 'flannel-iptables'] as const
export type RecipeCondition = (typeof RECIPE_CONDITIONS)[number]

/** The values commands can name; see planVariables in plan.ts. */
export const PLAN_VARIABLES = [
  'kubeProxyNamespace',
  'kubeProxyDaemonSet',
  'switchPods',
  'calicoNamespace',
  'calicoDaemonSet',
  'flannelNamespace',
  'flannelDaemonSet',
  'configMapNamespace',
  'configMapName',
  'configMapKey',
  'canaryNode',
  'fromMode',
  'kubernetesVersion',
  'nftablesConfig',
] as const
export type PlanVariable = (typeof PLAN_VARIABLES)[number]

const lines = {type: 'array', items: {type: 'string', minLength: 1}}

export const RECIPE_FILE_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'kpx-check platform recipe',
  type: 'object',
  additionalProperties: false,
  required: ['platform', 'title', 'confidence', 'summary', 'steps', 'references'],
  properties: {
    platform: {type: 'string', pattern: '^[a-z0-9-]+$', description: 'A cluster.platform value (kpx-check rules facts), or a base recipe name.'},
    title: {type: 'string', minLength: 1},
    extends: {type: 'string'},
    confidence: {enum: [...CONFIDENCES]},
    summary: {type: 'string', minLength: 1},
    steps: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'phase', 'title', 'why', 'commands'],
        properties: {
          id: {type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$'},
          phase: {enum: [...PLAN_PHASES]},
          title: {type: 'string', minLength: 1},
          why: {type: 'string', minLength: 1},
          when: {type: 'array', items: {enum: [...RECIPE_CONDITIONS]}},
          commands: lines,
          verify: lines,
          undo: lines,
        },
      },
    },
    references: REFERENCES_SCHEMA,
  },
} as const

/** The recipe files of a folder, sorted. */
export function recipeFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
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
  const [{Ajv}, {formatProblem, parseYamlFile}] = await Promise.all([import('ajv'), import('../util/yaml-file.js')])
  const validateRecipeFile = new Ajv({allErrors: true, strict: false, verbose: true}).compile(RECIPE_FILE_SCHEMA)
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

/** A recipe's steps with those it inherits, the inherited first unless replaced by id. */
export function recipeSteps(recipes: ReadonlyMap<string, PlatformRecipe>, recipe: PlatformRecipe): RecipeStep[] {
  const inherited = recipe.extends ? recipeSteps(recipes, recipes.get(recipe.extends)!) : []
  const own = new Map(recipe.steps.map((step) => [step.id, step]))
  return [...inherited.map((step) => own.get(step.id) ?? step), ...recipe.steps.filter((step) => !inherited.some((base) => base.id === step.id))]
}
