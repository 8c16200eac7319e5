/**
 * What users of any CLI expect: `help` and `-h`, a suggestion for a mistyped command, `version`, and
 * shell completion (oclif's plugins, src/cli/command-not-found.ts for the suggestion).
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import {PACKAGE_ROOT} from '../../src/util/paths.js'
import {startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {skipOutsideCi} from '../helpers/ci.js'
import {runCli, runProgram} from '../helpers/cli.js'

const {version} = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {version: string}

describe('help', () => {
  it('kpx-check help lists the commands, as kpx-check --help and -h do', async () => {
    const help = await runCli(['help'])
    assert.equal(help.code, 0, help.stderr)
    assert.match(help.stdout, /^USAGE\n {2}\$ kpx-check \[COMMAND\]$/m)
    for (const command of ['cluster', 'node', 'rules', 'snapshot', 'help', 'version', 'autocomplete']) assert.match(help.stdout, new RegExp(`^ {2}${command}( |$)`, 'm'))
    assert.equal((await runCli(['--help'])).stdout, help.stdout)
    assert.equal((await runCli(['-h'])).stdout, help.stdout)
  })

  it('kpx-check help node is the help of node, as node --help and node -h are', async () => {
    const help = await runCli(['help', 'node'])
    assert.equal(help.code, 0, help.stderr)
    assert.match(help.stdout, /^Check whether nodes can run kube-proxy in nftables mode\.\n\nUSAGE\n {2}\$ kpx-check node /)
    assert.equal((await runCli(['node', '--help'])).stdout, help.stdout)
    assert.equal((await runCli(['node', '-h'])).stdout, help.stdout)
  })

  it('kpx-check help rules lint is the help of a command in a topic', async () => {
    const help = await runCli(['help', 'rules', 'lint'])
    assert.equal(help.code, 0, help.stderr)
    assert.match(help.stdout, /^USAGE\n {2}\$ kpx-check rules lint /m)
  })
})

describe('a mistyped command', () => {
  const listHint = 'Try this: Run kpx-check help for the list of commands.'

  it('is a usage error (exit 2) that names the command meant', async () => {
    const {code, stdout, stderr} = await runCli(['nod', '--facts', 'x.facts'])
    assert.equal(code, 2)
    assert.equal(stdout, '')
    assert.match(stderr, /Error: nod is not a kpx-check command: did you mean node\?\n/)
    assert.ok(stderr.includes(listHint), stderr)
  })

  it('in a topic, and a command of a plugin, are found too', async () => {
    assert.match((await runCli(['rules', 'lnt'])).stderr, /rules lnt is not a kpx-check command: did you mean rules lint\?/)
    assert.match((await runCli(['verison'])).stderr, /verison is not a kpx-check command: did you mean version\?/)
  })

  it('far from any command gets no guess, only the way to the list', async () => {
    const {code, stderr} = await runCli(['xyz'])
    assert.equal(code, 2)
    assert.match(stderr, /Error: xyz is not a kpx-check command\.\n/)
    assert.doesNotMatch(stderr, /did you mean/)
    assert.ok(stderr.includes(listHint), stderr)
  })

  it('is shown with its control characters visible', async () => {
    const {code, stderr} = await runCli(['no\u001B]0;owned\u0007de'])
    assert.equal(code, 2)
    assert.ok(stderr.includes(String.raw`no\x1B]0;owned\x07de is not a kpx-check command`), stderr)
    assert.ok(!stderr.includes('\u001B') && !stderr.includes('\u0007'), stderr)
  })
})

it('kpx-check version says what --version says: name, version, platform and Node', async () => {
  const expected = `kpx-check/${version} ${process.platform}-${process.arch} node-${process.version}\n`
  const command = await runCli(['version'])
  assert.equal(command.code, 0, command.stderr)
  assert.equal(command.stdout, expected)
  assert.equal((await runCli(['--version'])).stdout, expected)
})

describe('kpx-check autocomplete', () => {
  let home: string
  /** The cache the completions are written to, and HOME, in a folder of the test's own. */
  let env: NodeJS.ProcessEnv
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'kpx-autocomplete-'))
    env = {HOME: home, XDG_CACHE_HOME: join(home, 'cache')}
  })
  after(() => rmSync(home, {recursive: true, force: true}))

  /** What `autocomplete SHELL` tells to add to the shell's rc file, once it has written the completions. */
  async function setupLine(shell: string): Promise<string> {
    const instructions = await runCli(['autocomplete', shell], {env})
    assert.equal(instructions.code, 0, instructions.stderr)
    assert.ok(instructions.stdout.includes(`printf "$(kpx-check autocomplete script ${shell})" >> ~/.${shell}rc`), instructions.stdout)
    const script = await runCli(['autocomplete', 'script', shell], {env})
    assert.equal(script.code, 0, script.stderr)
    return script.stdout
  }

  it('bash: completes commands, subcommands and flags', async () => {
    // What bash does on <TAB>: COMP_WORDS and COMP_CWORD set, the completion function called, COMPREPLY read.
    const complete = (words: string[]) => `COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; $(complete -p kpx-check | sed -E 's/.*-F ([^ ]+).*/\\1/'); echo "\${COMPREPLY[*]}"`
    const script = [await setupLine('bash'), complete(['kpx-check', 'no']), complete(['kpx-check', 'node', '--fa']), complete(['kpx-check', 'rules', 'l'])].join('\n')
    const {code, stdout, stderr} = await runProgram('bash', ['--norc', '-c', script], {env: {...process.env, ...env}})
    assert.equal(code, 0, stderr)
    assert.deepEqual(stdout.split('\n'), ['node', '--facts --fail-on', 'lint', ''])
  })

  it('zsh: registers a completion function that offers the commands and their flags', async (t) => {
    if (spawnSync('zsh', ['--version']).status !== 0) return skipOutsideCi(t, 'zsh is not installed (apt-get install zsh, see .ci/run)')
    // zsh completes only in an interactive line editor: _arguments and _values, which the completion
    // function calls to offer what it has, are replaced by ones that print it.
    const script = [
      await setupLine('zsh'),
      '_arguments() { if [[ $1 == -C ]]; then state=$MOCK_STATE; line=($MOCK_LINE); else shift; print -rl -- "$@"; fi }',
      '_values() { shift; print -rl -- "$@" }',
      'print -r -- "registered: $_comps[kpx-check]"',
      'MOCK_STATE=cmds $_comps[kpx-check]',
      'MOCK_STATE=args MOCK_LINE=node $_comps[kpx-check]',
    ].join('\n')
    const {code, stdout, stderr} = await runProgram('zsh', ['-f', '-c', script], {env: {...process.env, ...env}})
    assert.equal(code, 0, stderr)
    const lines = stdout.split('\n')
    assert.equal(lines[0], 'registered: _kpx-check')
    assert.ok(lines.includes('node[Check whether nodes can run kube-proxy in nftables mode.]'), stdout)
    assert.ok(lines.includes('help[Display help for kpx-check.]'), stdout)
    assert.ok(lines.some((line) => line.startsWith('*--facts[')), stdout)
  })
})

describe('colour', () => {
  /** A live run against a test API server, so that stderr carries progress, with this colour environment. */
  async function colouredParts(env: NodeJS.ProcessEnv): Promise<{stderr: boolean; stdout: boolean}> {
    const server = await startApiServer({scenario: 'aks'})
    const dir = mkdtempSync(join(tmpdir(), 'kpx-colour-'))
    try {
      const {code, stdout, stderr} = await runCli(['cluster', '--kubeconfig', writeKubeconfig(dir, server)], {env})
      assert.equal(code, 5, stderr)
      assert.match(stderr, /Connected to https:/)
      return {stdout: stdout.includes('\u001B['), stderr: stderr.includes('\u001B[')}
    } finally {
      await server.close()
      rmSync(dir, {recursive: true, force: true})
    }
  }

  it('FORCE_COLOR=0 and NO_COLOR turn it off on stdout and on stderr (progress) alike', async () => {
    assert.deepEqual(await colouredParts({NO_COLOR: undefined, FORCE_COLOR: '0'}), {stdout: false, stderr: false})
    assert.deepEqual(await colouredParts({NO_COLOR: '1', FORCE_COLOR: '1'}), {stdout: false, stderr: false})
  })

  it('FORCE_COLOR=1 turns it on in both, though neither is a terminal', async () => {
    assert.deepEqual(await colouredParts({NO_COLOR: undefined, FORCE_COLOR: '1'}), {stdout: true, stderr: true})
  })
})
