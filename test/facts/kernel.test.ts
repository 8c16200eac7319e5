import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import type {Status} from '../../src/contract/finding.js'
import {evaluateRules} from '../../src/engine/evaluate.js'
import {FactSet} from '../../src/facts/fact-set.js'
import {parseKernelRelease, parseKernelVersion} from '../../src/facts/parsers/kernel.js'
import {compareVersions, parseGenericVersion} from '../../src/facts/parsers/versions.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import {bundleFacts} from '../helpers/bundle-facts.js'
import {kernelRows, kernelVerdicts} from '../helpers/corpus.js'

const rows = kernelRows()
const kernelRule = (await loadRuleCatalog([])).filter((rule) => rule.id === 'node/kernel-version')
assert.equal(kernelRule.length, 1, 'the catalogue has node/kernel-version')

/** The status of the shipped rule node/kernel-version on one node's facts. */
function kernelVerdict(facts: FactSet): Status {
  const [finding] = evaluateRules(kernelRule, [{kind: 'Node', name: 'node-1', facts}]).findings
  return finding.status
}

describe('parseKernelVersion on the real kernel releases of kernels.tsv', () => {
  it('has the 182 rows', () => {
    assert.equal(rows.length, 182)
  })

  for (const row of rows) {
    it(`${row.release} (${row.distro})`, () => {
      const version = parseKernelVersion(row.release)
      assert.ok(version, 'yields a version')
      assert.match(version, /^\d+\.\d+\.\d+$/)
      assert.ok(row.release.startsWith(version.replace(/\.0$/, '')), `${version} is the start of ${row.release}`)
    })
  }

  // As kube-proxy's version.ParseGeneric reads them: leading major.minor[.patch], rest ignored.
  const cases: Array<[release: string, version: string]> = [
    ['5.15.0-1034-azure', '5.15.0'],
    ['4.18.0-553.el8_10.x86_64', '4.18.0'],
    ['6.12.55+', '6.12.55'],
    ['5.4.119-19-0009.6', '5.4.119'],
    ['6.1', '6.1.0'],
    ['5.14.0-284.11.1.el9_2.x86_64', '5.14.0'],
    ['5.15.138.1-4.cm2', '5.15.138'],
    ['6.6.119.3-1.azl3', '6.6.119'],
    ['5.10.0-182.0.0.95.r3008_246.hce2.x86_64', '5.10.0'],
    ['3.10.0-862.14.1.5.h591.eulerosv2r7.x86_64', '3.10.0'],
    ['6.14.10-orbstack-00291-g1b252bd3edea', '6.14.10'],
    ['3.14.23-WR7.0.0.2_standard', '3.14.23'],
    ['4.19.57-v7+', '4.19.57'],
    ['5.10.110', '5.10.110'],
    ['6.12.6-talos', '6.12.6'],
    ['5.4.32-19-0001', '5.4.32'],
    ['v6.1.0', '6.1.0'],
  ]
  for (const [release, version] of cases) {
    it(`${release} → ${version}`, () => {
      assert.equal(parseKernelVersion(release), version)
    })
  }

  for (const release of ['', 'linux', '6', '05.4.0', 'unknown-5.4']) {
    it(`${JSON.stringify(release)} is not a kernel version`, () => {
      assert.equal(parseKernelVersion(release), undefined)
    })
  }

  const bundleWith = (release: string) => bundleFacts(`# kpx-check node facts v1\n### kernel-release\n${release}\n### end\n`, 'node-1')

  it('kernel-verdicts.tsv has one verdict for every row', () => {
    assert.deepEqual([...kernelVerdicts().keys()].toSorted(), rows.map((row) => row.release).toSorted())
  })

  for (const [release, status] of kernelVerdicts()) {
    it(`node/kernel-version is ${status} on ${release}, as kernel-verdicts.tsv says`, () => {
      assert.equal(kernelVerdict(bundleWith(release)), status)
    })
  }

  // domain.md §6: which kernels kube-proxy's 5.13 check accepts, named by the distro that ships them.
  const verdicts: Array<[release: string, status: Status, why: string]> = [
    ['5.14.0-284.11.1.el9_2.x86_64', 'pass', 'RHEL 9'],
    ['5.14.0-611.11.1.el9_7.x86_64', 'pass', 'AlmaLinux 9.7'],
    ['4.18.0-553.el8_10.x86_64', 'fail', 'RHEL 8'],
    ['6.1.0-18-cloud-amd64', 'pass', 'Debian 12'],
    ['5.10.0-28-cloud-amd64', 'fail', 'Debian 11'],
    ['5.15.0-1050-azure', 'pass', 'Ubuntu 22.04'],
    ['5.4.0-204-generic', 'fail', 'Ubuntu 20.04 GA'],
    ['5.10.230-223.885.amzn2.x86_64', 'fail', 'Amazon Linux 2'],
    ['6.1.158-180.294.amzn2023.x86_64', 'pass', 'Amazon Linux 2023'],
    ['3.10.0-1160.59.1.el7.x86_64', 'fail', 'RHEL 7'],
    ['5.10.0-182.0.0.95.r3008_246.hce2.x86_64', 'fail', 'Huawei Cloud EulerOS 2.0'],
    ['5.15.0-103.114.4.el8uek.x86_64', 'pass', 'Oracle Linux 8 UEK7'],
    ['6.12.55+', 'pass', 'COS on GKE 1.34'],
  ]
  for (const [release, status, why] of verdicts) {
    it(`${why}: node/kernel-version is ${status} on ${release}`, () => {
      assert.ok(rows.some((row) => row.release === release), 'is a real kernel from kernels.tsv')
      assert.equal(kernelVerdict(bundleWith(release)), status)
    })
  }
})

describe('node/kernel-version at the 5.13 boundary', () => {
  // Hand-made facts either side of kube-proxy's floor; 5.9 and 10.1 catch a comparison of text, not numbers.
  const cases: Array<[version: string, release: string, status: Status]> = [
    ['5.12.19', '5.12.19-051219-generic', 'fail'],
    ['5.13.0', '5.13.0-19-generic', 'pass'],
    ['5.9.16', '5.9.16-1-MANJARO', 'fail'],
    ['10.1.0', '10.1.0-future', 'pass'],
  ]
  for (const [version, release, status] of cases) {
    it(`is ${status} on kernel ${version}`, () => {
      assert.equal(kernelVerdict(new FactSet().set('kernel.version', version).set('kernel.release', release)), status)
    })
  }
})

describe('parseKernelRelease', () => {
  it('takes the first non-empty line, trimmed', () => {
    assert.equal(parseKernelRelease('\n  6.1.0-18-cloud-amd64  \n'), '6.1.0-18-cloud-amd64')
  })

  it('is undefined for empty or multi-word text', () => {
    assert.equal(parseKernelRelease(''), undefined)
    assert.equal(parseKernelRelease('uname: command not found'), undefined)
  })
})

describe('compareVersions', () => {
  const cases: Array<[a: string, b: string, result: -1 | 0 | 1]> = [
    ['5.14.0', '5.13', 1],
    ['5.13', '5.13.0', 0],
    ['5.12.19', '5.13', -1],
    ['6.1', '5.13', 1],
    ['1.0.6', '1.1.3', -1],
    ['1.1.3', '1.1.3', 0],
    ['1.1.6', '1.1.3', 1],
    ['1.10', '1.9', 1],
    ['1.33.11', 'v1.33.6', 1],
    ['6.1.0-18-cloud-amd64', '6.1', 0],
    ['1.0.6.1', '1.0.6', 1],
    ['4', '4.0.0', 0],
  ]
  for (const [a, b, result] of cases) {
    it(`${a} vs ${b} → ${result}`, () => {
      assert.equal(compareVersions(a, b), result)
      assert.equal(compareVersions(b, a), -result || 0)
    })
  }

  it('throws on text that is not a version', () => {
    assert.throws(() => compareVersions('latest', '1.0'), /not a dotted version: "latest"/)
    assert.throws(() => compareVersions('1.0', ''), /not a dotted version/)
  })

  it('parseGenericVersion needs two components and no leading zero, as ParseGeneric', () => {
    assert.deepEqual(parseGenericVersion('1.33.6-eks-1'), [1, 33, 6])
    assert.equal(parseGenericVersion('7'), undefined)
    assert.equal(parseGenericVersion('01.2'), undefined)
    assert.deepEqual(parseGenericVersion('0.9'), [0, 9])
  })
})
