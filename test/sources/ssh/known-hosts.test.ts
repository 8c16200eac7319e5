import assert from 'node:assert/strict'
import {createHmac, randomBytes} from 'node:crypto'
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import {describeKey, fingerprint, keyTypeOf, KnownHosts} from '../../../src/sources/ssh/known-hosts.js'
import {generateKeyPair} from '../../helpers/fake-sshd.js'

/** A fresh public key blob, as a server offers it. */
function hostKey(type: 'ecdsa' | 'ed25519' = 'ed25519'): {blob: Buffer; line: string} {
  const [algorithm, base64] = generateKeyPair(type).public.split(' ')
  return {blob: Buffer.from(base64, 'base64'), line: `${algorithm} ${base64}`}
}

/** A key blob by hand: a length-prefixed algorithm name (the length as given), then `rest` bytes of key. */
function blobOf(type: string, rest = 8, length = type.length): Buffer {
  const prefix = Buffer.alloc(4)
  prefix.writeUInt32BE(length)
  return Buffer.concat([prefix, Buffer.from(type, 'latin1'), Buffer.alloc(rest, 7)])
}

function hashedName(name: string): string {
  const salt = randomBytes(20)
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`
}

describe('known_hosts', () => {
  let dir: string
  const node = hostKey()
  const other = hostKey()
  const ecdsa = hostKey('ecdsa')
  const load = (text: string) => {
    const file = join(dir, `known_hosts-${Math.random().toString(36).slice(2)}`)
    writeFileSync(file, text)
    return {file, knownHosts: KnownHosts.load([file])}
  }

  before(() => (dir = mkdtempSync(join(tmpdir(), 'kpx-known-hosts-'))))
  after(() => rmSync(dir, {recursive: true, force: true}))

  it('prints fingerprints as OpenSSH does', () => {
    assert.match(fingerprint(node.blob), /^SHA256:[A-Za-z0-9+/]{43}$/)
    assert.match(describeKey(node.blob), /^ED25519 SHA256:/)
    assert.match(describeKey(ecdsa.blob), /^ECDSA SHA256:/)
  })

  it('finds plain names, comma lists, wildcards and [host]:port entries', () => {
    const {knownHosts} = load(`# a comment
node-1.example.com,10.0.0.11 ${node.line}
[10.0.0.12]:2222 ${node.line} comment here
*.lab.example.com,!secret.lab.example.com ${node.line}
`)
    assert.deepEqual(knownHosts.check('10.0.0.11', 22, node.blob), {status: 'known'})
    assert.deepEqual(knownHosts.check('NODE-1.example.com', 22, node.blob), {status: 'known'})
    assert.deepEqual(knownHosts.check('10.0.0.12', 2222, node.blob), {status: 'known'})
    // The same host on another port is another entry.
    assert.deepEqual(knownHosts.check('10.0.0.12', 22, node.blob), {status: 'unknown'})
    assert.deepEqual(knownHosts.check('10.0.0.11', 2222, node.blob), {status: 'unknown'})
    assert.deepEqual(knownHosts.check('a.lab.example.com', 22, node.blob), {status: 'known'})
    assert.deepEqual(knownHosts.check('secret.lab.example.com', 22, node.blob), {status: 'unknown'})
  })

  it('finds hashed entries (HashKnownHosts yes), with and without a port', () => {
    const {knownHosts} = load(`${hashedName('node-1.example.com')} ${node.line}\n${hashedName('[10.0.0.12]:2222')} ${node.line}\n`)
    assert.deepEqual(knownHosts.check('node-1.example.com', 22, node.blob), {status: 'known'})
    assert.deepEqual(knownHosts.check('10.0.0.12', 2222, node.blob), {status: 'known'})
    assert.deepEqual(knownHosts.check('node-2.example.com', 22, node.blob), {status: 'unknown'})
  })

  it('reports a changed key with the expected fingerprint and where it is written', () => {
    const {file, knownHosts} = load(`node-1 ${node.line}\n`)
    const check = knownHosts.check('node-1', 22, other.blob)
    assert.deepEqual(check, {status: 'changed', expected: [`${describeKey(node.blob)} (${file}:1)`]})
  })

  it('treats @revoked keys as refused for every host, and says @cert-authority is not supported', () => {
    const {file, knownHosts} = load(`@revoked * ${other.line}\nnode-1 ${node.line}\n@cert-authority *.example.com ${ecdsa.line}\n`)
    assert.deepEqual(knownHosts.check('node-1', 22, other.blob), {status: 'revoked', where: `${file}:1`})
    assert.deepEqual(knownHosts.check('node-2.example.com', 22, node.blob), {status: 'unknown', certAuthority: `${file}:3`})
  })

  it('skips lines that are not entries', () => {
    const {knownHosts} = load(`garbage\nnode-1 ssh-ed25519 bm90IGEga2V5\n@unknown-marker node-1 ${node.line}\nnode-1 ${node.line}\n`)
    assert.deepEqual(knownHosts.check('node-1', 22, node.blob), {status: 'known'})
  })

  it('offers the host key algorithms known for a host first', () => {
    const {knownHosts} = load(`node-1 ${ecdsa.line}\n`)
    assert.equal(knownHosts.algorithmsFor('node-1', 22)[0], 'ecdsa-sha2-nistp256')
    assert.equal(knownHosts.algorithmsFor('node-2', 22)[0], 'ssh-ed25519')
  })

  it('records an accepted key at the end of the first file, as [host]:port when the port is not 22', () => {
    const {file, knownHosts} = load(`node-1 ${node.line}\n`)
    knownHosts.add('10.0.0.12', 2222, other.blob)
    assert.deepEqual(knownHosts.check('10.0.0.12', 2222, other.blob), {status: 'known'})
    assert.equal(readFileSync(file, 'utf8'), `node-1 ${node.line}\n[10.0.0.12]:2222 ${other.line}\n`)
    assert.deepEqual(KnownHosts.load([file]).check('10.0.0.12', 2222, other.blob), {status: 'known'})
  })

  it('reads the files that exist and says why it cannot read one that does', () => {
    const {file} = load(`node-1 ${node.line}\n`)
    const knownHosts = KnownHosts.load([join(dir, 'missing'), file])
    assert.deepEqual(knownHosts.check('node-1', 22, node.blob), {status: 'known'})
    assert.equal(knownHosts.file, join(dir, 'missing'))
    assert.throws(() => KnownHosts.load([dir]), /known_hosts file .*: not a regular file \(a folder\)/)
  })

  it('reads fields split by any run of blanks, after leading blanks', () => {
    const {knownHosts} = load(`  node-1 \t ${node.line.replace(' ', ' '.repeat(3))}\n`)
    assert.deepEqual(knownHosts.check('node-1', 22, node.blob), {status: 'known'})
  })

  it('skips commented-out entries, unknown markers, missing keys and keys of another type than the line says', () => {
    const {knownHosts} = load(
      [
        `#node-0,node-1 ${node.line}`,
        `@future,node-2 ${node.line}`,
        'node-3 ssh-ed25519',
        `node-4 ssh-rsa ${node.blob.toString('base64')}`,
        'node-5 ssh-ed25519 AAA=',
        `${hashedName('node-6')}|more ${node.line}`,
        `x${hashedName('node-7')} ${node.line}`,
      ].join('\n'),
    )
    for (const name of ['node-1', 'node-2', 'node-3', 'node-4', 'node-5', 'node-6', 'node-7']) {
      assert.deepEqual(knownHosts.check(name, 22, node.blob), {status: 'unknown'}, name)
    }
  })

  it('names [host]:port entries in lower case, as it names plain ones', () => {
    const {file, knownHosts} = load(`[node-1]:2222 ${node.line}\n`)
    assert.deepEqual(knownHosts.check('NODE-1', 2222, node.blob), {status: 'known'})
    knownHosts.add('Node-2', 2222, other.blob)
    assert.equal(readFileSync(file, 'utf8'), `[node-1]:2222 ${node.line}\n[node-2]:2222 ${other.line}\n`)
  })

  it('offers every algorithm once: those of plain entries for the host first, rsa-sha2 for an ssh-rsa key', () => {
    const rsaLine = `ssh-rsa ${blobOf('ssh-rsa').toString('base64')}`
    const {knownHosts} = load(`node-1 ${ecdsa.line}\nnode-2 ${rsaLine}\n@cert-authority node-3 ${ecdsa.line}\n@revoked node-3 ${rsaLine}\n`)
    assert.deepEqual(knownHosts.algorithmsFor('node-1', 22), ['ecdsa-sha2-nistp256', 'ssh-ed25519', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256'])
    assert.deepEqual(knownHosts.algorithmsFor('node-2', 22), ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521'])
    assert.deepEqual(knownHosts.algorithmsFor('node-3', 22), ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256'])
  })

  it('creates a new known_hosts file readable by its owner only, in a directory of its own', () => {
    const file = join(dir, 'new', 'known_hosts')
    KnownHosts.load([file]).add('node-1', 22, node.blob)
    assert.equal(readFileSync(file, 'utf8'), `node-1 ${node.line}\n`)
    assert.equal(statSync(file).mode & 0o777, 0o600)
    assert.equal(statSync(join(dir, 'new')).mode & 0o777, 0o700)
  })

  it('reads the algorithm name of a key blob only when the blob holds all of it', () => {
    assert.equal(keyTypeOf(blobOf('ssh-ed25519')), 'ssh-ed25519')
    assert.equal(keyTypeOf(blobOf('ssh-ed25519', 0)), 'ssh-ed25519')
    assert.equal(keyTypeOf(blobOf('ssh-ed25519', 0, 12)), '')
    assert.equal(keyTypeOf(blobOf('ssh-ed25519', 0, 16)), '')
    assert.equal(keyTypeOf(Buffer.from([0, 0, 0])), '')
    assert.match(describeKey(blobOf('ssh-rsa')), /^RSA SHA256:[A-Za-z0-9+/]{43}$/)
  })
})
