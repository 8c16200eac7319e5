/**
 * Files a user points kpx-check at, made to exhaust it: each ends in exit 2 naming the file, never exit 1. Every file
 * kpx-check reads, given something that never ends (/dev/zero, a FIFO nobody writes to, a symlink to either) or a
 * credential file given by mistake: exit 2 naming the flag, quickly, and not one line of the file quoted.
 */
import assert from 'node:assert/strict'
import {execFileSync, spawn} from 'node:child_process'
import {closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
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

const BUNDLE = join(FIXTURES, 'bundles', 'debian-12-iptables-root.facts')

/** Each file flag (and the two places kpx-check finds files itself) with a command that reads it first. */
const READERS: Array<[what: string, args: (file: string) => string[], env?: (file: string) => NodeJS.ProcessEnv]> = [
  ['--config', (file) => ['node', '--facts', BUNDLE, '--config', file]],
  ['--rules', (file) => ['node', '--facts', BUNDLE, '--rules', file]],
  ['--waivers', (file) => ['node', '--facts', BUNDLE, '--waivers', file]],
  ['--baseline', (file) => ['node', '--facts', BUNDLE, '--baseline', file]],
  ['--facts', (file) => ['node', '--facts', file]],
  ['--inventory', (file) => ['node', '--inventory', file]],
  ['--ssh-config', (file) => ['node', '--ssh', '127.0.0.1', '--timeout', '5', '--ssh-config', file]],
  ['--identity', (file) => ['node', '--ssh', '127.0.0.1', '--timeout', '5', '--ssh-config', 'none', '--identity', file]],
  ['--known-hosts', (file) => ['node', '--ssh', '127.0.0.1', '--timeout', '5', '--ssh-config', 'none', '--known-hosts', file]],
  ['--kubeconfig', (file) => ['cluster', '--kubeconfig', file]],
  ['KUBECONFIG', () => ['cluster'], (file) => ({KUBECONFIG: file})],
  ['--snapshot', (file) => ['cluster', '--snapshot', file]],
]

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
    // Evaluating the rule took 74 s on an idle machine; linting it takes no time, and a CLI run about 1 s
    // idle, 7 s at load 20: the bound sits between, far from both.
    assert.ok(performance.now() - started < 30_000, `${performance.now() - started} ms`)
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
      const child = spawn(process.execPath, [RUN_JS, 'node', '--facts', BUNDLE, ...args], {stdio: ['ignore', full, 'pipe'], env: {...process.env, NO_COLOR: '1'}})
      closeSync(full)
      let stderr = ''
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
      const code = await new Promise<null | number>((resolve) => child.on('close', resolve))
      assert.equal(code, 2, `${args.join(' ')}: ${stderr}`)
      assert.deepEqual(stderr.split('\n').filter((line) => line.startsWith('kpx-check') || /Error|^\s+at /.test(line)), ['kpx-check: cannot write to standard output: ENOSPC: no space left on device, write'])
    }
  })
})

describe('files that never end', () => {
  it('/dev/zero for every file flag, a symlink to it and a FIFO nobody writes to for some: exit 2 at once, "not a regular file"', async () => {
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    const link = join(dir, 'zero.yaml')
    symlinkSync('/dev/zero', link)
    const runs = [
      ...READERS.map((reader) => [reader, '/dev/zero'] as const),
      ...READERS.filter(([what]) => ['--config', '--facts', '--kubeconfig'].includes(what)).flatMap((reader) => [[reader, link] as const, [reader, fifo] as const]),
    ]
    for (const [[what, args, env], file] of runs) {
      const started = performance.now()
      const {code, stderr} = await runCli(args(file), {env: {HOME: dir, ...env?.(file)}})
      const took = performance.now() - started
      assert.equal(code, 2, `${what} ${file}: ${stderr}`)
      assert.match(stderr, /not a regular file \((a device|a FIFO)\)/, `${what} ${file}`)
      // Reading /dev/zero took gigabytes and minutes before; start-up alone is about a second on a loaded machine.
      assert.ok(took < 8000, `${what} ${file}: ${took} ms`)
    }
  })

  it('a .kpx-check.yaml in the working directory that is a symlink to /dev/zero: exit 2 naming it', async () => {
    const checkout = join(dir, 'checkout')
    mkdirSync(checkout)
    symlinkSync('/dev/zero', join(checkout, '.kpx-check.yaml'))
    const {code, stderr} = await runCli(['node', '--facts', BUNDLE], {cwd: checkout})
    assert.equal(code, 2, stderr)
    assert.match(stderr, /configuration file \.kpx-check\.yaml: not a regular file \(a device\)/)
  })

  it('--facts - fed /dev/zero: refused at 16 MiB, exit 2', async () => {
    const zero = openSync('/dev/zero', 'r')
    const child = spawn(process.execPath, [RUN_JS, 'node', '--facts', '-'], {stdio: [zero, 'ignore', 'pipe']})
    closeSync(zero)
    let stderr = ''
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const code = await new Promise<null | number>((resolve) => child.on('close', resolve))
    assert.equal(code, 2, stderr)
    assert.match(stderr, /--facts -: standard input is larger than 16 MiB/)
  })

  it('a regular file over its cap (a 2 MiB rule file): exit 2, "larger than 1 MiB"', async () => {
    const big = join(dir, 'big.yaml')
    writeFileSync(big, `# ${'x'.repeat(2 * 1024 * 1024)}\n`)
    const {code, stderr} = await runCli(['node', '--facts', BUNDLE, '--rules', big])
    assert.equal(code, 2, stderr)
    assert.match(stderr, /big\.yaml: larger than 1 MiB/)
  })
})

describe('a credential file given to a file flag', () => {
  // What .env, .git-credentials and /proc/self/environ look like: one secret a line, or NUL-separated.
  const SECRETS = ['DB_PASSWORD=hunter2 sesame', 'https://deploy:ghp_s3cr3tT0ken@github.com', 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG']
  const shapes: Array<[name: string, text: string, flags: string[]]> = [
    ['environ', `${SECRETS.join('\0')}\0`, READERS.map(([what]) => what)],
    ['.env', `${SECRETS.join('\n')}\n`, ['--inventory', '--facts', '--baseline', '--snapshot']],
    ['.git-credentials', `${SECRETS[1]}\n`, ['--inventory', '--facts']],
  ]

  it('never has a line quoted in the error, whichever flag it is given to', async () => {
    for (const [name, text, flags] of shapes) {
      const file = join(dir, name)
      writeFileSync(file, text)
      for (const [what, args, env] of READERS.filter(([flag]) => flags.includes(flag))) {
        const {code, stdout, stderr} = await runCli(args(file), {env: {HOME: dir, ...env?.(file)}})
        assert.notEqual(code, 0, `${what} ${name}`)
        for (const secret of ['hunter2', 'ghp_s3cr3tT0ken', 'wJalrXUtnFEMI', 'sesame']) {
          assert.ok(!stderr.includes(secret) && !stdout.includes(secret), `${what} ${name} shows ${secret}:\n${stderr}${stdout}`)
        }
      }
    }
  })
})
