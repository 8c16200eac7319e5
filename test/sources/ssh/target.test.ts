import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {formatEndpoint, parseTargetSpec} from '../../../src/sources/ssh/target.js'
import {UsageError} from '../../../src/util/errors.js'

describe('SSH target specs: [USER@]HOST[:PORT]', () => {
  const valid: Array<[string, object]> = [
    ['node-1', {host: 'node-1'}],
    ['root@10.0.0.5', {host: '10.0.0.5', user: 'root'}],
    ['admin@node-2.example.com:2222', {host: 'node-2.example.com', user: 'admin', port: 2222}],
    ['ip-10-0-0-5.ec2.internal:22', {host: 'ip-10-0-0-5.ec2.internal', port: 22}],
    ['fd00::1', {host: 'fd00::1'}],
    ['core@[fd00::1]:2222', {host: 'fd00::1', user: 'core', port: 2222}],
    ['_svc.node_1', {host: '_svc.node_1'}],
  ]
  for (const [spec, expected] of valid) {
    it(`reads ${spec}`, () => assert.deepEqual(parseTargetSpec(spec, '--ssh'), expected))
  }

  // Nothing here reaches a shell, but a name that could be read as an option or a command is refused outright.
  const invalid: Array<[string, RegExp]> = [
    ['-oProxyCommand=touch /tmp/x', /is not a host name/],
    ['node;reboot', /is not a host name/],
    ['$(reboot)', /is not a host name/],
    ['node 1', /is not a host name/],
    ['root;id@node', /is not a valid user name/],
    ['-l@node', /is not a valid user name/],
    ['@node', /is not a valid user name/],
    ['node:0', /is not a port number/],
    ['node:65536', /is not a port number/],
    ['node:ssh', /is not a port number/],
    ['[node-1]:22', /not an IPv6 address/],
    ['a@b@c', /is not a host name/],
    ['', /is not a host name/],
  ]
  for (const [spec, message] of invalid) {
    it(`refuses ${JSON.stringify(spec)}, naming where it came from`, () => {
      assert.throws(
        () => parseTargetSpec(spec, `--ssh ${spec}`),
        (error: unknown) => error instanceof UsageError && error.exitCode === 2 && message.test(error.message) && error.message.startsWith(`--ssh ${spec}:`),
      )
    })
  }

  it('formats an origin as user@host:port, IPv6 in brackets', () => {
    assert.equal(formatEndpoint({user: 'root', host: '10.0.0.5', port: 22}), 'root@10.0.0.5:22')
    assert.equal(formatEndpoint({user: 'core', host: 'fd00::1', port: 2222}), 'core@[fd00::1]:2222')
  })
})
