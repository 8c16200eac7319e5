/** The configuration file's values as the commands' flags take them, and oclif's parser with them as defaults. */
import {Flags, Parser} from '@oclif/core'
import assert from 'node:assert/strict'
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {homedir, tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import {configFileOf, type ConfiguredCommand, readConfigFile, withFileDefaults} from '../../src/cli/config-file.js'
import Cluster from '../../src/commands/cluster.js'
import Node from '../../src/commands/node.js'
import Snapshot from '../../src/commands/snapshot.js'

const COMMANDS: ConfiguredCommand[] = [
  {id: 'cluster', flags: Cluster.flags},
  {id: 'node', flags: Node.flags},
  {id: 'snapshot', flags: Snapshot.flags},
]

let dir: string
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kpx-config-unit-'))
})
after(() => rmSync(dir, {recursive: true, force: true}))

async function configFrom(text: string) {
  const folder = mkdtempSync(join(dir, 'c-'))
  mkdirSync(join(folder, 'ci'))
  writeFileSync(join(folder, 'ci', 'kpx.yaml'), text)
  const file = await readConfigFile({explicit: true, path: join(folder, 'ci', 'kpx.yaml')}, async () => COMMANDS)
  assert.ok(file)
  const values = (id: string) => Object.fromEntries([...file.values(id)].map(([name, {value}]) => [name, value]))
  return {folder: join(folder, 'ci'), values}
}

describe('configuration values', () => {
  it('paths are relative to the file\'s folder; ~/ is the home folder; -, none and absolute paths stay', async () => {
    const {folder, values} = await configFrom(['kubeconfig: ~/kube/fleet.yaml', 'output:', '  md: out/plan.md', 'cluster:', '  ssh-config: none', '  facts: ["-", bundles, /srv/facts]', ''].join('\n'))
    assert.deepEqual(values('cluster'), {
      kubeconfig: join(homedir(), 'kube', 'fleet.yaml'),
      output: [`md=${join(folder, 'out', 'plan.md')}`],
      'ssh-config': 'none',
      facts: ['-', join(folder, 'bundles'), '/srv/facts'],
    })
  })

  it('a top-level key goes to every command whose flag takes that kind of value', async () => {
    const {values} = await configFrom('context: prod\noutput: {json: kpx.json}\n')
    assert.deepEqual(Object.keys(values('snapshot')), ['context'])
    assert.deepEqual(Object.keys(values('cluster')), ['context', 'output'])
    assert.deepEqual(Object.keys(values('node')), ['output'])
  })

  it('a repeatable flag takes one value alone as a list of one', async () => {
    const {values} = await configFrom('skip: node/os-distro\n')
    assert.deepEqual(values('node'), {skip: ['node/os-distro']})
  })

  it('a top-level key goes to a repeatable flag and to a single one alike; a list only to the repeatable one', async () => {
    const commands: ConfiguredCommand[] = [{id: 'fleet', flags: {context: Flags.string({multiple: true})}}, {id: 'snapshot', flags: Snapshot.flags}]
    const path = join(mkdtempSync(join(dir, 'c-')), 'kpx.yaml')
    writeFileSync(path, 'context: prod\n')
    const one = await readConfigFile({explicit: true, path}, async () => commands)
    assert.deepEqual([one?.values('fleet').get('context')?.value, one?.values('snapshot').get('context')?.value], [['prod'], 'prod'])
    writeFileSync(path, 'context: [prod, staging]\n')
    await assert.rejects(readConfigFile({explicit: true, path}, async () => commands), (error: Error) => {
      assert.match(error.message, /kpx\.yaml:1:1 context: kpx-check snapshot takes one --context, not a list$/m)
      return true
    })
  })

  it('a section\'s flag sets aside the top level\'s flags it cannot go with', async () => {
    const {values} = await configFrom('facts: [bundles]\ncluster:\n  node-probe: exec\n')
    assert.deepEqual(Object.keys(values('cluster')), ['node-probe'])
    assert.deepEqual(Object.keys(values('node')), ['facts'])
  })
})

describe('which file', () => {
  it('--config FILE or --config=FILE; --no-config none; after -- nothing counts', () => {
    assert.deepEqual(configFileOf(['--json']), {explicit: false, path: '.kpx-check.yaml'})
    assert.deepEqual(configFileOf(['--config', 'a.yaml', '--json']), {explicit: true, path: 'a.yaml'})
    assert.deepEqual(configFileOf(['--config=b.yaml']), {explicit: true, path: 'b.yaml'})
    assert.equal(configFileOf(['--no-config']), undefined)
    assert.deepEqual(configFileOf(['--', '--config', 'a.yaml']), {explicit: false, path: '.kpx-check.yaml'})
  })
})

describe('the file\'s values as oclif defaults', () => {
  const origin = 'kpx.yaml:1:1'
  const fileValues = new Map([
    ['fail-on', {value: 'warning', origin}],
    ['skip', {value: ['node/os-distro'], origin}],
    ['node-probe', {value: 'exec', origin}],
  ])

  it('the file\'s values fill what the command line leaves out, and are said to come from it', async () => {
    const used = new Set<string>()
    const {flags} = await Parser.parse([], {flags: withFileDefaults(Cluster.flags, fileValues, used)})
    assert.deepEqual([flags['fail-on'], flags.skip, flags['node-probe']], ['warning', ['node/os-distro'], 'exec'])
    assert.deepEqual([...used].toSorted(), ['fail-on', 'node-probe', 'skip'])
  })

  it('the command line wins, its list replaces the file\'s, and a flag it gives sets aside those it cannot go with', async () => {
    const used = new Set<string>()
    const {flags} = await Parser.parse(['--fail-on', 'blocker', '--skip', 'node/host-firewall', '--facts', 'bundles'], {flags: withFileDefaults(Cluster.flags, fileValues, used)})
    assert.deepEqual([flags['fail-on'], flags.skip, flags['node-probe'], flags.facts], ['blocker', ['node/host-firewall'], undefined, ['bundles']])
    assert.deepEqual([...used], [])
  })
})
