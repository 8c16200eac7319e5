import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {UNKNOWN_REASONS} from '../../src/contract/finding.js'
import {evaluateRules} from '../../src/engine/evaluate.js'
import {NODE_FACTS} from '../../src/facts/catalog.js'
import {FactSet} from '../../src/facts/fact-set.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'

const rules = await loadRuleCatalog([])
const node = (facts: FactSet) => [{kind: 'Node', name: 'node-1', facts}]

describe('evaluation', () => {
  for (const reason of UNKNOWN_REASONS) {
    it(`never passes or fails a rule when every fact is unknown (${reason})`, () => {
      const facts = new FactSet().unknownAll(
        NODE_FACTS.map((spec) => spec.path),
        reason,
        'test',
      )
      for (const finding of evaluateRules(rules, node(facts))) {
        assert.ok(finding.status === 'unknown' || finding.status === 'skip', `${finding.rule} was ${finding.status}: ${finding.message}`)
        if (finding.status === 'unknown') assert.ok(finding.reason)
      }
    })
  }

  it('says which fact was missing and why', () => {
    const facts = new FactSet().unknown('kernel.version', 'permission-denied', 'uname blocked')
    const [finding] = evaluateRules(
      rules.filter((rule) => rule.id === 'node/kernel-version'),
      node(facts),
    )
    assert.equal(finding.status, 'unknown')
    assert.equal(finding.reason, 'permission-denied')
    assert.match(finding.message, /permission-denied/)
  })

  it('applies severity overrides and --skip', () => {
    const facts = new FactSet().set('kernel.version', '4.18.0').set('kernel.release', '4.18.0-553.el8_10.x86_64')
    const findings = evaluateRules(rules, node(facts), {
      skip: new Set(['node/os-distro']),
      severity: new Map([['node/kernel-version', 'warning' as const]]),
    })
    const kernel = findings.find((finding) => finding.rule === 'node/kernel-version')
    assert.equal(kernel?.status, 'fail')
    assert.equal(kernel?.severity, 'warning')
    assert.deepEqual(kernel?.evidence, {'kernel.version': '4.18.0', 'kernel.release': '4.18.0-553.el8_10.x86_64'})
    assert.ok(!findings.some((finding) => finding.rule === 'node/os-distro'))
  })

  it('renders the distro-specific upgrade into the remediation', () => {
    const facts = new FactSet()
      .set('kernel.version', '4.18.0')
      .set('kernel.release', '4.18.0-553.el8_10.x86_64')
      .set('os.id', 'rhel')
      .set('os.prettyName', 'Red Hat Enterprise Linux 8.10 (Ootpa)')
    const [finding] = evaluateRules(
      rules.filter((rule) => rule.id === 'node/kernel-version'),
      node(facts),
    )
    assert.match(finding.message, /4\.18\.0-553\.el8_10\.x86_64 is older than 5\.13 \(Red Hat Enterprise Linux 8\.10 \(Ootpa\)\)/)
    assert.match(finding.remediation[0], /RHEL 9/)
    assert.match(finding.remediation.join(' '), /KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK/)
  })
})
