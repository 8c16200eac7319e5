/**
 * kpx-check's help (package.json oclif.helpClass). A command's: what it does and how, then its examples, then its
 * flags in groups (cluster access, node probes, SSH, rules and gating, output), where oclif's put 140 lines of flags
 * first. The top level's: the commands, then where to start.
 */
import type {Command} from '@oclif/core/command'
import {CommandHelp, Help} from '@oclif/core/help'

import {FLAG_GROUPS} from './flag-groups.js'


/** The sections of a command's help, in this order. */
const SECTION_ORDER = ['USAGE', 'DESCRIPTION', 'EXAMPLES', 'ARGUMENTS', 'FLAGS', 'ALIASES', 'FLAG DESCRIPTIONS']

type Section = ReturnType<CommandHelp['sections']>[number]

const group = (flag: Command.Flag.Any) => flag.helpGroup ?? ''

class KpxCommandHelp extends CommandHelp {
  /** `kpx-check cluster [FLAGS]`: the flags are listed below, each once, not all in the usage line too. */
  protected defaultUsage(): string {
    const args = Object.values(this.command.args ?? {}).filter((arg) => !arg.hidden)
    return [this.command.id, ...args.map((arg) => this.arg(arg)), '[FLAGS]'].join(' ')
  }

  /** The description alone: the help opens with the summary already. */
  protected description(): string | undefined {
    return this.command.description && this.wrap(this.command.description)
  }

  protected sections(): Section[] {
    const sections = new Map(super.sections().map((section) => [section.header, section]))
    const flags: Section = {
      header: 'FLAGS',
      generate: ({flags: all}, header) => {
        const groups = ['', ...FLAG_GROUPS, ...new Set(all.map((flag) => group(flag)))]
        return [...new Set(groups)]
          .map((name) => ({body: this.flags(all.filter((flag) => group(flag) === name)), header: name ? `${name.toUpperCase()} ${header}` : header}))
          .filter((section) => section.body !== undefined)
      },
    }
    sections.set('FLAGS', flags)
    return SECTION_ORDER.flatMap((header) => sections.get(header) ?? [])
  }
}

export default class KpxHelp extends Help {
  protected CommandHelpClass = KpxCommandHelp

  formatRoot(): string {
    const bin = this.config.bin
    const start = this.renderList(
      [
        [`${bin} cluster`, 'Can this cluster switch? Read-only, as kubectl.'],
        [`${bin} cluster --node-probe exec`, 'With what only the nodes show.'],
        [`${bin} node`, 'This machine, as a node (as root).'],
        [`${bin} verify cluster --node-probe exec`, 'After the switch: did it work?'],
        [`${bin} help cluster`, 'Its examples and its flags.'],
      ],
      {indentation: 2, spacer: '\n', stripAnsi: this.opts.stripAnsi},
    )
    return `${super.formatRoot()}\n\n${this.section('START HERE', start)}`
  }
}
