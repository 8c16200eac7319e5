import {Ajv} from 'ajv'
/** The configuration file, through bin/run.js in a folder of its own: .kpx-check.yaml there, or --config FILE. */
import assert from 'node:assert/strict'
import {cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {basename, join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {parse} from 'yaml'

import {PACKAGE_ROOT} from '../../src/util/paths.js'
import {runCli} from '../helpers/cli.js'
import {FIXTURES} from '../helpers/paths.js'
import {validateReport} from '../helpers/schemas.js'

const DEBIAN = 'debian-12-iptables-root.facts'
/** The Debian bundle's one blocker: without it, the node is go with two failed warnings. */
const DEBIAN_BLOCKER = 'node/localhost-nodeports'
const SNAPSHOT = join(FIXTURES, 'snapshots', 'kubespray-ipvs-metallb.snapshot.json')

interface ConfigReport {
  config?: {file: string; flags: string[]; lowers?: string[]}
  exitCode: number
  nodes: Array<{origin: string}>
  rules: {severityOverrides: Record<string, string>; skipped: string[]}
  waivers?: {file: string}
}

let dir: string
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kpx-config-'))
})
after(() => rmSync(dir, {recursive: true, force: true}))

/** A fresh working folder holding `files` (name → text) and a copy of the Debian bundle in bundles/. */
function workdir(name: string, files: Record<string, string>): string {
  const cwd = join(dir, name)
  mkdirSync(join(cwd, 'bundles'), {recursive: true})
  cpSync(join(FIXTURES, 'bundles', DEBIAN), join(cwd, 'bundles', DEBIAN))
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(cwd, file, '..'), {recursive: true})
    writeFileSync(join(cwd, file), text)
  }

  return cwd
}

async function jsonRun(cwd: string, args: string[]): Promise<{code: null | number; report: ConfigReport; stderr: string}> {
  const {code, stderr, stdout} = await runCli(args, {cwd})
  assert.ok(stdout.startsWith('{'), stderr)
  return {code, report: JSON.parse(stdout) as ConfigReport, stderr}
}

/** The problems listed under "… is not valid:", as `FILE:LINE:COLUMN message`. */
function problems(stderr: string): string[] {
  return [...stderr.matchAll(/^ › {5}(\S+:\d+:\d+ .*)$/gm)].map((match) => match[1].trimEnd())
}

describe('configuration file', () => {
  it('.kpx-check.yaml in the working directory is read: its paths, mapping and lists, named in the report and on stderr', async () => {
    const cwd = workdir('default', {
      '.kpx-check.yaml': ['# team defaults', 'facts: [bundles]', 'severity:', '  node/host-firewall: info', 'node:', `  skip: [${DEBIAN_BLOCKER}]`, ''].join('\n'),
    })
    const {code, report, stderr} = await jsonRun(cwd, ['node', '--json'])
    assert.deepEqual(report.config, {file: '.kpx-check.yaml', flags: ['facts', 'severity', 'skip'], lowers: [`--skip ${DEBIAN_BLOCKER}`, '--severity node/host-firewall=info']})
    assert.deepEqual(report.nodes.map((node) => node.origin), [join('bundles', DEBIAN)])
    assert.deepEqual(report.rules, {...report.rules, skipped: [DEBIAN_BLOCKER], severityOverrides: {'node/host-firewall': 'info'}})
    assert.equal(code, 0)
    assert.match(stderr, /^kpx-check: configuration from \.kpx-check\.yaml$/m)
    assert.ok(validateReport(report), JSON.stringify(validateReport.errors))
  })

  it('--config FILE: its relative paths are relative to its folder, not to the working directory', async () => {
    const cwd = workdir('explicit', {
      'ci/kpx.yaml': ['facts: [../bundles]', 'waivers: waivers.yaml', 'output:', '  json: out/kpx.json', ''].join('\n'),
      'ci/waivers.yaml': `waivers:\n  - rule: ${DEBIAN_BLOCKER}\n    reason: NodePorts on localhost are not used (CHG-1)\n`,
      'ci/out/.keep': '',
    })
    const {code, report} = await jsonRun(cwd, ['node', '--config', 'ci/kpx.yaml', '--json'])
    assert.deepEqual(report.config, {file: 'ci/kpx.yaml', flags: ['facts', 'output', 'waivers'], lowers: [`--waivers ${join('ci', 'waivers.yaml')}`]})
    assert.deepEqual(report.nodes.map((node) => node.origin), [join('bundles', DEBIAN)])
    assert.equal(report.waivers?.file, join('ci', 'waivers.yaml'))
    assert.equal(code, 0)
    assert.equal((JSON.parse(readFileSync(join(cwd, 'ci', 'out', 'kpx.json'), 'utf8')) as ConfigReport).exitCode, 0)
  })

  it('a flag on the command line wins, and its list replaces the file\'s', async () => {
    const cwd = workdir('flags-win', {'.kpx-check.yaml': ['facts: [bundles]', 'fail-on: warning', 'skip: [node/os-distro]', ''].join('\n')})
    const {code, report} = await jsonRun(cwd, ['node', '--json', '--fail-on', 'blocker', '--skip', DEBIAN_BLOCKER])
    assert.deepEqual(report.rules.skipped, [DEBIAN_BLOCKER])
    assert.deepEqual(report.config?.flags, ['facts'])
    assert.equal(code, 0)
  })

  it('fail-on: warning in the file turns the go with failed warnings into exit 4', async () => {
    const args = ['node', '--facts', 'bundles', '--skip', DEBIAN_BLOCKER, '--json']
    const without = await jsonRun(workdir('no-fail-on', {}), args)
    const withFile = await jsonRun(workdir('fail-on', {'.kpx-check.yaml': 'fail-on: warning\n'}), args)
    assert.deepEqual([without.code, withFile.code, withFile.report.exitCode], [0, 4, 4])
  })

  it('a mistake in the file is exit 2 at FILE:LINE:COLUMN: unknown key, wrong type, another command\'s flag, a value the flag does not take', async () => {
    const cwd = workdir('mistakes', {
      '.kpx-check.yaml': ['fail-on: warnings', 'skipp: [node/os-distro]', 'node:', '  node-probe: exec', 'cluster:', '  concurrency: many', '  severity:', '    node/host-firewall: high', '  target-version: 1.30', ''].join('\n'),
    })
    const {code, stderr, stdout} = await runCli(['node', '--facts', 'bundles'], {cwd})
    assert.equal(code, 2, stderr)
    assert.equal(stdout, '')
    assert.deepEqual(problems(stderr), [
      '.kpx-check.yaml:1:1 fail-on must be one of blocker, warning',
      '.kpx-check.yaml:2:1 configuration: unknown field "skipp"; did you mean "skip"?',
      '.kpx-check.yaml:4:3 node.node-probe: a flag of cluster, not of node: move it to the top level or under cluster:',
      '.kpx-check.yaml:6:3 cluster.concurrency must be a whole number',
      '.kpx-check.yaml:8:5 cluster.severity.node/host-firewall must be one of blocker, warning, info',
      '.kpx-check.yaml:9:3 cluster.target-version must be a string',
    ])
    assert.match(stderr, /Quote a value YAML would read as a number/)
    assert.match(stderr, /kpx-check schema --config/)
    assert.match(stderr, /--no-config ignores \.kpx-check\.yaml/)
  })

  it('flags the file sets together that the command line refuses together are a mistake at FILE:LINE:COLUMN', async () => {
    const cwd = workdir('exclusive', {'.kpx-check.yaml': ['facts: [bundles]', 'cluster:', '  node-probe: exec', '  facts: [bundles]', ''].join('\n')})
    // Named with --config: a file found in the working directory may not set --node-probe at all.
    const {code, stderr} = await runCli(['cluster', '--config', '.kpx-check.yaml', '--snapshot', SNAPSHOT], {cwd})
    assert.equal(code, 2, stderr)
    assert.deepEqual(problems(stderr), ['.kpx-check.yaml:3:3 node-probe cannot go with facts (.kpx-check.yaml:4:3) in kpx-check cluster, as on the command line: keep one of them'])
  })

  it('a flag on the command line sets aside the file\'s values of the flags it cannot go with', async () => {
    const cwd = workdir('set-aside', {'.kpx-check.yaml': 'cluster:\n  node-probe: exec\n  context: prod\n'})
    const {code, report, stderr} = await jsonRun(cwd, ['cluster', '--config', '.kpx-check.yaml', '--snapshot', SNAPSHOT, '--facts', 'bundles', '--json'])
    assert.deepEqual(report.config?.flags, ['context'])
    assert.notEqual(code, 2, stderr)
  })

  it('an error about a flag the file set says where the file sets it', async () => {
    const cwd = workdir('origin', {'.kpx-check.yaml': 'facts: [bundles]\nnode:\n  skip: [node/no-such-rule]\n'})
    const {code, stderr} = await runCli(['node'], {cwd})
    assert.equal(code, 2, stderr)
    assert.match(stderr, /--skip node\/no-such-rule: no such rule/)
    assert.match(stderr, /--skip is set by \.kpx-check\.yaml:3:3\./)
  })

  it('kpx-check rules lists the rules the file adds, as the checks load them', async () => {
    const cwd = workdir('rules', {'team/.kpx-check.yaml': 'rules: [../custom-rules]\n'})
    cpSync(join(FIXTURES, 'custom-rules'), join(cwd, 'custom-rules'), {recursive: true})
    const {stdout} = await runCli(['rules', '--config', 'team/.kpx-check.yaml', '--json'], {cwd})
    const rules = JSON.parse(stdout) as Array<{id: string; source: string}>
    assert.deepEqual(rules.find((rule) => rule.id === 'node/company-kernel-floor')?.source, join('custom-rules', 'company-kernel-floor.yaml'))
  })

  it('a missing --config file is exit 2; a missing .kpx-check.yaml is no error', async () => {
    const cwd = workdir('missing', {})
    const missing = await runCli(['node', '--facts', 'bundles', '--config', 'nope.yaml'], {cwd})
    assert.equal(missing.code, 2, missing.stderr)
    assert.match(missing.stderr, /--config nope\.yaml: no such file/)
    const none = await jsonRun(cwd, ['node', '--facts', 'bundles', '--json'])
    assert.equal(none.report.config, undefined)
    assert.doesNotMatch(none.stderr, /configuration from/)
  })

  it('--no-config ignores .kpx-check.yaml, even one that is not valid', async () => {
    const cwd = workdir('no-config', {'.kpx-check.yaml': 'fail-on: [\n'})
    const {code, report, stderr} = await jsonRun(cwd, ['node', '--facts', 'bundles', '--no-config', '--skip', DEBIAN_BLOCKER, '--json'])
    assert.equal(report.config, undefined)
    assert.equal(code, 0, stderr)
  })

  it('a file far larger than a configuration is refused before it is parsed', async () => {
    const cwd = workdir('large', {'big.yaml': `# ${'x'.repeat(300 * 1024)}\n`})
    const {code, stderr} = await runCli(['node', '--config', 'big.yaml'], {cwd})
    assert.equal(code, 2, stderr)
    assert.match(stderr, /--config big\.yaml: larger than 256 KiB/)
  })

  it('kpx-check schema --config accepts the example in docs/configuration.md and refuses what the CLI refuses', async () => {
    const {stdout} = await runCli(['schema', '--config'])
    const validate = new Ajv({allErrors: true, strict: false}).compile(JSON.parse(stdout) as object)
    const readme = readFileSync(join(PACKAGE_ROOT, 'docs', 'configuration.md'), 'utf8')
    const example = /### Configuration file[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)?.[1]
    assert.ok(example, 'docs/configuration.md has an example configuration')
    assert.ok(validate(parse(example)), JSON.stringify(validate.errors))
    assert.equal(validate({node: {'node-probe': 'exec'}}), false)
    assert.equal(validate({'fail-on': 'never'}), false)
  })

  it('a checkout\'s .kpx-check.yaml that lowers the bar says so: on the verdict line, in the JSON (config.lowers) and in the Markdown summary', async () => {
    const cwd = workdir('lowers', {'.kpx-check.yaml': ['facts: [bundles]', `skip: [${DEBIAN_BLOCKER}]`, 'allow-incomplete: true', ''].join('\n')})
    const lowers = [`--skip ${DEBIAN_BLOCKER}`, '--allow-incomplete']
    const {report} = await jsonRun(cwd, ['node', '--json'])
    assert.deepEqual(report.config?.lowers, lowers)
    const text = await runCli(['node'], {cwd})
    assert.match(text.stdout.split('\n').slice(0, 3).join('\n'), new RegExp(String.raw`^The configuration file \.kpx-check\.yaml lowers the bar: ${lowers.join(', ')}$`, 'm'))
    const markdown = await runCli(['node', '--format', 'markdown'], {cwd})
    assert.match(markdown.stdout, /^> \*\*The configuration file `\.kpx-check\.yaml` lowers the bar:\*\* --skip node\/localhost-nodeports, --allow-incomplete$/m)
  })

  it('a checkout\'s .kpx-check.yaml may not name a kubeconfig, probe nodes, or read or write outside the checkout; --config FILE may', async () => {
    const outside = mkdtempSync(join(dir, 'outside-'))
    writeFileSync(join(outside, 'waivers.yaml'), 'waivers: []\n')
    for (const [what, config, problem] of [
      ['a kubeconfig (its exec plugin would run)', 'kubeconfig: evil-kubeconfig\n', /^\.kpx-check\.yaml:1:1 kubeconfig: a \.kpx-check\.yaml found in the working directory may not set --kubeconfig/],
      ['SSH probes', 'node:\n  inventory: hosts\n', /^\.kpx-check\.yaml:2:3 inventory: .* may not set --inventory/],
      ['a file outside, by absolute path', `waivers: ${join(outside, 'waivers.yaml')}\n`, /^\.kpx-check\.yaml:1:1 waivers: .* is outside the working directory/],
      ['a file outside, by ..', `facts: [../${basename(outside)}]\n`, /^\.kpx-check\.yaml:1:1 facts: .* is outside the working directory/],
      ['a file outside, by ~/', 'baseline: ~/report.json\n', /^\.kpx-check\.yaml:1:1 baseline: .* is outside the working directory/],
      ['a symlink out', 'waivers: linked.yaml\n', /^\.kpx-check\.yaml:1:1 waivers: linked\.yaml is outside the working directory \(or leads out of it through a symlink\)/],
      ['an output through a symlinked folder', 'output:\n  json: out/report.json\n', /^\.kpx-check\.yaml:1:1 output: .* is outside the working directory/],
    ] as const) {
      const cwd = workdir(`refused-${what.replaceAll(/[^a-z]+/g, '-')}-${config.length}`, {'.kpx-check.yaml': config})
      symlinkSync(join(outside, 'waivers.yaml'), join(cwd, 'linked.yaml'))
      symlinkSync(outside, join(cwd, 'out'))
      const {code, stderr} = await runCli(['node', '--facts', 'bundles'], {cwd})
      assert.equal(code, 2, `${what}: ${stderr}`)
      assert.match(problems(stderr)[0] ?? '', problem, `${what}: ${stderr}`)
    }

    const cwd = workdir('trusted', {'ci.yaml': `waivers: ${join(outside, 'waivers.yaml')}\n`})
    const {code, stderr} = await runCli(['node', '--facts', 'bundles', '--config', 'ci.yaml'], {cwd})
    assert.notEqual(code, 2, stderr)
  })
})
