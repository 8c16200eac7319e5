/**
 * The package as a user gets it: packed from a fresh copy of the sources (what git tracks, so dist/
 * must come from the `prepack` build), installed with `npm install -g` into a temporary prefix,
 * and run from another folder with nothing but Node on PATH. npm resolves the dependencies from a
 * registry on loopback that serves package-lock.json (test/helpers/npm-registry.ts) and takes
 * their tarballs from the cache `npm ci` filled: no internet, the versions the other tests ran.
 */
import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {parse} from 'yaml'

import {PACKAGE_ROOT} from '../../src/util/paths.js'
import {skipOutsideCi} from '../helpers/ci.js'
import {runProgram} from '../helpers/cli.js'
import {NODE_RULES, SWITCH_CHECK_RULES} from '../helpers/node-rules.js'
import {startLockRegistry} from '../helpers/npm-registry.js'
import {FIXTURES} from '../helpers/paths.js'

const {bin, version} = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {bin: Record<string, string>; version: string}

/** The folder on PATH that holds `program`, if one does. */
const folderOnPath = (program: string) => process.env.PATH?.split(':').find((folder) => folder && existsSync(join(folder, program)))

/** This environment without the npm_* variables `npm test` sets: they would point npm at this work tree and its prefix. */
const envWithoutNpm = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')))

/** The files of a fresh clone: tracked and new ones, as they are in the work tree (nothing ignored, so no dist/). */
function copySources(to: string): void {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {cwd: PACKAGE_ROOT, encoding: 'utf8'})
  for (const file of listed.split('\0').filter(Boolean)) {
    const from = join(PACKAGE_ROOT, file)
    if (!existsSync(from)) continue // deleted in the work tree, not yet in a commit
    mkdirSync(dirname(join(to, file)), {recursive: true})
    cpSync(from, join(to, file), {verbatimSymlinks: true})
  }
}

async function npm(args: string[], cwd: string): Promise<void> {
  const result = await runProgram('npm', args, {cwd, env: envWithoutNpm()})
  assert.equal(result.code, 0, `npm ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`)
}

describe('the npm package', () => {
  let work: string
  let tarball: string
  let prefix: string
  /** PATH holding only the installed package's commands and node. */
  let path: string
  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'kpx-package-'))
    const sources = join(work, 'sources')
    copySources(sources)
    // The dependencies the build needs (typescript, types), as `npm ci` would install them.
    symlinkSync(join(PACKAGE_ROOT, 'node_modules'), join(sources, 'node_modules'), 'dir')
    await npm(['pack', '--pack-destination', work], sources)
    tarball = join(work, `kpx-check-${version}.tgz`)

    prefix = join(work, 'prefix')
    const registry = await startLockRegistry(PACKAGE_ROOT)
    try {
      // --ignore-scripts: kpx-check needs no install script (ssh2's only builds an optional speed-up).
      await npm(['install', '--global', '--prefix', prefix, '--registry', `${registry.url}/`, '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--no-update-notifier', tarball], work)
    } finally {
      await registry.close()
    }

    const nodeOnly = join(work, 'node-only')
    mkdirSync(nodeOnly)
    symlinkSync(process.execPath, join(nodeOnly, 'node'))
    path = `${join(prefix, 'bin')}:${nodeOnly}`
  })
  after(() => rmSync(work, {recursive: true, force: true}))

  /** Runs an installed command from a folder of its own, with only `path` to find programs. */
  function runInstalled(command: string, args: string[], searchPath = path) {
    const elsewhere = mkdtempSync(join(work, 'elsewhere-'))
    return runProgram(command, args, {cwd: elsewhere, env: {PATH: searchPath, HOME: elsewhere, NO_COLOR: '1'}})
  }

  /** The files in the tarball, by their path in the package. */
  const packedFiles = () => execFileSync('tar', ['-tzf', tarball], {encoding: 'utf8'}).trim().split('\n').map((file) => file.replace(/^package\//, ''))

  it('holds the compiled commands, the rules, the recipes, the collector and the LICENSE; no tests, sources or source maps', () => {
    const files = packedFiles()
    for (const file of ['bin/run.js', 'bin/kubectl-kpx-check.js', 'dist/src/commands/node.js', 'dist/src/services/builtin-rules.json', 'rules/node/kernel-version.yaml', 'src/sources/collector/collect.sh', 'oclif.manifest.json', 'LICENSE', 'README.md']) {
      assert.ok(files.includes(file), `${file} is missing from the package`)
    }

    assert.deepEqual(files.filter((file) => file.startsWith('dist/test/') || file.endsWith('.ts') || file.endsWith('.map')), [])
  })

  it('installed with npm install -g, says its version from any folder with only Node on PATH', async () => {
    const {code, stdout, stderr} = await runInstalled('kpx-check', ['--version'])
    assert.equal(stderr, '')
    assert.equal(code, 0)
    assert.ok(stdout.startsWith(`kpx-check/${version} `), stdout)
  })

  it('installed with npm install -g, checks a facts bundle with its own rules', async () => {
    const {code, stdout, stderr} = await runInstalled('kpx-check', ['node', '--facts', join(FIXTURES, 'bundles', 'debian-12-iptables-root.facts'), '--json'])
    assert.equal(code, 3, stderr)
    const report = JSON.parse(stdout) as {findings: Array<{rule: string; status: string}>; nodes: Array<{name: string}>; verdict: string}
    assert.equal(report.verdict, 'no-go')
    assert.deepEqual(report.nodes.map((node) => node.name), ['worker-bookworm-1'])
    assert.deepEqual(report.findings.map((finding) => finding.rule).toSorted(), [...NODE_RULES, ...SWITCH_CHECK_RULES])
    assert.deepEqual(report.findings.filter((finding) => finding.status === 'fail').map((finding) => finding.rule).toSorted(), ['node/host-firewall', 'node/localhost-nodeports', 'node/nodeport-addresses'])
  })

  it('kubectl runs the installed kubectl-kpx_check as kubectl kpx-check, and its help says kubectl kpx-check', async (t) => {
    const kubectl = folderOnPath('kubectl')
    if (!kubectl) return skipOutsideCi(t, 'kubectl is not on PATH (it is not a Debian package): kubectl kpx-check cannot be tried')
    const help = await runInstalled('kubectl', ['kpx-check', '--help'], `${join(prefix, 'bin')}:${kubectl}`)
    assert.equal(help.code, 0, help.stderr)
    assert.match(help.stdout, /^ {2}\$ kubectl kpx-check \[COMMAND\]$/m)
    const nodeHelp = await runInstalled('kubectl', ['kpx-check', 'node', '--help'], `${join(prefix, 'bin')}:${kubectl}`)
    assert.equal(nodeHelp.code, 0, nodeHelp.stderr)
    assert.match(nodeHelp.stdout, /^ {2}\$ kubectl kpx-check node --facts node-1\.facts /m)
    assert.match(nodeHelp.stdout, /written by\s+`kubectl kpx-check collect` on other nodes/)
    assert.doesNotMatch(nodeHelp.stdout, /\$ kpx-check/)
  })

  it('called as kpx-check, its help says kpx-check', async () => {
    const {code, stdout, stderr} = await runInstalled('kpx-check', ['node', '--help'])
    assert.equal(code, 0, stderr)
    assert.match(stdout, /^ {2}\$ kpx-check node --facts node-1\.facts /m)
    assert.doesNotMatch(stdout, /kubectl kpx-check/)
  })

  it('the krew manifest template is for kubectl kpx-check and runs the packed kubectl-kpx_check', () => {
    const manifest = parse(readFileSync(join(PACKAGE_ROOT, 'krew', 'kpx-check.yaml'), 'utf8')) as {metadata: {name: string}; spec: {platforms: Array<{bin: string}>}}
    assert.equal(manifest.metadata.name, 'kpx-check')
    assert.equal(`./${manifest.spec.platforms[0].bin.replace(/^node_modules\/kpx-check\//, '')}`, bin['kubectl-kpx_check'])
  })
})
