/**
 * The CI recipes of docs/ci.md, as a user copies them: each snippet is YAML its CI reads, its shell passes
 * `bash -n` and shellcheck, and every kpx-check flag in it is one the command has (oclif.manifest.json).
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {parse} from 'yaml'

import {PACKAGE_ROOT} from '../../src/util/paths.js'

const readme = readFileSync(join(PACKAGE_ROOT, 'docs', 'ci.md'), 'utf8')
const recipes = readme.slice(readme.indexOf('### CI recipes'), readme.indexOf('\n## ', readme.indexOf('### CI recipes')))
const snippets = [...recipes.matchAll(/```yaml\n([\s\S]*?)```/g)].map(([, body]) => body)
const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {flags: Record<string, unknown>}>}

interface GithubStep {
  run?: string
  shell?: string
  uses?: string
}

/** Every `--flag` in a script whose only command with flags is kpx-check cluster (the baseline array holds one of them). */
function flagsOf(script: string): string[] {
  return [...script.matchAll(/(?:\s|\()--([a-z-]+)/g)].map(([, flag]) => flag)
}

function assertShell(script: string) {
  const syntax = spawnSync('bash', ['-n'], {input: script, encoding: 'utf8'})
  assert.equal(syntax.status, 0, syntax.stderr)
  const lint = spawnSync('shellcheck', ['--shell=bash', '-'], {input: script, encoding: 'utf8'})
  assert.equal(lint.status, 0, `${lint.stdout}${lint.stderr}`)
}

describe('the CI recipes of docs/ci.md', () => {
  it('are one GitHub Actions workflow and one GitLab CI file', () => {
    assert.equal(snippets.length, 2)
  })

  it('GitHub Actions: a workflow whose shell steps parse, with flags kpx-check cluster has, gating on the exit code', () => {
    const workflow = parse(snippets[0]) as {jobs: Record<string, {steps: GithubStep[]}>; permissions: Record<string, string>}
    assert.equal(workflow.permissions['security-events'], 'write', 'upload-sarif needs it')
    const steps = Object.values(workflow.jobs)[0].steps
    const check = steps.find((step) => step.run?.includes('kpx-check cluster'))!
    assert.equal(check.shell, 'bash', 'the baseline array is bash')
    // GitHub fills ${{ … }} before the shell runs; none is in the scripts, so each is a shell script as written.
    for (const step of steps) if (step.run) assertShell(step.run)
    const flags = flagsOf(check.run!)
    assert.deepEqual(flags.filter((flag) => !(flag in manifest.commands.cluster.flags)), [])
    assert.ok(flags.includes('sarif-location') && flags.includes('baseline'))
    assert.ok(steps.some((step) => step.uses?.startsWith('github/codeql-action/upload-sarif')))
  })

  it('GitLab CI: a job whose script has flags kpx-check cluster has, with its JUnit report', () => {
    const {'kpx-check': job} = parse(snippets[1]) as {'kpx-check': {allow_failure: {exit_codes: number[]}; artifacts: {reports: {junit: string}}; script: string[]}}
    const script = job.script.join('\n')
    assertShell(script)
    assert.deepEqual(flagsOf(script).filter((flag) => !(flag in manifest.commands.cluster.flags)), [])
    assert.ok(script.includes(`junit=${job.artifacts.reports.junit}`))
    assert.deepEqual(job.allow_failure.exit_codes, [5])
  })
})
