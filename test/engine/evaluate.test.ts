import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'

import {UNKNOWN_REASONS} from '../../src/contract/finding.js'
import {evaluateRules} from '../../src/engine/evaluate.js'
import {NODE_FACTS} from '../../src/facts/catalog.js'
import {FactSet} from '../../src/facts/fact-set.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import {loadRules} from '../../src/services/rule-loading.js'
import {FIXTURES} from '../helpers/paths.js'

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
      for (const finding of evaluateRules(rules, node(facts)).findings) {
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
    ).findings
    assert.equal(finding.status, 'unknown')
    assert.equal(finding.reason, 'permission-denied')
    assert.match(finding.message, /permission-denied/)
  })

  it('applies severity overrides and --skip', () => {
    const facts = new FactSet().set('kernel.version', '4.18.0').set('kernel.release', '4.18.0-553.el8_10.x86_64')
    const findings = evaluateRules(rules, node(facts), {
      skip: new Set(['node/os-distro']),
      severity: new Map([['node/kernel-version', 'warning' as const]]),
    }).findings
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
    ).findings
    assert.match(finding.message, /4\.18\.0-553\.el8_10\.x86_64 is older than 5\.13 \(Red Hat Enterprise Linux 8\.10 \(Ootpa\)\)/)
    assert.match(finding.remediation[0], /RHEL 9/)
    assert.match(finding.remediation.join(' '), /KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK/)
  })
})

describe('the CEL cost budget at evaluation', () => {
  // node/table-pairs compares every nftables table with every other: linted for 64 tables, it is
  // within the budget; it reads a list, so a node can have far more.
  const [tablePairs] = loadRules([{path: join(FIXTURES, 'costly-rules', 'table-pairs.yaml')}])
  const tables = (count: number) => Array.from({length: count}, (_, index) => `ip t${index}`)

  it('decides a rule that lints on a list of the usual size', () => {
    const [finding] = evaluateRules([tablePairs], node(new FactSet().set('netfilter.tables', ['ip filter', 'ip nat']))).findings
    assert.deepEqual([finding.status, finding.message], ['pass', '2 tables, none another\'s name with an x appended.'])
  })

  it('does not evaluate it on 3,000 tables: unknown (cost-limit), saying the cost and the budget, at once', () => {
    const started = performance.now()
    const [finding] = evaluateRules([tablePairs], node(new FactSet().set('netfilter.tables', tables(3000)))).findings
    assert.ok(performance.now() - started < 1000, 'not evaluated: 9 million comparisons would take seconds')
    // u + "x": 3 and 1 for its 8 characters; t == u + "x": 1 + 1 + 4 + 1 (7 characters read); the inner
    // exists 1 + 2 + 3,000 × 7 = 21,003; the outer 1 + 2 + 3,000 × 21,003.
    assert.deepEqual(
      [finding.status, finding.reason, finding.message],
      ['unknown', 'cost-limit', 'node/table-pairs was not evaluated: on these facts its CEL is estimated to cost 63,009,003, over the budget of 1,000,000.'],
    )
  })

  it('keeps the status decided when only a message would go over the budget, and says so in it', () => {
    // On 350 tables the condition costs 858,553 (7 × 350² and a little); the message's nested filter about as much again.
    const joined = {...tablePairs, outcomes: [tablePairs.outcomes[0], {status: 'pass' as const, message: 'Tables: {{ join(netfilter.tables.map(t, netfilter.tables.filter(u, u == t).size()), ", ") }}.'}]}
    const [finding] = evaluateRules([joined], node(new FactSet().set('netfilter.tables', tables(350)))).findings
    assert.deepEqual([finding.status, finding.message], ['pass', 'Tables: (over the CEL cost budget).'])
  })
})

describe('skips that only the cluster decides (summed-up subjects)', () => {
  const hijack = rules.filter((rule) => rule.id === 'cluster/ipvs-lb-hijack')
  const services = (mode: string) => {
    const cluster = new FactSet().set('cluster.proxyMode', mode)
    const service = (name: string, sharedWith: string[]) =>
      new FactSet(cluster).set('service.name', name).set('service.addresses', ['203.0.113.7']).set('service.sharedWith', sharedWith).set('service.portCount', 1)
    return [
      {kind: 'Service', name: 'default/a', facts: service('default/a', [])},
      {kind: 'Service', name: 'default/b', facts: service('default/b', ['ingress/web'])},
      {kind: 'Service', name: 'default/c', facts: service('default/c', [])},
    ]
  }

  it('sums up every Service as not applying when the cluster’s mode skips the rule, whatever the Services hold', () => {
    const {findings} = evaluateRules(hijack, services('iptables'))
    assert.deepEqual(
      findings.map(({message, status, subject}) => ({status, subject: subject.name, message})),
      [{status: 'skip', subject: 'cluster', message: '3 Service(s) do not apply; for example default/a: kube-proxy runs in iptables mode, which does not bind load-balancer addresses to the node.'}],
    )
  })

  it('still decides each Service on its own facts when the rule applies', () => {
    const {findings} = evaluateRules(hijack, services('ipvs'))
    assert.deepEqual(
      findings.map(({status, subject}) => `${status} ${subject.name}`),
      ['fail default/b', 'pass cluster'],
    )
    assert.match(findings[1].message, /^2 Service\(s\) pass \(1 reported apart\); for example default\/a: /)
  })
})

describe('skips decided by each summed-up node’s own facts', () => {
  const bypass = rules.filter((rule) => rule.id === 'node/kernel-check-bypass')
  const node = (name: string, runtime: string) => ({kind: 'Node', name, facts: new FactSet().set('kubeProxy.runtime', runtime).set('kubeProxy.skipKernelCheck', true)})

  it('skips only the nodes whose own facts say so, and fails the others one by one', () => {
    const {findings} = evaluateRules(bypass, [node('a', 'none'), node('b', 'daemonset'), node('c', 'none')], {summarise: new Set(['Node'])})
    assert.deepEqual(
      findings.map(({status, subject}) => `${status} ${subject.name}`),
      ['fail b', 'skip cluster'],
    )
    assert.equal(findings[1].message, '2 Node(s) do not apply (1 reported apart); for example a: kube-proxy does not run on this node.')
  })
})
