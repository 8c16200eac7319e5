import {type Confidence, CONFIDENCES, REFERENCES_SCHEMA, type RuleReference} from '../contract/finding.js'
import {JSON_SCHEMA_DRAFT_07} from '../contract/json-schema.js'
import {PLAN_PHASES, type PlanPhase} from '../contract/phases.js'

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
  /**
   * Shell text its steps (and those of recipes extending it) insert as `{{name}}`, filled like the
   * steps: one piece of script used in several commands, such as restarting a node's pods and waiting for them.
   */
  snippets?: Record<string, string>
  steps: RecipeStep[]
  references: RuleReference[]
}

interface RecipeStep {
  id: string
  phase: PlanPhase
  title: string
  why: string
  /** The step applies only when all these hold (see RECIPE_CONDITIONS). */
  when?: RecipeCondition[]
  /** The step comes once for each wave of nodes (a node pool, plan.waves), with the WAVE_VARIABLES filled in. */
  forEachWave?: boolean
  /** The step restarts kube-proxy on every node at once (one configuration for the cluster): left out while a node is blocked or not checked. */
  restartsEveryNode?: boolean
  /** One runnable command an element: a loop or a block over several lines stays one element. */
  commands: RecipeLine[]
  verify?: RecipeLine[]
  undo?: RecipeLine[]
}

/**
 * A command, check or undo line; one for a CNI, a mode or a version carries the conditions it needs (the
 * steps' RECIPE_CONDITIONS), and is left out where one of them is false, kept where one cannot be told.
 */
export type RecipeLine = string | {command: string; when: RecipeCondition[]}

/** The text of a recipe line. */
export function lineText(line: RecipeLine): string {
  return typeof line === 'string' ? line : line.command
}

/** What a recipe step can depend on. */
const RECIPE_CONDITIONS = ['from-ipvs', 'from-iptables', 'carry-over', 'old-kube-proxy', 'calico-operator-iptables', 'calico-manifest-iptables', 'flannel-iptables', 'node-local-dns', 'nodes-held'] as const
export type RecipeCondition = (typeof RECIPE_CONDITIONS)[number]

/** The values commands can name; see planVariables in switch-steps.ts. */
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
  /** The nodes that are blocked or not checked while others switch, as a shell word list (nodes-held). */
  'heldNodes',
  /** The ready nodes but the canary, as a shell word list, the control plane's first; empty (the text is left out) when there are none. */
  'readyNodes',
  'fromMode',
  'kubernetesVersion',
  'nftablesConfig',
] as const
export type PlanVariable = (typeof PLAN_VARIABLES)[number]

/**
 * The values a forEachWave step can name besides the plan's: the wave's name, its canary, a shell word list of its
 * ready nodes; its canary unless it is the plan's (waveFirst), and its ready nodes but the two canaries (waveOthers).
 * A text naming an empty one of the last two is left out.
 */
export const WAVE_VARIABLES = ['waveName', 'waveCanary', 'waveNodes', 'waveFirst', 'waveOthers'] as const
export type WaveVariable = (typeof WAVE_VARIABLES)[number]

const lines = {
  type: 'array',
  items: {
    oneOf: [
      {type: 'string', minLength: 1},
      {
        type: 'object',
        additionalProperties: false,
        required: ['when', 'command'],
        properties: {when: {type: 'array', minItems: 1, items: {enum: [...RECIPE_CONDITIONS]}}, command: {type: 'string', minLength: 1}},
        description: 'A line for a CNI, a mode or a version: left out where one of its conditions is false, kept where one cannot be told.',
      },
    ],
  },
}

export const RECIPE_FILE_SCHEMA = {
  $schema: JSON_SCHEMA_DRAFT_07,
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
    snippets: {type: 'object', propertyNames: {pattern: '^[a-z][A-Za-z]*$'}, additionalProperties: {type: 'string', minLength: 1}},
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
          forEachWave: {type: 'boolean', description: 'Repeat the step for each wave of nodes (node pool), with {{waveName}}, {{waveCanary}}, {{waveNodes}}, {{waveFirst}} and {{waveOthers}}.'},
          restartsEveryNode: {type: 'boolean', description: 'The step restarts kube-proxy on every node at once: the plan leaves its commands out while a node is blocked or not checked.'},
          commands: lines,
          verify: lines,
          undo: lines,
        },
      },
    },
    references: REFERENCES_SCHEMA,
  },
} as const

/** The snippets a recipe's steps can insert: its own and those it inherits, its own first. */
export function recipeSnippets(recipes: ReadonlyMap<string, PlatformRecipe>, recipe: PlatformRecipe): Record<string, string> {
  return {...(recipe.extends ? recipeSnippets(recipes, recipes.get(recipe.extends)!) : {}), ...recipe.snippets}
}

/** A recipe's steps with those it inherits, the inherited first unless replaced by id. */
export function recipeSteps(recipes: ReadonlyMap<string, PlatformRecipe>, recipe: PlatformRecipe): RecipeStep[] {
  const inherited = recipe.extends ? recipeSteps(recipes, recipes.get(recipe.extends)!) : []
  const own = new Map(recipe.steps.map((step) => [step.id, step]))
  return [...inherited.map((step) => own.get(step.id) ?? step), ...recipe.steps.filter((step) => !inherited.some((base) => base.id === step.id))]
}
