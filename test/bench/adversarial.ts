/**
 * `npm run bench`, last part: the worst case of parsing untrusted input. Each row is one 16 MiB facts
 * bundle whose every section holds the same adversarial text (runs that backtracking expressions
 * would retry at every length), run through `kpx-check node --facts FILE --json` as a user would.
 * Then untrusted rules: the rule lint rejects for its CEL cost, and the costliest it accepts. Then files that never
 * end (/dev/zero) given to every file flag: each refused, its time beside the command's own start-up.
 */
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {BUNDLE_SECTIONS} from '../../src/facts/catalog.js'
import {FIXTURES, RUN_JS} from '../helpers/paths.js'
import {atBudgetRule} from '../helpers/rule-text.js'
import {measure} from './measure.js'

const BUNDLE_BYTES = 16 * 1024 * 1024
const PIECES = ['\n', ' ', 'x=', '1.', '### a', '\t\n', 'table ip t {']

const dir = mkdtempSync(join(tmpdir(), 'kpx-bench-adversarial-'))
console.log(`kpx-check node --facts on a 16 MiB adversarial bundle; Node ${process.version}`)
console.log('every section is                 wall ms  peak RSS MB  exit')
try {
  for (const piece of PIECES) {
    const perSection = Math.floor(BUNDLE_BYTES / BUNDLE_SECTIONS.length)
    const body = piece.repeat(Math.ceil(perSection / piece.length)).slice(0, perSection) + '\u0000!'
    const file = join(dir, 'adversarial.facts')
    writeFileSync(file, ['# kpx-check node facts v1', ...BUNDLE_SECTIONS.flatMap((section) => [`### ${section}`, body.replaceAll(/^### /gm, ' ### ')]), '### end'].join('\n'))
    const run = await measure(process.execPath, [RUN_JS, 'node', '--facts', file, '--json'])
    console.log(`${JSON.stringify(piece).padEnd(32)} ${String(Math.round(run.wallMs)).padStart(7)}  ${String(Math.round(run.peakRssMb)).padStart(11)}  ${run.exitCode}`)
  }

  console.log('\nkpx-check node --facts BUNDLE --rules FILE --json, on a real bundle')
  console.log('--rules FILE                                wall ms  peak RSS MB  exit')
  const ruleCases: Array<{label: string; rule?: {name: string; text: string}}> = [
    {label: 'none'},
    {label: '8 nested comprehensions (lint rejects)', rule: {name: 'nested-comprehensions', text: readFileSync(join(FIXTURES, 'bad-rules', 'nested-comprehensions.yaml'), 'utf8')}},
    {label: 'a rule that costs the budget, 1,000,000', rule: {name: 'at-budget', text: atBudgetRule(9940)}},
  ]
  for (const {label, rule} of ruleCases) {
    const args = ['node', '--facts', join(FIXTURES, 'bundles', 'debian-12-iptables-root.facts'), '--json']
    if (rule) {
      const file = join(dir, `${rule.name}.yaml`)
      writeFileSync(file, rule.text)
      args.push('--rules', file)
    }

    const run = await measure(process.execPath, [RUN_JS, ...args])
    console.log(`${label.padEnd(43)} ${String(Math.round(run.wallMs)).padStart(7)}  ${String(Math.round(run.peakRssMb)).padStart(11)}  ${run.exitCode}`)
  }

  console.log('\n/dev/zero given to each file flag (a file that never ends): refused, exit 2')
  console.log('flag                   wall ms  after start-up ms  peak RSS MB  exit')
  const startUp = await measure(process.execPath, [RUN_JS, '--version'])
  const bundle = join(FIXTURES, 'bundles', 'debian-12-iptables-root.facts')
  const zeroCases: Array<[string, string[]]> = [
    ['--config', ['node', '--facts', bundle, '--config', '/dev/zero']],
    ['--rules', ['node', '--facts', bundle, '--rules', '/dev/zero']],
    ['--waivers', ['node', '--facts', bundle, '--waivers', '/dev/zero']],
    ['--baseline', ['node', '--facts', bundle, '--baseline', '/dev/zero']],
    ['--facts', ['node', '--facts', '/dev/zero']],
    ['--inventory', ['node', '--inventory', '/dev/zero']],
    ['--ssh-config', ['node', '--ssh', '127.0.0.1', '--ssh-config', '/dev/zero']],
    ['--identity', ['node', '--ssh', '127.0.0.1', '--ssh-config', 'none', '--identity', '/dev/zero']],
    ['--known-hosts', ['node', '--ssh', '127.0.0.1', '--ssh-config', 'none', '--known-hosts', '/dev/zero']],
    ['--kubeconfig', ['cluster', '--kubeconfig', '/dev/zero']],
    ['--snapshot', ['cluster', '--snapshot', '/dev/zero']],
  ]
  for (const [flag, args] of zeroCases) {
    const run = await measure(process.execPath, [RUN_JS, ...args])
    console.log(`${flag.padEnd(20)} ${String(Math.round(run.wallMs)).padStart(9)}  ${String(Math.round(run.wallMs - startUp.wallMs)).padStart(17)}  ${String(Math.round(run.peakRssMb)).padStart(11)}  ${run.exitCode}`)
  }

  console.log(`(start-up alone, kpx-check --version: ${Math.round(startUp.wallMs)} ms, ${Math.round(startUp.peakRssMb)} MB)`)
} finally {
  rmSync(dir, {recursive: true, force: true})
}
