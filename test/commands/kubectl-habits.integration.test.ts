/**
 * What kubectl users type, through bin/run.js: -o FORMAT, durations such as 30s, `snapshot FILE`, short errors for a
 * flag that is unknown or wrong (not the whole help), and every flag checked before a request reaches the API server.
 */
import assert from 'node:assert/strict'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import {type ApiServer, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {FIXTURES} from '../helpers/paths.js'

const snapshot = join(FIXTURES, 'snapshots', 'kubespray-ipvs-metallb.snapshot.json')
const bundle = join(FIXTURES, 'bundles', 'debian-12-iptables-root.facts')
const withoutTime = (text: string) => text.replace(/"generatedAt":"[^"]+"/, '')

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-habits-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

/** A test API server (AKS's objects) for the describe block that calls this, and a kubeconfig of its own for it. */
function withApiServer(): {kubeconfig: string; server: ApiServer} {
  const live = {} as {kubeconfig: string; server: ApiServer}
  before(async () => {
    live.server = await startApiServer({scenario: 'aks'})
    live.kubeconfig = writeKubeconfig(mkdtempSync(join(workdir, 'kubeconfig-')), live.server)
  })
  after(() => live.server.close())
  return live
}

describe('-o FORMAT, as kubectl says it', () => {
  it('-o json and --output json print the report --json prints; -o md prints the Markdown', async () => {
    const viaJson = await runCli(['cluster', '--snapshot', snapshot, '--json'])
    for (const args of [['-o', 'json'], ['--output', 'json'], ['-ojson'], ['--output=json']]) {
      const {code, stdout} = await runCli(['cluster', '--snapshot', snapshot, ...args])
      assert.equal(code, viaJson.code, args.join(' '))
      assert.equal(withoutTime(stdout), withoutTime(viaJson.stdout), args.join(' '))
    }

    const markdown = await runCli(['cluster', '--snapshot', snapshot, '-o', 'md'])
    assert.match(markdown.stdout, /^# kpx-check: INCOMPLETE for kube-proxy nftables mode\n/)
    const node = await runCli(['node', '--facts', bundle, '-o', 'json'])
    assert.equal((JSON.parse(node.stdout) as Report).nodes[0].name, 'worker-bookworm-1')
  })

  it('-o wide is the long text form, as --details: in cluster, node and verify node alike', async () => {
    for (const command of [['cluster', '--snapshot', snapshot], ['node', '--facts', bundle], ['verify', 'node', '--facts', bundle]]) {
      const [wide, details, short] = await Promise.all([runCli([...command, '-o', 'wide']), runCli([...command, '--details']), runCli(command)])
      assert.equal(wide.code, details.code, command.join(' '))
      assert.equal(wide.stdout, details.stdout, command.join(' '))
      assert.notEqual(wide.stdout, short.stdout, command.join(' '))
    }

    // The long form and a file beside it; wide is no file format.
    const file = join(workdir, 'wide.json')
    const beside = await runCli(['cluster', '--snapshot', snapshot, '-o', 'wide', '-o', `json=${file}`])
    assert.match(beside.stdout, /^ {4}What to do:$/m)
    assert.ok(existsSync(file))
    const asFile = await runCli(['cluster', '--snapshot', snapshot, '-o', `wide=${file}`])
    assert.equal(asFile.code, 2)
    assert.match(asFile.stderr, /--output wide=.*: expected FORMAT=PATH with FORMAT one of/)
    assert.equal((await runCli(['cluster', '--snapshot', snapshot, '-o', 'wide', '-o', 'json'])).code, 2)
  })

  it('-o FORMAT=PATH still writes a file, beside -o FORMAT for stdout', async () => {
    const file = join(workdir, 'report.xml')
    const {code, stdout} = await runCli(['cluster', '--snapshot', snapshot, '-o', 'json', '-o', `junit=${file}`])
    assert.equal(code, 5)
    assert.equal((JSON.parse(stdout) as Report).verdict, 'incomplete')
    assert.match(readFileSync(file, 'utf8'), /^<\?xml /)
  })

  it('two formats for stdout, or one that does not exist, are exit 2 naming them', async () => {
    for (const [args, message] of [
      [['-o', 'json', '--format', 'markdown'], '--format markdown and -o json ask for different outputs on stdout'],
      [['-o', 'json', '-o', 'sarif'], '-o json and -o sarif ask for different outputs on stdout'],
      [['--json', '-o', 'text'], '--json and -o text ask for different outputs on stdout'],
    ] as const) {
      // With --json, the error is JSON on stdout.
      const {code, stderr, stdout} = await runCli(['cluster', '--snapshot', snapshot, ...args])
      assert.equal(code, 2, args.join(' '))
      assert.ok(`${stdout}${stderr}`.includes(message), stdout + stderr)
    }

    const yaml = await runCli(['cluster', '--snapshot', snapshot, '-o', 'yaml'])
    assert.equal(yaml.code, 2)
    assert.match(yaml.stderr, /--output yaml: expected FORMAT=PATH with FORMAT one of text, json, markdown, junit, sarif \(a file\), or FORMAT alone \(what stdout carries; wide: the long text form\)/)
    // Agreeing is no conflict.
    assert.equal((await runCli(['cluster', '--snapshot', snapshot, '--json', '-o', 'json'])).code, 5)
  })
})

describe('durations: 30s, 2m, 1m30s or seconds', () => {
  const live = withApiServer()

  it('--request-timeout 30s and 1m30s read the cluster as 30 and 90 do', async () => {
    for (const timeout of ['30s', '1m30s', '90']) {
      const {code, stdout, stderr} = await runCli(['cluster', '--kubeconfig', live.kubeconfig, '--request-timeout', timeout, '--json'])
      assert.equal(code, 5, `${timeout}: ${stderr}`)
      assert.equal((JSON.parse(stdout) as Report).verdict, 'incomplete')
    }
  })

  it('node --timeout 2m runs; a bad duration is exit 2 naming the flag, on one line, without a tab shown as backslash-t', async () => {
    assert.equal((await runCli(['node', '--facts', bundle, '--timeout', '2m'])).code, 3)
    for (const [args, message] of [
      [['cluster', '--snapshot', snapshot, '--request-timeout', '30x'], '--request-timeout 30x: expected a duration such as 30s, 2m or 1m30s (or a number of seconds)'],
      [['cluster', '--snapshot', snapshot, '--request-timeout', '1.5s'], '--request-timeout 1.5s: expected a duration'],
      [['cluster', '--snapshot', snapshot, '--request-timeout', '0s'], '--request-timeout 0s: expected at least 1s'],
      [['cluster', '--node-probe', 'exec', '--timeout', '30m2h'], '--timeout 30m2h: expected a duration'],
      [['node', '--facts', bundle, '--timeout', '9999999999'], '--timeout 9999999999: expected at most 2147483s'],
    ] as const) {
      const {code, stderr} = await runCli([...args])
      assert.equal(code, 2, args.join(' '))
      assert.ok(stderr.includes(message), stderr)
      assert.ok(!stderr.includes(String.raw`\t`) && !stderr.includes('\t'), stderr)
      assert.doesNotMatch(stderr, /Parsing --/)
    }
  })

  it('in the configuration file, as on the command line: request-timeout: 2m', async () => {
    const dir = mkdtempSync(join(workdir, 'config-'))
    writeFileSync(join(dir, '.kpx-check.yaml'), 'request-timeout: 2m\n')
    const {code, stdout, stderr} = await runCli(['cluster', '--kubeconfig', live.kubeconfig, '--json'], {cwd: dir})
    assert.equal(code, 5, stderr)
    assert.deepEqual((JSON.parse(stdout) as Report & {config: {flags: string[]}}).config.flags, ['request-timeout'])
    writeFileSync(join(dir, '.kpx-check.yaml'), 'request-timeout: soon\n')
    const bad = await runCli(['cluster', '--kubeconfig', live.kubeconfig], {cwd: dir})
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /\.kpx-check\.yaml:1:1/)
  })
})

describe('an unknown or wrong flag: the error, the flag meant, and where the help is; not the help', () => {
  /** At 80 columns, as in a pipe or a CI log. */
  const run = (args: string[]) => runCli(args, {env: {OCLIF_COLUMNS: '80'}})

  it('cluster --bogus prints at most 3 lines on stderr, exit 2', async () => {
    const {code, stdout, stderr} = await run(['cluster', '--bogus'])
    assert.equal(code, 2)
    assert.equal(stdout, '')
    assert.ok(stderr.trimEnd().split('\n').length <= 3, stderr)
    assert.match(stderr, /Error: kpx-check cluster has no flag --bogus\n/)
    assert.match(stderr, /kpx-check cluster --help lists its flags\./)
    assert.doesNotMatch(stderr, /USAGE|FLAGS/)
  })

  for (const [args, expected] of [
    [['cluster', '--snapshott', 'x'], 'kpx-check cluster has no flag --snapshott: did you mean --snapshot?'],
    [['node', '--factz', 'x'], 'kpx-check node has no flag --factz: did you mean --facts?'],
    [['cluster', '-n', 'kube-system'], 'kpx-check cluster has no flag -n: kpx-check reads the namespaces it needs itself'],
    [['cluster', '--as', 'admin'], 'kpx-check cluster has no flag --as: use a kubeconfig context with those credentials (--context)'],
    [['cluster', '--fail-on', 'never'], 'Expected --fail-on=never to be one of: blocker, warning'],
    [['cluster', '--all-contexts', '--context', 'a'], '--context=a cannot also be provided when using --all-contexts'],
    [['cluster', '--request-timeout'], 'Flag --request-timeout expects a value'],
    [['rules', 'lint'], 'Missing 1 required arg'],
  ] as const) {
    it(`${args.join(' ')}: "${expected}" in at most 3 lines, exit 2`, async () => {
      const {code, stderr} = await run([...args])
      assert.equal(code, 2, stderr)
      assert.ok(stderr.replaceAll(/ ?\n ›\s+/g, ' ').includes(expected), stderr)
      assert.ok(stderr.trimEnd().split('\n').length <= 3, stderr)
      assert.doesNotMatch(stderr, /USAGE|See more help/)
    })
  }

  it('with --json, the error is JSON on stdout', async () => {
    const {code, stdout} = await runCli(['cluster', '--bogus', '--json'])
    assert.equal(code, 2)
    assert.deepEqual(JSON.parse(stdout), {
      error: {name: 'UsageError', message: 'kpx-check cluster has no flag --bogus', exitCode: 2, suggestions: ['kpx-check cluster --help lists its flags.']},
    })
  })
})

describe('every flag is checked before any request reaches the API server', () => {
  const live = withApiServer()

  const missing = () => join(workdir, 'no-such-file.yaml')
  for (const [name, args, message] of [
    ['--skip of no rule', () => ['--skip', 'nope/rule'], /--skip nope\/rule: no such rule/],
    ['--severity of no rule', () => ['--severity', 'nope/rule=blocker'], /--severity nope\/rule: no such rule/],
    ['--severity of no severity', () => ['--severity', 'node/kernel-version=fatal'], /expected RULE-ID=blocker\|warning\|info/],
    ['--target-version', () => ['--target-version', '1.x'], /--target-version 1\.x: expected a Kubernetes minor version/],
    ['--fail-on', () => ['--fail-on', 'never'], /Expected --fail-on=never to be one of/],
    ['--waivers', () => ['--waivers', missing()], /no-such-file\.yaml/],
    ['--baseline', () => ['--baseline', missing()], /no-such-file\.yaml/],
    ['--rules', () => ['--rules', missing()], /--rules .*no-such-file\.yaml: no such file or folder/],
    ['--output', () => ['--output', 'html=report.html'], /--output html=report\.html/],
    ['-o', () => ['-o', 'yaml'], /--output yaml/],
    ['--request-timeout', () => ['--request-timeout', '30x'], /--request-timeout 30x/],
    ['--sarif-location', () => ['--sarif-location', 'kpx.yml'], /--sarif-location kpx\.yml: no SARIF report is written/],
    ['--probe-namespace', () => ['--node-probe', 'pod', '--probe-namespace', 'Not_A_Name'], /--probe-namespace Not_A_Name: not a namespace name/],
    ['--facts', () => ['--facts', missing()], /--facts .*no-such-file\.yaml: no such file or folder/],
    ['--identity', () => ['--node-probe', 'ssh', '--identity', missing()], /--identity .*no-such-file\.yaml: no such file/],
  ] as const) {
    it(`${name}: exit 2, and the server saw no request`, async () => {
      const before = live.server.requests.length
      const {code, stderr} = await runCli(['cluster', '--kubeconfig', live.kubeconfig, ...args()])
      assert.equal(code, 2, stderr)
      assert.match(stderr, message)
      assert.deepEqual(live.server.requests.slice(before), [])
    })
  }

  it('and a run without mistakes does reach it', async () => {
    const before = live.server.requests.length
    assert.equal((await runCli(['cluster', '--kubeconfig', live.kubeconfig, '--skip', 'node/kernel-version'])).code, 5)
    assert.ok(live.server.requests.length > before)
  })
})

describe('snapshot FILE, -f FILE or -o FILE', () => {
  const live = withApiServer()

  for (const [how, args] of [
    ['the argument', (file: string) => [file]],
    ['-f', (file: string) => ['-f', file]],
    ['-o, as before', (file: string) => ['-o', file]],
  ] as const) {
    it(`${how} names the file written`, async () => {
      const file = join(workdir, `snapshot-${how.replaceAll(/\W/g, '')}.json`)
      const {code, stderr} = await runCli(['snapshot', '--kubeconfig', live.kubeconfig, ...args(file)])
      assert.equal(code, 0, stderr)
      assert.equal(stderr.trimEnd().split('\n').at(-1), `Wrote ${file}`)
      assert.equal((await runCli(['cluster', '--snapshot', file, '--json'])).code, 5)
    })
  }

  it('no file, or two, is exit 2 before the cluster is read', async () => {
    const before = live.server.requests.length
    const none = await runCli(['snapshot', '--kubeconfig', live.kubeconfig])
    assert.equal(none.code, 2)
    assert.match(none.stderr, /snapshot needs the file to write/)
    const two = await runCli(['snapshot', '--kubeconfig', live.kubeconfig, join(workdir, 'a.json'), '-f', join(workdir, 'b.json')])
    assert.equal(two.code, 2)
    assert.match(two.stderr, /snapshot writes one file: .*a\.json and --file .*b\.json are two/)
    assert.ok(!existsSync(join(workdir, 'a.json')) && !existsSync(join(workdir, 'b.json')))
    assert.deepEqual(live.server.requests.slice(before), [])
  })
})

describe('help', () => {
  it('help cluster: the description, the examples, then the flags in groups', async () => {
    const {code, stdout} = await runCli(['help', 'cluster'])
    assert.equal(code, 0)
    const headers = stdout.split('\n').filter((line) => /^[A-Z][A-Z ]+$/.test(line))
    assert.deepEqual(headers, ['USAGE', 'DESCRIPTION', 'EXAMPLES', 'CLUSTER ACCESS FLAGS', 'NODE PROBES FLAGS', 'SSH FLAGS', 'RULES AND GATING FLAGS', 'OUTPUT FLAGS', 'CONFIGURATION FLAGS', 'GLOBAL FLAGS'])
    assert.match(stdout, /^USAGE\n {2}\$ kpx-check cluster \[FLAGS\]\n/m)
    // The summary opens the help, once.
    assert.equal(stdout.split('Check whether a cluster can switch kube-proxy to nftables mode').length, 2)
    for (const [group, flag] of [['CLUSTER ACCESS', '--request-timeout=DURATION'], ['NODE PROBES', '--node-probe'], ['SSH', '--jump'], ['RULES AND GATING', '--skip'], ['OUTPUT', '-o, --output']]) {
      const section = stdout.slice(stdout.indexOf(`\n${group} FLAGS\n`)).split('\n\n', 1)[0]
      assert.ok(section.includes(flag), `${flag} under ${group}`)
    }
  })

  it('help node and verify node: the command\'s own flags first, then the same groups', async () => {
    const node = await runCli(['help', 'node'])
    assert.deepEqual(node.stdout.split('\n').filter((line) => /^[A-Z][A-Z ]+$/.test(line)), ['USAGE', 'DESCRIPTION', 'EXAMPLES', 'NODE PROBES FLAGS', 'SSH FLAGS', 'RULES AND GATING FLAGS', 'OUTPUT FLAGS', 'CONFIGURATION FLAGS', 'GLOBAL FLAGS'])
    const verify = await runCli(['help', 'verify', 'node'])
    assert.match(verify.stdout, /\nFLAGS\n {2}--allow-not-switched/)
  })

  it('the top-level help says where to start, before the list of commands', async () => {
    const {stdout} = await runCli(['help'])
    const start = stdout.indexOf('\nSTART HERE\n')
    assert.ok(start > 0 && start < stdout.indexOf('\nCOMMANDS\n'), stdout)
    assert.match(stdout, /^ {2}kpx-check cluster +Can this cluster switch\? Read-only, as kubectl\.$/m)
    assert.match(stdout, /^ {2}kpx-check verify cluster --node-probe exec +After the switch: did it work\?$/m)
  })
})
