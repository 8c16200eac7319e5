/** Files a user points kpx-check at, made to exhaust it: each ends in exit 2 naming the file, never exit 1. */
import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import {runCli} from '../helpers/cli.js'
import {FIXTURES, RUN_JS} from '../helpers/paths.js'

/** Nine aliases of nine of nine …: a few hundred bytes that would expand to millions of nodes ("billion laughs"). */
const ALIAS_BOMB = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...['b', 'c', 'd', 'e', 'f'].map((name, index) => `${name}: &${name} [${Array.from({length: 9}, () => `*${'abcde'[index]}`).join(',')}]`),
  'waivers: [*f]',
  '',
].join('\n')

let dir: string
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kpx-hostile-'))
})
after(() => rmSync(dir, {recursive: true, force: true}))

describe('hostile input files', () => {
  it('a YAML alias bomb as --waivers, in --rules or as --config is a usage error at FILE:LINE:COLUMN', async () => {
    const waivers = join(dir, 'waivers.yaml')
    writeFileSync(waivers, ALIAS_BOMB)
    const rules = join(dir, 'rules')
    mkdirSync(rules)
    writeFileSync(join(rules, 'bomb.yaml'), ALIAS_BOMB)
    for (const args of [['--waivers', waivers], ['--rules', rules], ['--config', waivers]]) {
      const {code, stderr} = await runCli(['node', '--facts', join(FIXTURES, 'bundles'), ...args])
      assert.equal(code, 2, stderr)
      assert.match(stderr, /\.yaml:1:1 YAML: Excessive alias count/)
    }
  })
})

describe('hostile rules', () => {
  it('eight nested comprehensions in --rules: exit 2 at once, naming the file, the line and the rule', async () => {
    const started = performance.now()
    const {code, stderr} = await runCli(['node', '--facts', join(FIXTURES, 'bundles'), '--rules', join(FIXTURES, 'bad-rules', 'nested-comprehensions.yaml')])
    // Evaluating the rule took 74 s; linting it takes no time.
    assert.ok(performance.now() - started < 5000, `${performance.now() - started} ms`)
    assert.equal(code, 2, stderr)
    assert.match(stderr, /nested-comprehensions\.yaml:9:5 rule node\/nested-comprehensions: its CEL is estimated to cost 433,333,332, over the budget of 1,000,000/)
  })

  it('a rule that lints, on a node whose list fact is far longer than the catalogue expects: unknown (cost-limit), not a pass', async () => {
    const bundle = join(dir, 'many-tables.facts')
    const tables = Array.from({length: 3000}, (_, index) => `table ip t${index}`).join('\n')
    writeFileSync(bundle, readFileSync(join(FIXTURES, 'bundles', 'debian-12-iptables-root.facts'), 'utf8').replace(/^### nft-tables\n(?:table .*\n)*/m, `### nft-tables\n${tables}\n`))
    const {code, stdout} = await runCli(['node', '--facts', bundle, '--rules', join(FIXTURES, 'costly-rules'), '--json'])
    const report = JSON.parse(stdout) as {findings: Array<{evidence: Record<string, string[]>; reason?: string; rule: string; status: string}>}
    const finding = report.findings.find((candidate) => candidate.rule === 'node/table-pairs')
    assert.deepEqual([finding?.status, finding?.reason, finding?.evidence['netfilter.tables'].length], ['unknown', 'cost-limit', 3000])
    assert.notEqual(code, 1)
  })
})

describe('a reader that goes away', () => {
  it('stdout closed after the first chunk: the verdict exit code, and no stack trace', async () => {
    const bundles = join(dir, 'many')
    mkdirSync(bundles)
    const text = readFileSync(join(FIXTURES, 'bundles', 'debian-12-iptables-root.facts'), 'utf8')
    for (let index = 0; index < 300; index++) writeFileSync(join(bundles, `n${index}.facts`), text.replace(/^### hostname\n.*$/m, `### hostname\nnode-${index}`))
    const child = spawn(process.execPath, [RUN_JS, 'node', '--facts', bundles, '--format', 'json'], {stdio: ['ignore', 'pipe', 'pipe'], env: {...process.env, NO_COLOR: '1'}})
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.stdout.once('data', () => child.stdout.destroy())
    const code = await new Promise<null | number>((resolve) => child.on('close', resolve))
    const full = await runCli(['node', '--facts', bundles, '--format', 'json'])
    assert.ok(full.stdout.length > 1 << 20, 'the report is larger than a pipe holds')
    assert.equal(code, full.code)
    assert.doesNotMatch(stderr, /EPIPE|at .*\.js:\d+/)
  })

  it('stdout on a full disk (/dev/full), in every format and with --json: one line on stderr, exit 2, no stack trace', async () => {
    for (const args of [['--format', 'text'], ['--format', 'junit'], ['--format', 'json'], ['--json']]) {
      const full = openSync('/dev/full', 'w')
      const child = spawn(process.execPath, [RUN_JS, 'node', '--facts', join(FIXTURES, 'bundles', 'debian-12-iptables-root.facts'), ...args], {stdio: ['ignore', full, 'pipe'], env: {...process.env, NO_COLOR: '1'}})
      closeSync(full)
      let stderr = ''
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
      const code = await new Promise<null | number>((resolve) => child.on('close', resolve))
      assert.equal(code, 2, `${args.join(' ')}: ${stderr}`)
      assert.deepEqual(stderr.split('\n').filter((line) => line.startsWith('kpx-check') || /Error|^\s+at /.test(line)), ['kpx-check: cannot write to standard output: ENOSPC: no space left on device, write'])
    }
  })
})
