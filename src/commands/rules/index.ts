import * as Flags from '@oclif/core/flags'

import {KpxCommand} from '../../cli/base-command.js'
import {configFlags} from '../../cli/config-file.js'
import type {LoadedRule} from '../../engine/rule-lint.js'
import {renderTable} from '../../report/table.js'
import {loadRuleCatalog} from '../../services/rule-catalog.js'

type RuleCatalogEntry = Pick<LoadedRule, 'id' | 'needs' | 'references' | 'scope' | 'severity' | 'source' | 'title'> & {
  confidence: string
}

export default class Rules extends KpxCommand {
  static summary = 'List the rules: id, scope, default severity, confidence and title.'

  static examples = ['<%= config.bin %> rules', '<%= config.bin %> rules --rules ./my-rules --json']

  static flags = {
    rules: Flags.string({description: 'Extra rule files or folders to include (repeatable).', multiple: true, helpValue: 'PATH'}),
    scope: Flags.string({description: 'Only rules of this scope.', options: ['node', 'cluster', 'verify']}),
    ...configFlags,
  }

  async run(): Promise<RuleCatalogEntry[]> {
    const {flags} = await this.parse(Rules)
    const entries = (await loadRuleCatalog(flags.rules ?? []))
      .filter((rule) => !flags.scope || rule.scope === flags.scope)
      .toSorted((a, b) => a.id.localeCompare(b.id))
      .map((rule) => ({
        id: rule.id,
        scope: rule.scope,
        severity: rule.severity,
        confidence: rule.confidence ?? 'verified',
        title: rule.title,
        needs: rule.needs,
        references: rule.references,
        source: rule.source,
      }))
    if (!this.jsonEnabled()) {
      this.log(renderTable(['RULE', 'SEVERITY', 'CONFIDENCE', 'TITLE'], entries.map((rule) => [rule.id, rule.severity, rule.confidence, rule.title])))
    }

    return entries
  }
}
