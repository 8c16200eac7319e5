import assert from 'node:assert/strict'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {homedir, tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import {SshConfig} from '../../../src/sources/ssh/ssh-config.js'
import {UsageError} from '../../../src/util/errors.js'

describe('~/.ssh/config', () => {
  let dir: string
  const config = (text: string) => {
    const file = join(dir, `config-${Math.random().toString(36).slice(2)}`)
    writeFileSync(file, text)
    return SshConfig.load(file, true)
  }

  before(() => (dir = mkdtempSync(join(tmpdir(), 'kpx-ssh-config-'))))
  after(() => rmSync(dir, {recursive: true, force: true}))

  it('applies matching Host blocks, the first value winning and IdentityFile adding up', () => {
    const settings = config(`
# fleet defaults come last, as in most configs
Host node-1
  HostName 10.0.0.11
  IdentityFile ~/.ssh/node-1

Host node-* !node-9
  User ops
  Port=2222
  IdentityFile "%d/.ssh/fleet-%h"
  ProxyJump jump@bastion.example.com:22,inner

Host *
  User nobody
  Port 22
`).settingsFor('node-1')
    assert.deepEqual(settings, {
      hostName: '10.0.0.11',
      user: 'ops',
      port: 2222,
      identityFiles: [join(homedir(), '.ssh', 'node-1'), join(homedir(), '.ssh', 'fleet-10.0.0.11')],
      proxyJump: [{host: 'bastion.example.com', user: 'jump', port: 22}, {host: 'inner'}],
    })
  })

  it('skips negated hosts, Match blocks and unsupported keywords', () => {
    const file = config(`
Host node-* !node-9
  User ops
Match user root
  User matched
Host *
  ForwardAgent yes
  HostName %h.internal
  ProxyJump none
`)
    assert.deepEqual(file.settingsFor('node-9'), {hostName: 'node-9.internal', identityFiles: [], proxyJump: []})
    assert.equal(file.settingsFor('NODE-2').user, 'ops')
  })

  it('refuses a bad HostName, User, Port or ProxyJump with the file and line', () => {
    const cases: Array<[string, RegExp]> = [
      ['Host a\n  HostName "evil;id"\n', /:2: "evil;id" is not a host name/],
      ['Host a\n\n  User -oProxyCommand\n', /:3: "-oProxyCommand" is not a valid user name/],
      ['Host a\n  Port 0\n', /:2: "0" is not a port number/],
      ['Host a\n  ProxyJump ok,bad$host\n', /:2: "bad\$host" is not a host name/],
    ]
    for (const [text, message] of cases) {
      assert.throws(
        () => config(text).settingsFor('a'),
        (error: unknown) => error instanceof UsageError && message.test(error.message),
      )
    }
  })

  it('treats a missing default file as empty, and a missing --ssh-config as a usage error', () => {
    assert.deepEqual(SshConfig.load(join(dir, 'absent'), false).settingsFor('x'), {identityFiles: [], proxyJump: []})
    assert.throws(() => SshConfig.load(join(dir, 'absent'), true), /--ssh-config .*absent: no such file/)
  })
})
