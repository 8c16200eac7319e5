/** docs/rules.md, made from the rules themselves (rules/): what each checks, how sure it is, what it reads, where to read more. */
import type {LoadedRule} from '../engine/rule-lint.js'
import {code, joined, link, type Markdown, md, prose, proseWithCode, tableRow} from '../report/markdown-safe.js'

/** The scopes in the order the reference lists them, with their headings. */
const SCOPES = [
  ['cluster', 'Cluster rules', 'Judged on what the Kubernetes API shows (`kpx-check cluster`), once for the cluster or once for each object they are about.'],
  ['node', 'Node rules', 'Judged on each node\'s facts: `kpx-check node`, or `kpx-check cluster` with --node-probe or --facts.'],
  ['verify', 'Verify rules', 'Judged after the switch (`kpx-check verify node`, `kpx-check verify cluster`).'],
] as const

function ruleSection(rule: LoadedRule): Markdown {
  const facts = joined(rule.needs.map((fact) => code(fact)), md`, `)
  const also = rule.uses && rule.uses.length > 0 ? md` (and, where known, ${joined(rule.uses.map((fact) => code(fact)), md`, `)})` : md``
  const references = rule.references.map((reference) => md`- ${link(reference.title, reference.url)}`)
  // A conditional line says where it is shown; the report leaves it out where its condition is false.
  const remediation = rule.remediation.map((line) =>
    typeof line === 'string' ? md`- ${proseWithCode(line.trim())}` : md`- ${proseWithCode(line.text.trim())} Shown where ${code(line.when)} holds or cannot be told.`,
  )
  return joined(
    [
      md`### ${rule.id}`,
      md`**${rule.title}**. Severity ${rule.severity}, confidence ${rule.confidence ?? 'verified'}.`,
      proseWithCode(rule.description.trim()),
      md`Reads ${facts}${also}.`,
      joined([md`What to do:`, ...remediation], md`\n`),
      ...(references.length > 0 ? [joined([md`References:`, ...references], md`\n`)] : []),
    ],
    md`\n\n`,
  )
}

/** The whole reference, rules in the order of their ids within each scope. */
export function ruleReference(rules: readonly LoadedRule[]): string {
  const sorted = rules.toSorted((a, b) => a.id.localeCompare(b.id))
  const index = [
    md`| Rule | Severity | Confidence | Title |`,
    md`|---|---|---|---|`,
    ...sorted.map((rule) => tableRow([md`[${code(rule.id)}](#${rule.id.replaceAll('/', '')})`, md`${rule.severity}`, md`${rule.confidence ?? 'verified'}`, prose(rule.title)])),
  ]
  const scopes = SCOPES.flatMap(([scope, heading, about]) => {
    const ofScope = sorted.filter((rule) => rule.scope === scope)
    return ofScope.length === 0 ? [] : [md`## ${heading}`, proseWithCode(about), ...ofScope.map((rule) => ruleSection(rule))]
  })
  return `${joined(
    [
      md`# Rules`,
      md`Generated from rules/ by npm run docs; do not edit by hand (a test fails when it is stale). ${code('kpx-check rules')} lists the same rules, ${code('kpx-check rules facts')} the facts they read.`,
      joined(index, md`\n`),
      ...scopes,
    ],
    md`\n\n`,
  )}\n`
}
