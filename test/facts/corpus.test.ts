import assert from 'node:assert/strict'
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {basename, join} from 'node:path'
import {after, describe, it} from 'node:test'

import {evaluateRules} from '../../src/engine/evaluate.js'
import {factsProvidedBy, NODE_FACTS} from '../../src/facts/catalog.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import {bundleFacts} from '../helpers/bundle-facts.js'
import {kernelRows, kernelVerdicts, osReleaseFiles, writeCorpusBundles} from '../helpers/corpus.js'

const kernelRule = (await loadRuleCatalog([])).filter((rule) => rule.id === 'node/kernel-version')
/** Facts only a flag of verify provides (--baseline, --watch), never a bundle. */
const FLAG_PROVIDED = new Set<string>([...factsProvidedBy('baseline'), ...factsProvidedBy('watch')])

describe('writeCorpusBundles', () => {
  const first = mkdtempSync(join(tmpdir(), 'kpx-corpus-a-'))
  const second = mkdtempSync(join(tmpdir(), 'kpx-corpus-b-'))
  after(() => {
    rmSync(first, {recursive: true, force: true})
    rmSync(second, {recursive: true, force: true})
  })

  const bundles = writeCorpusBundles(first)
  const derived = bundles.map((entry) => ({entry, facts: bundleFacts(readFileSync(entry.file, 'utf8'), basename(entry.file, '.facts'))}))

  it('writes at least 300 bundles with unique node names, one file each', () => {
    assert.ok(bundles.length >= 300, `${bundles.length} bundles`)
    assert.equal(new Set(bundles.map((entry) => entry.name)).size, bundles.length)
    assert.deepEqual(readdirSync(first).toSorted(), bundles.map((entry) => `${entry.name}.facts`).toSorted())
  })

  it('consistency: writing the corpus twice gives the same files', () => {
    const again = writeCorpusBundles(second)
    assert.deepEqual(
      again.map((entry) => entry.name),
      bundles.map((entry) => entry.name),
    )
    for (const entry of bundles) assert.equal(readFileSync(join(second, `${entry.name}.facts`), 'utf8'), readFileSync(entry.file, 'utf8'), entry.name)
  })

  it('node/kernel-version is on every bundle what kernel-verdicts.tsv says of its kernel, and does not apply where kube-proxy already runs nftables', () => {
    const verdicts = kernelVerdicts()
    const seen = new Set<string>()
    for (const {entry, facts} of derived) {
      const [finding] = evaluateRules(kernelRule, [{kind: 'Node', name: entry.name, facts}]).findings
      const expected = facts.get('kubeProxy.runningMode') === 'nftables' ? 'skip' : verdicts.get(entry.kernelRelease)
      assert.equal(finding.status, expected, `${entry.name}: ${entry.kernelRelease}`)
      seen.add(finding.status)
    }

    assert.deepEqual([...seen].toSorted(), ['fail', 'pass', 'skip'])
  })

  it('uses every os-release fixture at least three times, and only real kernels', () => {
    const kernels = new Set(kernelRows().map((row) => row.release))
    for (const entry of bundles) assert.ok(kernels.has(entry.kernelRelease), `${entry.kernelRelease} is in kernels.tsv`)
    const osReleases = osReleaseFiles()
    const perFile = new Map<string, number>()
    for (const {facts} of derived) {
      const key = `${facts.get('os.id')} ${facts.get('os.prettyName')}`
      perFile.set(key, (perFile.get(key) ?? 0) + 1)
    }

    assert.ok(perFile.size >= 100, `${perFile.size} distinct os-release identities`)
    for (const [key, count] of perFile) assert.ok(count >= 3, `${key}: ${count}`)
    assert.equal(osReleases.length, 116)
  })

  it('pairs Enterprise Linux releases with kernels of the same major version', () => {
    for (const entry of bundles) {
      if (!['rhel', 'rocky', 'almalinux', 'ol', 'miraclelinux', 'centos'].includes(entry.osId)) continue
      const major = /^(\d+)/.exec(entry.versionId)?.[1]
      const el = /\.el(\d+)/.exec(entry.kernelRelease)?.[1]
      if (major && ['7', '8', '9'].includes(major)) assert.equal(el, major, `${entry.name}: ${entry.osId} ${entry.versionId} with ${entry.kernelRelease}`)
    }
  })

  it('pairs Ubuntu and Debian releases with their own kernels', () => {
    const labels = new Map(kernelRows().map((row) => [row.release, row.distro]))
    for (const entry of bundles) {
      if (entry.osId === 'ubuntu') assert.match(labels.get(entry.kernelRelease)!, new RegExp(`Ubuntu ${entry.versionId.replace('.', String.raw`\.`)}`), entry.name)
      // The corpus has kernels of Debian 10 to 13; Debian 8 and 9 borrow Debian 10's.
      if (entry.osId === 'debian' && ['10', '11', '12', '13'].includes(entry.versionId)) {
        const label = labels.get(entry.kernelRelease)!
        assert.ok(label.includes(`Debian`) && (label.includes(` ${entry.versionId}`) || label.includes('trixie')), `${entry.name}: Debian ${entry.versionId} with ${label}`)
      }
    }
  })

  it('every bundle yields every fact, its name, kernel and os', () => {
    for (const {entry, facts} of derived) {
      const answered = new Set([...facts.knownPaths(), ...facts.unknownEntries().map(([path]) => path)])
      for (const spec of NODE_FACTS) assert.ok(answered.has(spec.path), `${entry.name}: ${spec.path}`)
      assert.equal(facts.get('node.name'), entry.name)
      assert.equal(facts.get('kernel.release'), entry.kernelRelease)
      assert.match(String(facts.get('kernel.version')), /^\d+\.\d+\.\d+$/, entry.name)
      assert.equal(facts.get('os.id'), entry.osId)
      if (entry.versionId) assert.equal(facts.get('os.versionId'), entry.versionId)
      for (const [path, fact] of facts.unknownEntries()) {
        assert.notEqual(fact.reason, 'unparseable', `${entry.name}: ${path} ${fact.detail}`)
        // A bundle from the host lacks kube-proxy's image: only the cluster shows it.
        // A bundle without a hostname section names no host: it is named after its file. verify --baseline's facts come from a report,
        // verify --watch's from two reads.
        if (path !== 'kubeProxy.image' && path !== 'node.hostname' && !FLAG_PROVIDED.has(path)) assert.notEqual(fact.reason, 'not-collected', `${entry.name}: ${path} ${fact.detail}`)
      }
    }
  })

  it('covers the interesting cases', () => {
    const count = (predicate: (facts: (typeof derived)[number]['facts']) => boolean) => derived.filter(({facts}) => predicate(facts)).length
    const modes = ['iptables', 'ipvs', 'nftables'].map((mode) => count((facts) => facts.get('kubeProxy.mode') === mode))
    for (const found of modes) assert.ok(found >= 30, `modes ${modes}`)
    assert.ok(count((facts) => facts.get('kubeProxy.runtime') === 'none') >= 10)
    assert.ok(count((facts) => facts.get('collector.root') === false) >= 50)
    assert.ok(count((facts) => Array.isArray(facts.get('netfilter.missingFeatures')) && (facts.get('netfilter.missingFeatures') as string[]).length > 0) >= 20)
    assert.ok(count((facts) => facts.get('netfilter.checkPassed') === false) >= 5)
    assert.ok(count((facts) => (facts.get('addresses.ipv4Global') as string[] | undefined)?.length === 2) >= 20)
    assert.ok(count((facts) => facts.whyUnknown('netfilter.missingFeatures')?.reason === 'not-present') >= 10)
    assert.ok(count((facts) => facts.get('nft.installed') === false) >= 50)
  })
})
