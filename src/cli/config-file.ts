/**
 * The configuration file: `.kpx-check.yaml` in the working directory, or `--config FILE`. Its keys are the
 * commands' own flag names; the file becomes the flags' defaults for one parse, so a flag on the command
 * line wins as oclif decides it, and a list given there replaces the file's.
 */
import type {Config} from '@oclif/core/config'
import * as Flags from '@oclif/core/flags'
import type * as Interfaces from '@oclif/core/interfaces'
import {homedir} from 'node:os'
import {dirname, isAbsolute, join} from 'node:path'

import {SEVERITIES} from '../contract/finding.js'
import {JSON_SCHEMA_DRAFT_07} from '../contract/json-schema.js'
import {REPORT_FORMATS} from '../report/formats.js'
import {UsageError} from '../util/errors.js'
import {MAX_FILE_BYTES, readUserFileSync, staysInside} from '../util/user-file.js'
import {fileSchemaValidator, formatProblem, parseYamlFile, type ValidYamlFile} from '../util/yaml-file.js'
import {checkFlags} from './check-flags.js'
import {DURATION_PARSE, DURATION_PATTERN, type DurationBounds, parseDuration} from './duration.js'
import {CONFIGURATION} from './flag-groups.js'

const DEFAULT_CONFIG_FILE = '.kpx-check.yaml'

export const configFlags = {
  config: Flags.string({
    helpGroup: CONFIGURATION,
    description: `Configuration file of defaults for the flags (default: ${DEFAULT_CONFIG_FILE} in the working directory, when there is one); flags given on the command line win. \`<%= config.bin %> schema --config\` prints its schema.`,
    helpValue: 'FILE',
    exclusive: ['no-config'],
  }),
  'no-config': Flags.boolean({helpGroup: CONFIGURATION, description: `Ignore ${DEFAULT_CONFIG_FILE} in the working directory.`}),
}

/** A command's flags, whatever their values' types. */
type FlagSet = Interfaces.FlagInput
type AnyFlag = FlagSet[string]

/** A command that reads the configuration file, with its flags as defined (not as the manifest abridges them). */
export interface ConfiguredCommand {
  id: string
  flags: FlagSet
}

/** Flags a file cannot set, and what to do instead. */
const NOT_IN_FILE: Record<string, string> = {
  json: '--json is not set in a configuration file: `format: json` prints the JSON report',
  config: 'a configuration file does not name another one',
  'no-config': 'a configuration file does not name another one',
}

/** Flags written KEY=VALUE on the command line: a mapping in the file. The output's values are paths. */
const MAPPING_FLAGS = new Map<AnyFlag, {keys?: readonly string[]; values: object; paths?: true}>([
  [checkFlags.severity, {values: {enum: [...SEVERITIES]}}],
  [checkFlags.output, {keys: [...REPORT_FORMATS, 'md'], values: {type: 'string', minLength: 1}, paths: true}],
])

/** Every integer flag shares Flags.integer's parse, which is how one is told from a string flag. */
const INTEGER_PARSE = Flags.integer().parse

/** The commands that take --config, loaded, in the order of their names. */
export async function configuredCommands(config: Config): Promise<ConfiguredCommand[]> {
  const loadable = config.commands.filter((command) => 'config' in command.flags && 'no-config' in command.flags)
  const loaded = await Promise.all(loadable.map(async (command) => ({id: command.id, flags: (await command.load()).flags})))
  return loaded.filter((command) => command.flags.config === configFlags.config).toSorted((a, b) => a.id.localeCompare(b.id))
}

/** The file --config or the working directory gives, if any: read off the command line before oclif parses it. */
export function configFileOf(argv: readonly string[]): undefined | {explicit: boolean; path: string} {
  const end = argv.includes('--') ? argv.indexOf('--') : argv.length
  const flags = argv.slice(0, end)
  if (flags.includes('--no-config')) return undefined
  // As oclif does with a flag given twice, the last --config counts.
  let given: string | undefined
  for (const [index, token] of flags.entries()) {
    if (token.startsWith('--config=')) given = token.slice('--config='.length)
    else if (token === '--config' && index + 1 < flags.length) given = flags[index + 1]
  }

  return given === undefined ? {explicit: false, path: DEFAULT_CONFIG_FILE} : {explicit: true, path: given}
}

function description(flag: AnyFlag): string {
  return (flag.summary ?? flag.description ?? '').replaceAll('<%= config.bin %>', 'kpx-check')
}

/** One value of the flag, as the file writes it. */
function itemSchema(flag: AnyFlag): object {
  if (flag.type === 'boolean') return {type: 'boolean'}
  const mapping = MAPPING_FLAGS.get(flag)
  if (mapping?.keys) return {type: 'object', additionalProperties: false, properties: Object.fromEntries(mapping.keys.map((key) => [key, mapping.values]))}
  if (mapping) return {type: 'object', additionalProperties: mapping.values}
  const {max, min} = flag as {max?: number; min?: number}
  const integer = {type: 'integer', ...(min === undefined ? {} : {minimum: min}), ...(max === undefined ? {} : {maximum: max})}
  if (flag.parse === INTEGER_PARSE) return integer
  // A duration is seconds, or a string as on the command line (2m), whose bounds are checked as it is read.
  if (flag.parse === DURATION_PARSE) return {anyOf: [integer, {type: 'string', pattern: DURATION_PATTERN}]}
  return flag.options ? {enum: [...flag.options]} : {type: 'string', minLength: 1}
}

/** A repeatable flag: a list, or one value alone (`context: prod` as `--context prod`). */
function takesList(flag: AnyFlag): boolean {
  return flag.type === 'option' && Boolean(flag.multiple) && !MAPPING_FLAGS.has(flag)
}

function valueSchema(flag: AnyFlag): object {
  const one = itemSchema(flag)
  if (!takesList(flag)) return one
  const {type} = one as {type?: string}
  return type ? {...one, type: [type, 'array'], items: one} : {anyOf: [one, {type: 'array', items: one}]}
}

/**
 * Where each top-level key goes: to every command whose flag takes the same kind of value, repeatable or
 * not (the schema is a repeatable one's when there is one). The first command by name decides the kind.
 */
function topLevelFlags(commands: readonly ConfiguredCommand[]): Map<string, {flag: AnyFlag; commands: string[]}> {
  const top = new Map<string, {flag: AnyFlag; commands: string[]}>()
  for (const command of commands) {
    for (const [name, flag] of Object.entries(command.flags)) {
      if (name in NOT_IN_FILE) continue
      const first = top.get(name)
      if (!first) top.set(name, {flag, commands: [command.id]})
      else if (JSON.stringify(itemSchema(first.flag)) === JSON.stringify(itemSchema(flag))) {
        first.commands.push(command.id)
        if (takesList(flag)) first.flag = flag
      }
    }
  }

  return top
}

/** A command has a section of its own unless its name is a flag's (`snapshot` is also `cluster --snapshot`). */
function sectioned(commands: readonly ConfiguredCommand[]): ConfiguredCommand[] {
  const names = new Set(commands.flatMap((command) => Object.keys(command.flags)))
  return commands.filter((command) => !names.has(command.id))
}

const refused = (why: string) => ({not: {}, description: why})

/** JSON Schema of the configuration file, from the flags of the commands that read it. `kpx-check schema --config` prints it. */
export function configSchema(commands: readonly ConfiguredCommand[]): object {
  const top = topLevelFlags(commands)
  const notInFile = Object.fromEntries(Object.entries(NOT_IN_FILE).map(([name, why]) => [name, refused(why)]))
  const sections = new Set(sectioned(commands).map((command) => command.id))
  const sectionSchemas = Object.fromEntries(
    sectioned(commands).map((command) => {
      const own = Object.entries(command.flags).filter(([name]) => !(name in NOT_IN_FILE))
      const others = [...top].filter(([name]) => !(name in command.flags))
      const elsewhere = others.map(([name, {commands: owners}]) => {
        const under = owners.filter((owner) => sections.has(owner)).map((owner) => ` or under ${owner}:`)
        return [name, refused(`a flag of ${owners.join(', ')}, not of ${command.id}: move it to the top level${under.join('')}`)]
      })
      return [
        command.id,
        {
          type: 'object',
          description: `Flags of \`kpx-check ${command.id}\`, over the top-level ones.`,
          additionalProperties: false,
          properties: {...Object.fromEntries(own.map(([name, flag]) => [name, {...valueSchema(flag), description: description(flag)}])), ...Object.fromEntries(elsewhere), ...notInFile},
        },
      ]
    }),
  )
  return {
    $schema: JSON_SCHEMA_DRAFT_07,
    $id: 'https://kpx-check.dev/schemas/config.v1.json',
    title: 'kpx-check configuration',
    description: `Defaults for the flags of ${commands.map((command) => `kpx-check ${command.id}`).join(', ')}: keys are the flags' names; a flag on the command line wins.`,
    // An empty file (or one of comments only) is valid: it sets nothing.
    type: ['object', 'null'],
    additionalProperties: false,
    properties: {
      ...Object.fromEntries([...top].map(([name, {flag, commands: owners}]) => [name, {...valueSchema(flag), description: `${description(flag)} (read by: ${owners.join(', ')})`}])),
      ...sectionSchemas,
      ...notInFile,
    },
  }
}

/** A flag's value from the file, as the command line would give it, and where the file says it. */
interface ConfigValue {
  value: unknown
  /** FILE:LINE:COLUMN */
  origin: string
}

export interface ConfigFile {
  /** The file as named (relative to the working directory, or as --config gave it). */
  file: string
  /** Found in the working directory, not named with --config: a checkout's, held to FOUND_CONFIG_MAY_NOT_SET. */
  found: boolean
  /** The values for one command: its section's over the top level's. */
  values(commandId: string): Map<string, ConfigValue>
}

/** Paths in the file are relative to the file's folder; ~/ is the home folder, as the shell makes it; - (standard input) and none stay words. */
function resolvePath(folder: string, path: string): string {
  if (path === '-' || path === 'none' || isAbsolute(path)) return path
  if (path.startsWith('~/')) return join(homedir(), path.slice(2))
  return join(folder, path)
}

/** The value oclif would have parsed from the command line. */
function asFlagValue(flag: AnyFlag, value: unknown, folder: string): unknown {
  const isPath = isPathFlag(flag)
  const mapping = MAPPING_FLAGS.get(flag)
  if (mapping) return Object.entries(value as Record<string, string>).map(([key, item]) => `${key}=${mapping.paths ? resolvePath(folder, item) : item}`)
  const values = takesList(flag) && !Array.isArray(value) ? [value] : value
  if (!isPath) return values
  return Array.isArray(values) ? values.map((item: string) => resolvePath(folder, item)) : resolvePath(folder, values as string)
}

type ConfigDocument = Record<string, unknown>

/**
 * Reads and validates a configuration file: any mistake (unknown key, wrong type, a flag of another
 * command, a value the flag does not take, two flags that cannot go together) is a usage error naming FILE:LINE:COLUMN.
 * Undefined when there is no .kpx-check.yaml.
 */
export async function readConfigFile(choice: {explicit: boolean; path: string}, loadCommands: () => Promise<ConfiguredCommand[]>): Promise<ConfigFile | undefined> {
  const text = readUserFileSync(choice.explicit ? '--config' : 'configuration file', choice.path, {optional: !choice.explicit, maxBytes: MAX_FILE_BYTES.config})
  if (text === undefined) return undefined
  // Only a file that is there costs loading every command that reads it (their flags make the schema).
  const commands = await loadCommands()
  const parsed = parseYamlFile<ConfigDocument | null>(text, choice.path, fileSchemaValidator(configSchema(commands))(), 'configuration')
  const suggestions = [
    `Keys are the flags' names as on the command line, top-level for every command that has the flag, under ${sectioned(commands).map((command) => `${command.id}:`).join(' or ')} for one command's; \`kpx-check schema --config\` prints the schema (docs/configuration.md).`,
    ...(choice.explicit ? [] : [`--no-config ignores ${choice.path}.`]),
  ]
  const invalid = (problems: readonly string[]) => new UsageError(`configuration file ${choice.path} is not valid:\n${problems.map((problem) => `  ${problem}`).join('\n')}`, suggestions)
  if (!parsed.file) {
    // YAML reads 1.30 as the number 1.3: a version, or any other string flag's value, is quoted.
    if (parsed.problems.some((problem) => problem.message.endsWith(' must be a string'))) suggestions.push('Quote a value YAML would read as a number or a boolean: target-version: "1.35".')
    throw invalid(parsed.problems.toSorted((a, b) => a.line - b.line || a.column - b.column).map((problem) => formatProblem(problem)))
  }

  const file = parsed.file
  const folder = dirname(choice.path)
  const top = topLevelFlags(commands)
  const listsForOne: string[] = []
  const values = new Map(
    commands.map((command) => {
      const entries = new Map<string, ConfigValue>()
      const take = (path: string[], name: string, value: unknown) => {
        const origin = originOf(file, path)
        // Only at the top level can a list reach a command whose flag takes one value.
        if (Array.isArray(value) && !takesList(command.flags[name]) && command.flags[name].type === 'option') listsForOne.push(`${origin} ${name}: kpx-check ${command.id} takes one --${name}, not a list`)
        else if (command.flags[name].parse === DURATION_PARSE && typeof value === 'string') entries.set(name, {value: parseDuration(value, `${origin} ${name}:`, command.flags[name] as DurationBounds), origin})
        else entries.set(name, {value: asFlagValue(command.flags[name], value, folder), origin})
      }

      for (const [name, value] of Object.entries(file.value ?? {})) if (top.get(name)?.commands.includes(command.id)) take([name], name, value)
      // The section is over the top level as the command line is over the file: its flag sets aside the top level's partners.
      const partners = exclusivePartners(command.flags)
      const section = (sectioned(commands).includes(command) ? file.value?.[command.id] : undefined) ?? {}
      for (const name of Object.keys(section)) for (const other of partners.get(name) ?? []) entries.delete(other)
      for (const [name, value] of Object.entries(section)) take([command.id, name], name, value)
      return [command.id, entries]
    }),
  )
  const conflicts = new Set([...listsForOne, ...commands.flatMap((command) => exclusiveConflicts(command, values.get(command.id)!))])
  if (!choice.explicit) for (const command of commands) for (const problem of beyondTheCheckout(command, values.get(command.id)!)) conflicts.add(problem)
  if (conflicts.size > 0) throw invalid([...conflicts])
  return {file: choice.path, found: !choice.explicit, values: (commandId) => values.get(commandId) ?? new Map()}
}

/**
 * What a .kpx-check.yaml found in the working directory (a checkout's, a pull request's) may not set, since the CI
 * did not name it: what could run a program (a kubeconfig's exec plugin), reach other machines with the CI's keys
 * (SSH) or write to the cluster (probe pods). --config FILE names a file the caller trusts, and may set them.
 */
const FOUND_CONFIG_MAY_NOT_SET = [
  'kubeconfig',
  'node-probe',
  'probe-namespace',
  'ssh',
  'inventory',
  'jump',
  'identity',
  'ssh-config',
  'known-hosts',
  'host-key-policy',
  'sudo',
  'ssh-user',
  'ssh-host-template',
] as const

/** A found file's flags it may not set, and its paths that lead out of the working directory (a symlink's included). */
function beyondTheCheckout(command: ConfiguredCommand, values: Map<string, ConfigValue>): string[] {
  const problems: string[] = []
  for (const [name, {origin, value}] of values) {
    if ((FOUND_CONFIG_MAY_NOT_SET as readonly string[]).includes(name)) {
      problems.push(`${origin} ${name}: a ${DEFAULT_CONFIG_FILE} found in the working directory may not set --${name} (it could run a program, reach other machines or write to the cluster); give it on the command line, or name a trusted file with --config`)
      continue
    }

    const flag = command.flags[name]
    const mapping = MAPPING_FLAGS.get(flag)
    if (!isPathFlag(flag) && !mapping?.paths) continue
    const paths = [value].flat().map((item) => (mapping ? String(item).slice(String(item).indexOf('=') + 1) : String(item)))
    for (const path of paths.filter((item) => item !== '-' && item !== 'none')) {
      if (!staysInside(path)) problems.push(`${origin} ${name}: ${path} is outside the working directory (or leads out of it through a symlink); a ${DEFAULT_CONFIG_FILE} found there reads and writes only inside it`)
    }
  }

  return problems
}

/** The flags by which a configuration lowers the bar the gate sets: fewer rules, lower severities, accepted findings, a kinder exit. */
const GATE_LOWERING = ['skip', 'severity', 'allow-incomplete', 'waivers', 'baseline'] as const

/** What the file changed of the gate, as the command line would say it (`--skip node/kernel-version`), of the flags it set. */
export function gateLowering(file: ConfigFile, commandId: string, flagsSet: ReadonlySet<string>): string[] {
  const values = file.values(commandId)
  return GATE_LOWERING.filter((name) => flagsSet.has(name)).flatMap((name) => {
    const {value} = values.get(name)!
    return value === true ? [`--${name}`] : [value].flat().map((item) => `--${name} ${String(item)}`)
  })
}

function isPathFlag(flag: AnyFlag): boolean {
  const {helpValue} = flag as {helpValue?: string}
  return helpValue === 'FILE' || helpValue === 'PATH'
}

function originOf(file: ValidYamlFile<unknown>, path: string[]): string {
  const {column, file: name, line} = file.problemAt(path, '')
  return `${name}:${line}:${column}`
}

/** Flags the file sets together that the command line would refuse together. */
function exclusiveConflicts(command: ConfiguredCommand, values: ReadonlyMap<string, ConfigValue>): string[] {
  return [...values].flatMap(([name, {origin}]) =>
    (command.flags[name].exclusive ?? [])
      .filter((other) => values.has(other))
      .map((other) => `${origin} ${name} cannot go with ${other} (${values.get(other)!.origin}) in kpx-check ${command.id}, as on the command line: keep one of them`),
  )
}

/** Each flag's partners in `exclusive`, both ways: a flag on the command line sets aside the file's values of both. */
function exclusivePartners(flags: FlagSet): Map<string, Set<string>> {
  const partners = new Map<string, Set<string>>(Object.keys(flags).map((name) => [name, new Set()]))
  for (const [name, flag] of Object.entries(flags)) {
    for (const other of flag.exclusive ?? []) {
      partners.get(name)?.add(other)
      partners.get(other)?.add(name)
    }
  }

  return partners
}

/**
 * The command's flags with the file's values as their defaults. A value is set aside when the command line
 * gives the flag (oclif takes the given value) or a flag that cannot go with it. `used` learns which were taken.
 */
export function withFileDefaults<T extends FlagSet>(flags: T, values: ReadonlyMap<string, ConfigValue>, used: Set<string>): T {
  const partners = exclusivePartners(flags)
  return Object.fromEntries(
    Object.entries(flags).map(([name, flag]) => {
      const fromFile = values.get(name)
      if (!fromFile) return [name, flag]
      const {default: ownDefault} = flag as {default?: unknown}
      const fileDefault = async (context: {flags: Record<string, unknown>}) => {
        if ([...partners.get(name)!].some((other) => context.flags[other] !== undefined)) return typeof ownDefault === 'function' ? ownDefault(context) : ownDefault
        used.add(name)
        return fromFile.value
      }

      return [name, {...flag, default: fileDefault}]
    }),
  ) as T
}
