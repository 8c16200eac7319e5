import assert from 'node:assert/strict'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import {parseInventory, readInventory} from '../../../src/sources/ssh/inventory.js'
import {UsageError} from '../../../src/util/errors.js'

const ini = (text: string) => parseInventory(text, 'hosts.ini')

describe('inventories', () => {
  it('refuses a range of more hosts than it would ever probe, naming the line, before making any', () => {
    for (const pattern of ['node[00000001:99999999].example', 'a[1:1000]b[1:1000]c[1:1000]']) {
      const started = performance.now()
      assert.throws(
        () => parseInventory(`[nodes]\n${pattern}\n`, 'hosts.ini'),
        (error: unknown) => error instanceof UsageError && error.message.startsWith('hosts.ini:2: ') && /stands for [\d,]+ hosts; at most 10,000 per line/.test(error.message),
      )
      assert.ok(performance.now() - started < 1000, pattern)
    }

    assert.equal(parseInventory('[nodes]\nn[1:100]x[a:j]\n', 'hosts.ini').length, 1000)
    assert.deepEqual(parseInventory('[nodes]\nn[1:2]-[a:b]\n', 'hosts.ini').map((target) => target.host), ['n1-a', 'n1-b', 'n2-a', 'n2-b'])
  })

  it('reads a plain list of [USER@]HOST[:PORT] lines with comments', () => {
    const targets = parseInventory('# workers\nroot@10.0.0.11\n\n10.0.0.12:2222   # the odd one\nadmin@node-3.example.com:22\n', 'nodes.txt')
    assert.deepEqual(targets, [
      {host: '10.0.0.11', user: 'root'},
      {host: '10.0.0.12', port: 2222},
      {host: 'node-3.example.com', user: 'admin', port: 22},
    ])
  })

  it('reads an Ansible INI inventory: groups, children, group and host variables, ranges', () => {
    const targets = ini(`
[all:vars]
ansible_user=ubuntu

[kube_control_plane]
cp-1 ansible_host=10.0.0.1 ansible_user=admin

[kube_node]
worker[01:03].example.com
gpu-1 ansible_host=10.0.1.7 ansible_port=2222 # the GPU box

[gpu:children]
kube_node

[gpu:vars]
ansible_ssh_user=core

[k8s_cluster:children]
kube_control_plane
kube_node

[etcd]
cp-1
`)
    assert.deepEqual(targets, [
      // Host variables beat every group's, and cp-1 in two groups is one host.
      {host: '10.0.0.1', user: 'admin', name: 'cp-1'},
      // kube_node (depth 2: under gpu and k8s_cluster) is deeper than all; gpu's vars beat all's.
      {host: 'worker01.example.com', user: 'core'},
      {host: 'worker02.example.com', user: 'core'},
      {host: 'worker03.example.com', user: 'core'},
      {host: '10.0.1.7', user: 'core', port: 2222, name: 'gpu-1'},
    ])
  })

  it('reads an Ansible YAML inventory', () => {
    const targets = parseInventory(
      `all:
  vars:
    ansible_user: ubuntu
  children:
    control_plane:
      hosts:
        cp-1:
          ansible_host: 10.0.0.1
    workers:
      vars:
        ansible_port: 2222
      hosts:
        worker-[a:c]:
        worker-z.example.com:
          ansible_port: 22
`,
      'inventory.yaml',
    )
    assert.deepEqual(targets, [
      {host: '10.0.0.1', user: 'ubuntu', name: 'cp-1'},
      {host: 'worker-a', user: 'ubuntu', port: 2222},
      {host: 'worker-b', user: 'ubuntu', port: 2222},
      {host: 'worker-c', user: 'ubuntu', port: 2222},
      {host: 'worker-z.example.com', user: 'ubuntu', port: 22},
    ])
  })

  it('takes a file without a YAML extension as YAML when it opens a mapping', () => {
    assert.deepEqual(parseInventory('---\nall:\n  hosts:\n    node-1:\n', 'inventory'), [{host: 'node-1'}])
  })

  const mistakes: Array<[string, string, string, RegExp]> = [
    ['a host name with a shell character', 'hosts.ini', '[nodes]\nnode-1\nnode;2\n', /^hosts\.ini:3: "node;2" is not a host name/],
    ['a bad ansible_host, at the line of the variable', 'hosts.ini', '[nodes]\nnode-1\n[nodes:vars]\nansible_host=$(id)\n', /^hosts\.ini:4: "\$\(id\)" is not a host name/],
    ['a bad ansible_user', 'hosts.ini', 'node-1 ansible_user="root;id"\n', /^hosts\.ini:1: "root;id" is not a valid user name/],
    ['a bad port', 'hosts.ini', 'node-1 ansible_port=99999\n', /^hosts\.ini:1: "99999" is not a port number/],
    ['an unknown section kind', 'hosts.ini', '[nodes:hosts]\nnode-1\n', /^hosts\.ini:1: unknown section "\[nodes:hosts\]"/],
    ['a variable line without =', 'hosts.ini', '[nodes:vars]\nansible_user\n', /^hosts\.ini:2: expected key=value/],
    ['groups that contain each other', 'hosts.ini', '[a:children]\nb\n[b:children]\na\n[a]\nnode-1\n', /groups contain each other/],
    ['a bad host in YAML, at its line', 'inv.yml', 'all:\n  hosts:\n    ok-1:\n    "bad host":\n', /^inv\.yml:4: "bad host" is not a host name/],
    ['an unknown key in a YAML group', 'inv.yml', 'all:\n  host:\n    node-1:\n', /^inv\.yml:2: unexpected "host" in group "all"/],
    ['broken YAML', 'inv.yml', 'all:\n  hosts: [a\n', /^inv\.yml:\d+: not a YAML inventory/],
    ['no hosts at all', 'hosts.ini', '# nothing yet\n[nodes]\n', /the inventory lists no hosts/],
  ]
  for (const [name, file, text, message] of mistakes) {
    it(`refuses ${name} with the file and line (exit 2)`, () => {
      assert.throws(
        () => parseInventory(text, file),
        (error: unknown) => error instanceof UsageError && error.exitCode === 2 && message.test(error.message),
      )
    })
  }

  describe('from a file', () => {
    let dir: string
    before(() => (dir = mkdtempSync(join(tmpdir(), 'kpx-inventory-'))))
    after(() => rmSync(dir, {recursive: true, force: true}))

    it('reads it, and names a missing one', () => {
      writeFileSync(join(dir, 'hosts'), '[nodes]\nnode-1 ansible_host=10.0.0.1\n')
      assert.deepEqual(readInventory(join(dir, 'hosts')), [{host: '10.0.0.1', name: 'node-1'}])
      assert.throws(() => readInventory(join(dir, 'nope')), /--inventory .*nope: no such file/)
    })
  })
})
