import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {compareVersions, parseGenericVersion, parseIptablesVersion, parseNftVersion} from '../../src/facts/parsers/versions.js'
import {toolRows} from '../helpers/corpus.js'

/** Every banner of tool-versions.tsv and what it must parse to; undefined = not that tool's banner. */
const EXPECTED: Record<string, {nft?: string; iptables?: {version: string; backend: string}}> = {
  'nftables v0.9.0 (Fearless Fosdick)': {nft: '0.9.0'},
  'nftables v1.0.5 (Lester Gooch #4)': {nft: '1.0.5'},
  'nftables v0.9.3 (Topsy)': {nft: '0.9.3'},
  'nftables v0.9.8 (E.D.S.)': {nft: '0.9.8'},
  'nftables v1.0.2 (Lester Gooch)': {nft: '1.0.2'},
  'nftables v1.0.6 (Lester Gooch #5)': {nft: '1.0.6'},
  'nftables v1.0.9 (Old Doc Yak #3)': {nft: '1.0.9'},
  'nftables v1.0.7 (Old Doc Yak)': {nft: '1.0.7'},
  'nftables v1.0.1 (Fearless Fosdick #3)': {nft: '1.0.1'},
  'nftables v1.0.4 (Lester Gooch #3)': {nft: '1.0.4'},
  'nftables v1.1.6 (Commodore Bullmoose #7)': {nft: '1.1.6'},
  'iptables v1.8.4 (legacy)': {iptables: {version: '1.8.4', backend: 'legacy'}},
  'iptables v1.8.4 (nf_tables)': {iptables: {version: '1.8.4', backend: 'nf_tables'}},
  // Before 1.8 there was only the legacy backend, and the banner names none.
  'iptables v1.4.21': {iptables: {version: '1.4.21', backend: 'legacy'}},
  'iptables v1.6.2': {iptables: {version: '1.6.2', backend: 'legacy'}},
  'iptables v1.8.2 (nf_tables)': {iptables: {version: '1.8.2', backend: 'nf_tables'}},
  'iptables v1.8.7 (nf_tables)': {iptables: {version: '1.8.7', backend: 'nf_tables'}},
  'iptables v1.8.5 (nf_tables)': {iptables: {version: '1.8.5', backend: 'nf_tables'}},
  'iptables v1.8.8 (legacy)': {iptables: {version: '1.8.8', backend: 'legacy'}},
  'iptables v1.8.8 (nf_tables)': {iptables: {version: '1.8.8', backend: 'nf_tables'}},
  'iptables v1.8.0 (nf_tables)': {iptables: {version: '1.8.0', backend: 'nf_tables'}},
  'iptables v1.8.0 (legacy)': {iptables: {version: '1.8.0', backend: 'legacy'}},
  'iptables v1.8.6 (legacy)': {iptables: {version: '1.8.6', backend: 'legacy'}},
  'iptables-restore v1.8.7 (legacy)': {iptables: {version: '1.8.7', backend: 'legacy'}},
  // ebtables is another tool: neither parser takes it.
  'ebtables 1.8.7 (nf_tables)': {},
}

describe('version banners of tool-versions.tsv', () => {
  const rows = toolRows()

  it('every row has an expectation here, and every expectation a row', () => {
    assert.deepEqual(rows.map((row) => row.output).toSorted(), Object.keys(EXPECTED).toSorted())
  })

  for (const row of rows) {
    const expected = EXPECTED[row.output]
    it(`${row.tool}: ${row.output}`, () => {
      assert.equal(parseNftVersion(row.output), expected.nft)
      assert.deepEqual(parseIptablesVersion(row.output), expected.iptables)
    })
  }
})

describe('banner parsing edge cases', () => {
  it('reads nft 1.0.6.1 (the version the kube-proxy image moved to)', () => {
    assert.equal(parseNftVersion('nftables v1.0.6.1 (Lester Gooch #5.1)\n'), '1.0.6.1')
  })

  it('reads the banner on a later line and with surrounding whitespace', () => {
    assert.equal(parseNftVersion('\n  nftables v1.0.9 (Old Doc Yak #3)  \n'), '1.0.9')
    assert.deepEqual(parseIptablesVersion('iptables v1.8.10 (nf_tables)\n'), {version: '1.8.10', backend: 'nf_tables'})
  })

  it('reads ip6tables and iptables-legacy banners', () => {
    assert.deepEqual(parseIptablesVersion('ip6tables v1.8.9 (nf_tables)'), {version: '1.8.9', backend: 'nf_tables'})
    assert.deepEqual(parseIptablesVersion('iptables-legacy v1.8.9 (legacy)'), {version: '1.8.9', backend: 'legacy'})
  })

  for (const text of ['', 'nft: command not found', 'nftables 1.0.6', 'iptables: No such file or directory', 'Error: unknown option']) {
    it(`${JSON.stringify(text)} is no banner`, () => {
      assert.equal(parseNftVersion(text), undefined)
      assert.equal(parseIptablesVersion(text), undefined)
    })
  }
})

describe('dotted versions: what mutation testing showed untested', () => {
  it('reads multi-digit components, and only banners at the start of a line', () => {
    assert.equal(parseNftVersion('nftables v1.0.10 (Lester Gooch #10)'), '1.0.10')
    assert.equal(parseNftVersion('nftables v10.1'), '10.1')
    assert.equal(parseNftVersion('warning: nftables v1.0.6'), undefined)
    assert.deepEqual(parseIptablesVersion('iptables v10.8.10 (legacy)'), {version: '10.8.10', backend: 'legacy'})
    assert.equal(parseIptablesVersion('xiptables v1.8.7 (legacy)'), undefined)
    assert.equal(parseIptablesVersion('error: iptables v1.8.7 (legacy)'), undefined)
  })

  it('takes a first component of several digits, not one with a leading zero', () => {
    assert.deepEqual(parseGenericVersion('10.2'), [10, 2])
    assert.equal(parseGenericVersion('05.2'), undefined)
  })

  it('refuses components past 15 digits, which a number would round, and quotes at most 60 characters of a bad side', () => {
    assert.deepEqual(parseGenericVersion(`1.${'9'.repeat(15)}`), [1, 999_999_999_999_999])
    assert.equal(parseGenericVersion(`1.${'9'.repeat(16)}`), undefined)
    assert.throws(() => compareVersions(`x${'y'.repeat(100)}`, '1'), {message: `not a dotted version: "x${'y'.repeat(59)}"`})
    assert.throws(() => compareVersions('1', `x${'y'.repeat(100)}`), {message: `not a dotted version: "x${'y'.repeat(59)}"`})
  })
})
