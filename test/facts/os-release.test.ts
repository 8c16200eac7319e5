import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {parseEnvAssignments, parseOsRelease} from '../../src/facts/parsers/os-release.js'
import {osReleaseFiles} from '../helpers/corpus.js'

const files = osReleaseFiles()

describe('parseOsRelease on the 116 real os-release files', () => {
  it('has all 116 fixtures', () => {
    assert.equal(files.length, 116)
  })

  for (const {stem, text} of files) {
    it(`${stem}: has an ID and the VERSION_ID the file holds`, () => {
      const release = parseOsRelease(text)
      assert.ok(release, 'parses')
      assert.match(release.id, /^[A-Za-z0-9._-]+$/)
      const raw = /^VERSION_ID=["']?([^"'\n]*)["']?\s*$/m.exec(text)?.[1]
      if (raw) assert.equal(release.versionId, raw)
      else assert.equal(release.versionId, undefined)
      assert.ok(release.prettyName.length > 0)
      for (const word of release.idLike) assert.match(word, /^\S+$/)
    })
  }

  const cases: Array<[stem: string, id: string, versionId: string | undefined, idLike: string[], prettyName: string]> = [
    ['ubuntu-22.04', 'ubuntu', '22.04', ['debian'], 'Ubuntu 22.04.5 LTS'],
    ['debian-13', 'debian', '13', [], 'Debian GNU/Linux 13 (trixie)'],
    ['rhel-9.4', 'rhel', '9.4', ['fedora'], 'Red Hat Enterprise Linux 9.4 (Plow)'],
    ['rocky-9.5', 'rocky', '9.5', ['rhel', 'centos', 'fedora'], 'Rocky Linux 9.5 (Blue Onyx)'],
    ['centos-7', 'centos', '7', ['rhel', 'fedora'], 'CentOS Linux 7 (Core)'],
    ['amazonlinux-2023', 'amzn', '2023', ['fedora'], 'Amazon Linux 2023'],
    ['opensuse-leap-15.6', 'opensuse-leap', '15.6', ['suse', 'opensuse'], 'openSUSE Leap 15.6'],
    ['sles-12-sp1', 'sles', '12.1', [], 'SUSE Linux Enterprise Server 12 SP1'],
    // Bottlerocket's /etc/bottlerocket-release: unquoted KEY=value.
    ['bottlerocket-1.33.0-aws-ecs-2-fips.bottlerocket-release', 'bottlerocket', '1.33.0', [], 'Bottlerocket OS 1.33.0 (aws-ecs-2-fips)'],
    ['bottlerocket-1.34.0-aws-ecs-2', 'bottlerocket', '1.34.0', [], 'Bottlerocket OS 1.34.0 (aws-ecs-2)'],
    // No quotes at all.
    ['cos-97', 'cos', '97', [], 'Container-Optimized OS from Google'],
    // Empty ID_LIKE=.
    ['rancheros-v1.4.2', 'rancheros', 'v1.4.2', [], 'RancherOS v1.4.2'],
    // No VERSION_ID.
    ['gardenlinux-1877.9', 'gardenlinux', undefined, ['debian'], 'Garden Linux 1877.9'],
    ['gardenlinux-934.0', 'debian', undefined, [], 'Garden Linux 934.0'],
    // ID not lower case, trailing blank lines.
    ['openeuler-20.03', 'openEuler', '20.03', [], 'openEuler 20.03 (LTS)'],
    ['kylin-v10', 'kylin', 'V10', [], 'Kylin Linux Advanced Server V10 (Sword)'],
    ['k3os-v0.21.5-k3s2r1', 'k3os', 'v0.21.5-k3s2r1', ['alpine'], 'k3OS v0.21.5-k3s2r1'],
    // Trailing space after a value.
    ['photon-2.0', 'photon', '2.0', [], 'VMware Photon OS/Linux'],
    ['azurelinux-3.0', 'azurelinux', '3.0', [], 'Microsoft Azure Linux 3.0'],
  ]
  for (const [stem, id, versionId, idLike, prettyName] of cases) {
    it(`${stem}: ${id} ${versionId ?? '(no VERSION_ID)'}`, () => {
      const file = files.find((candidate) => candidate.stem === stem)
      assert.ok(file, `fixture ${stem} exists`)
      const release = parseOsRelease(file.text)!
      assert.deepEqual(
        {id: release.id, versionId: release.versionId, idLike: release.idLike, prettyName: release.prettyName},
        {id, versionId, idLike, prettyName},
      )
    })
  }

  it('reads single-quoted values (Fedora CoreOS OSTREE_VERSION)', () => {
    const release = parseOsRelease(files.find((file) => file.stem === 'fedora-coreos-31')!.text)!
    assert.equal(release.fields.get('OSTREE_VERSION'), '31.20200310.3.0')
  })

  it('takes the last of a repeated key (gardenlinux-934.0 VERSION_CODENAME)', () => {
    const release = parseOsRelease(files.find((file) => file.stem === 'gardenlinux-934.0')!.text)!
    assert.equal(release.fields.get('VERSION_CODENAME'), '934.0')
  })
})

describe('os-release quoting', () => {
  const cases: Array<[line: string, value: string]> = [
    ['NAME="Fedora Linux"', 'Fedora Linux'],
    [String.raw`NAME='single \ quoted $x'`, String.raw`single \ quoted $x`],
    [String.raw`NAME="a \"quoted\" word"`, 'a "quoted" word'],
    ['NAME="dollar \\$HOME and backslash \\\\ and tick \\`"', 'dollar $HOME and backslash \\ and tick `'],
    [String.raw`NAME="keeps \n as typed"`, String.raw`keeps \n as typed`],
    [String.raw`NAME=unquoted\ with\ escapes`, 'unquoted with escapes'],
    ['NAME="joined"\'parts\'more', 'joinedpartsmore'],
    ['NAME=', ''],
    ['NAME=value # trailing comment', 'value'],
    ['export NAME=exported', 'exported'],
  ]
  for (const [line, value] of cases) {
    it(`${line} → ${JSON.stringify(value)}`, () => {
      assert.equal(parseEnvAssignments(line).get('NAME'), value)
    })
  }

  it('skips comments, blank lines, CRLF and lines that are not assignments', () => {
    const fields = parseEnvAssignments('# comment\r\n\r\nID=debian\r\nnot an assignment\r\n  # indented comment\r\nNAME="x"\r\nBROKEN="open\r\n')
    assert.deepEqual([...fields], [
      ['ID', 'debian'],
      ['NAME', 'x'],
    ])
  })

  it('defaults ID to linux and PRETTY_NAME to Linux, as os-release(5) says', () => {
    const release = parseOsRelease('VERSION_ID=1\n')!
    assert.equal(release.id, 'linux')
    assert.equal(release.prettyName, 'Linux')
    assert.deepEqual(release.idLike, [])
  })

  it('is undefined for text with no assignment', () => {
    assert.equal(parseOsRelease(''), undefined)
    assert.equal(parseOsRelease('cat: /etc/os-release: No such file or directory'), undefined)
  })
})
