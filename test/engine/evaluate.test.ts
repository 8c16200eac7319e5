import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'

import {groupByRule, UNKNOWN_REASONS} from '../../src/contract/finding.js'
import {evaluateRules} from '../../src/engine/evaluate.js'
import type {LoadedRule} from '../../src/engine/rule-lint.js'
import {NODE_FACTS} from '../../src/facts/catalog.js'
import {FactSet} from '../../src/facts/fact-set.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import {loadRules} from '../../src/services/rule-loading.js'
import {reported} from '../helpers/evaluation.js'
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

  it('evaluates a rule that costs exactly the budget on the facts at hand, and not one that costs more', () => {
    // !tables.exists(t, t == "x"): 1 + 1 + 2 + n × (t == "x": 3 + 1): 4 + 4n, the budget at 249,999 tables.
    const noX = rule({needs: ['netfilter.tables'], outcomes: [{status: 'fail', when: '!netfilter.tables.exists(t, t == "x")', message: 'no x'}, {status: 'pass', message: 'x'}], remediation: ['fix']})
    const withTables = (count: number) => evaluateRules([noX], node(new FactSet().set('netfilter.tables', tables(count)))).findings[0]
    assert.deepEqual([withTables(249_999).status, withTables(249_999).message], ['fail', 'no x'])
    assert.deepEqual([withTables(250_000).status, withTables(250_000).reason], ['unknown', 'cost-limit'])
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
      new FactSet(cluster).set('service.type', 'LoadBalancer').set('service.name', name).set('service.addresses', ['203.0.113.7']).set('service.sharedWith', sharedWith).set('service.portCount', 1)
    return [
      {kind: 'Service', name: 'default/a', facts: service('default/a', [])},
      {kind: 'Service', name: 'default/b', facts: service('default/b', ['ingress/web'])},
      {kind: 'Service', name: 'default/c', facts: service('default/c', [])},
    ]
  }

  it('sums up every Service as not applying when the cluster’s mode skips the rule, whatever the Services hold', () => {
    const findings = reported(evaluateRules(hijack, services('iptables')))
    assert.deepEqual(
      findings.map(({message, status, subject}) => ({status, subject: subject.name, message})),
      [{status: 'skip', subject: 'cluster', message: '3 Service(s) do not apply; for example default/a: kube-proxy runs in iptables mode, which does not bind load-balancer addresses to the node.'}],
    )
  })

  it('still decides each Service on its own facts when the rule applies', () => {
    const findings = reported(evaluateRules(hijack, services('ipvs')))
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

  it('skips by each node\'s own facts in a rule that also names Kubernetes versions', () => {
    const versioned = rule({versions: {kubernetes: '>=1.29'}, uses: ['os.id'], skip: [{when: 'has(os.id) && os.id == "flatcar"', message: 'not on {{ os.id }}'}]})
    const nodes = [
      {kind: 'Node', name: 'a', facts: kernel('4.18').set('os.id', 'flatcar')},
      {kind: 'Node', name: 'b', facts: kernel('4.18').set('os.id', 'ubuntu')},
    ]
    const findings = reported(evaluateRules([versioned], nodes, {grouped: new Set(['Node']), kubernetesVersion: '1.33.0'}))
    assert.deepEqual(findings.map(({status, subject}) => `${status} ${subject.name}`), ['fail b', 'skip cluster'])
  })

  it('skips only the nodes whose own facts say so, and fails the others one by one', () => {
    const findings = reported(evaluateRules(bypass, [node('a', 'none'), node('b', 'daemonset'), node('c', 'none')], {grouped: new Set(['Node'])}))
    assert.deepEqual(
      findings.map(({status, subject}) => `${status} ${subject.name}`),
      ['fail b', 'skip cluster'],
    )
    assert.equal(findings[1].message, '2 Node(s) do not apply (1 reported apart); for example a: kube-proxy does not run on this node.')
  })
})

/** A rule written here, in memory: the fields a test does not name are a plain node rule's. */
function rule(fields: Partial<LoadedRule>): LoadedRule {
  return {
    id: 'node/probe',
    scope: 'node',
    severity: 'warning',
    title: 'Probe',
    description: 'd',
    needs: ['kernel.version'],
    outcomes: [
      {status: 'fail', when: 'kernel.version == "4.18"', message: 'old {{ kernel.version }}'},
      {status: 'pass', message: 'fine'},
    ],
    unknown: {message: 'no {{ missing.fact }} ({{ missing.reason }})'},
    remediation: ['upgrade {{ kernel.version }}'],
    references: [{title: 'x', url: 'https://example.com'}],
    source: 'test',
    ...fields,
  }
}

const kernel = (version: string) => new FactSet().set('kernel.version', version)
const brief = ({status, severity, subject, message, reason, remediation}: {message: string; reason?: string; remediation: string[]; severity: string; status: string; subject: {kind: string; name: string}}) => ({
  status,
  severity,
  subject: `${subject.kind}/${subject.name}`,
  message,
  reason,
  remediation,
})

describe('evaluating a rule', () => {
  it('shows a conditional remediation line where its condition holds, leaves it out where it does not, and keeps it where a fact it reads is missing', () => {
    const onDebian = rule({
      uses: ['os.id'],
      remediation: ['upgrade {{ kernel.version }}', {when: 'os.id == "debian"', text: 'On Debian, install the backports kernel.'}],
    })
    const {findings} = evaluateRules([onDebian], [
      {kind: 'Node', name: 'debian', facts: kernel('4.18').set('os.id', 'debian')},
      {kind: 'Node', name: 'rhel', facts: kernel('4.18').set('os.id', 'rhel')},
      {kind: 'Node', name: 'os-unread', facts: kernel('4.18').unknown('os.id', 'not-collected', 'no os-release section')},
    ])
    assert.deepEqual(
      findings.map(({subject, remediation}) => [subject.name, remediation]),
      [
        ['debian', ['upgrade 4.18', 'On Debian, install the backports kernel.']],
        ['rhel', ['upgrade 4.18']],
        ['os-unread', ['upgrade 4.18', 'On Debian, install the backports kernel.']],
      ],
    )
  })

  it('gives each subject its finding, with the rule\'s words, evidence of what it read and remediation only on a failure', () => {
    const {findings} = evaluateRules([rule({uses: ['kernel.release']})], [
      {kind: 'Node', name: 'a', facts: kernel('4.18')},
      {kind: 'Node', name: 'b', facts: kernel('5.15')},
      {kind: 'Node', name: 'c', facts: kernel('4.18')},
    ])
    assert.deepEqual(findings.map((finding) => brief(finding)), [
      {status: 'fail', severity: 'warning', subject: 'Node/a', message: 'old 4.18', reason: undefined, remediation: ['upgrade 4.18']},
      {status: 'pass', severity: 'warning', subject: 'Node/b', message: 'fine', reason: undefined, remediation: []},
      {status: 'fail', severity: 'warning', subject: 'Node/c', message: 'old 4.18', reason: undefined, remediation: ['upgrade 4.18']},
    ])
    assert.deepEqual([findings[0].evidence, findings[0].confidence, findings[0].title, findings[0].rule], [{'kernel.version': '4.18'}, 'verified', 'Probe', 'node/probe'])
    assert.deepEqual(findings[1], {
      rule: 'node/probe', title: 'Probe', confidence: 'verified', subject: {kind: 'Node', name: 'b'}, evidence: {'kernel.version': '5.15'},
      references: [{title: 'x', url: 'https://example.com'}], status: 'pass', severity: 'warning', message: 'fine', remediation: [],
    }, 'no reason on a pass')
  })

  it('shows a placeholder that fails as (unknown), and gives a skip outcome its reason', () => {
    const [failing] = evaluateRules([rule({outcomes: [{status: 'fail', message: 'old {{ compareVersions(kernel.version, "x") }}'}]})], node(kernel('4.18'))).findings
    assert.deepEqual([failing.status, failing.message], ['fail', 'old (unknown)'])
    const [skipped] = evaluateRules([rule({outcomes: [{status: 'skip', message: 'not here'}, {status: 'pass', message: 'ok'}]})], node(kernel('4.18'))).findings
    assert.deepEqual([skipped.status, skipped.reason], ['skip', 'not-applicable'])
  })

  it('takes an outcome\'s severity over the rule\'s, and the user\'s over both', () => {
    const severe = rule({outcomes: [{status: 'fail', severity: 'blocker', message: 'm'}]})
    assert.equal(evaluateRules([severe], node(kernel('4.18'))).findings[0].severity, 'blocker')
    assert.equal(evaluateRules([severe], node(kernel('4.18')), {severity: new Map([['node/probe', 'info' as const]])}).findings[0].severity, 'info')
    assert.equal(evaluateRules([rule({confidence: 'heuristic'})], node(kernel('4.18'))).findings[0].confidence, 'heuristic')
  })

  it('skips a rule outside its Kubernetes versions, or when a skip condition holds; a skip over an unknown fact does not count', () => {
    const ranged = rule({versions: {kubernetes: '>=1.33'}})
    assert.deepEqual(brief(evaluateRules([ranged], node(kernel('4.18')), {kubernetesVersion: 'v1.30.4-eks-1234'}).findings[0]), {
      status: 'skip', severity: 'warning', subject: 'Node/node-1', message: 'Applies to Kubernetes >=1.33; this is 1.30.', reason: 'not-applicable', remediation: [],
    })
    assert.equal(evaluateRules([ranged], node(kernel('4.18')), {kubernetesVersion: '1.33.0'}).findings[0].status, 'fail')
    const skipping = rule({uses: ['os.id'], skip: [{when: 'os.id == "flatcar"', message: 'not on {{ os.id }}'}]})
    assert.deepEqual(
      [kernel('4.18').set('os.id', 'flatcar'), kernel('4.18'), kernel('4.18').set('os.id', 'rhel')].map((facts) => evaluateRules([skipping], node(facts)).findings[0]).map(({status, message, reason}) => [status, message, reason]),
      [['skip', 'not on flatcar', 'not-applicable'], ['fail', 'old 4.18', undefined], ['fail', 'old 4.18', undefined]],
    )
  })

  it('is unknown when a needed fact is, in the words for its reason, or when an outcome reads a used fact that is', () => {
    const worded = rule({uses: ['kernel.release'], unknown: {message: 'no {{ missing.fact }}', byReason: {'permission-denied': 'run as root to read {{ missing.fact }}'}}})
    const denied = new FactSet().unknown('kernel.version', 'permission-denied', 'uname blocked')
    assert.deepEqual(brief(evaluateRules([worded], node(denied)).findings[0]), {
      status: 'unknown', severity: 'warning', subject: 'Node/node-1', message: 'run as root to read kernel.version', reason: 'permission-denied', remediation: [],
    })
    const timedOut = new FactSet().unknown('kernel.version', 'timeout', 'slow')
    assert.equal(evaluateRules([worded], node(timedOut)).findings[0].message, 'no kernel.version')
    const reading = rule({uses: ['kernel.release'], outcomes: [{status: 'fail', when: 'kernel.release == "x"', message: 'm'}, {status: 'pass', message: 'ok'}]})
    const noRelease = kernel('5.15').unknown('kernel.release', 'not-collected', 'no uname section')
    assert.deepEqual(brief(evaluateRules([reading], node(noRelease)).findings[0]), {
      status: 'unknown', severity: 'warning', subject: 'Node/node-1', message: 'no kernel.release (not-collected)', reason: 'not-collected', remediation: [],
    })
  })

  it('renders an unknown message that reads other facts with them', () => {
    const facts = new FactSet().unknown('kernel.version', 'timeout', 'slow').set('kernel.release', '4.18.0-553')
    const messageOf = (message: string) => evaluateRules([rule({uses: ['kernel.release'], unknown: {message}})], node(facts)).findings[0].message
    assert.equal(messageOf('no {{ missing.fact }} on {{ kernel.release }}'), 'no kernel.version on 4.18.0-553')
    assert.equal(messageOf('{{ missing.fact + " on " + kernel.release }}'), 'kernel.version on 4.18.0-553')
    assert.equal(messageOf('{{ kernel.release + " lacks " + missing.fact }}'), '4.18.0-553 lacks kernel.version')
  })

  it('is unknown (not-collected) when an outcome reads data the rule lacks', () => {
    const [finding] = evaluateRules([rule({outcomes: [{status: 'fail', when: 'data.flag', message: 'm'}, {status: 'pass', message: 'ok'}]})], node(kernel('4.18'))).findings
    assert.deepEqual([finding.status, finding.reason, finding.message], ['unknown', 'not-collected', 'no  (not-collected)'])
  })

  it('takes an unknown outcome\'s reason, or that of the used fact it is about', () => {
    const outcomes = (reason?: 'not-present') => [{status: 'unknown' as const, ...(reason ? {reason} : {}), when: 'kernel.version == "4.18"', message: 'cannot tell: {{ missing.fact }}{{ missing.detail }}'}, {status: 'pass' as const, message: 'ok'}]
    const facts = kernel('4.18').unknown('kernel.release', 'timeout', 'slow')
    const [stated] = evaluateRules([rule({uses: ['kernel.release'], outcomes: outcomes('not-present')})], node(facts)).findings
    assert.deepEqual([stated.status, stated.reason, stated.message], ['unknown', 'not-present', 'cannot tell: kernel.releaseslow'])
    const [fromFact] = evaluateRules([rule({uses: ['kernel.release'], outcomes: outcomes()})], node(facts)).findings
    assert.deepEqual([fromFact.reason, fromFact.message], ['timeout', 'cannot tell: kernel.releaseslow'])
    const [unsaid] = evaluateRules([rule({outcomes: outcomes()})], node(facts)).findings
    assert.deepEqual([unsaid.reason, unsaid.message], ['not-collected', 'cannot tell: '])
  })

  it('is unknown (rule-error) when no outcome matches, or its CEL fails, saying which rule', () => {
    const [unmatched] = evaluateRules([rule({outcomes: [{status: 'fail', when: 'false', message: 'm'}]})], node(kernel('4.18'))).findings
    assert.deepEqual([unmatched.status, unmatched.reason, unmatched.message], ['unknown', 'rule-error', 'No outcome of node/probe matched these facts; the rule is incomplete.'])
    const [failing] = evaluateRules([rule({outcomes: [{status: 'fail', when: 'compareVersions(kernel.version, "x") < 0', message: 'm'}, {status: 'pass', message: 'ok'}]})], node(kernel('4.18'))).findings
    assert.deepEqual([failing.status, failing.reason], ['unknown', 'rule-error'])
    assert.equal(failing.message, 'Rule node/probe could not be evaluated: not a dotted version: "x"')
    const [failingSkip] = evaluateRules([rule({skip: [{when: 'compareVersions(kernel.version, "x") < 0', message: 'm'}]})], node(kernel('4.18'))).findings
    assert.deepEqual([failingSkip.status, failingSkip.reason], ['unknown', 'rule-error'])
  })
})

describe('evaluating a rule over many subjects', () => {
  const serviceRule = rule({
    id: 'cluster/probe',
    scope: 'cluster',
    subject: 'Service',
    needs: ['service.type'],
    outcomes: [
      {status: 'skip', when: 'service.type == "ExternalName"', message: 'no proxy'},
      {status: 'fail', when: 'service.type == "NodePort"', message: 'nodeport'},
      {status: 'pass', message: 'fine'},
    ],
    remediation: ['fix'],
  })
  const service = (name: string, type?: string) => ({kind: 'Service', name, facts: type ? new FactSet().set('service.type', type) : new FactSet().unknown('service.type', 'permission-denied', 'forbidden')})
  const cluster = {kind: 'Cluster', name: 'cluster', facts: new FactSet()}

  it('lists a Service\'s failures and unknowns and sums up its passes and skips about the cluster', () => {
    const findings = reported(evaluateRules([serviceRule], [cluster, service('a', 'ClusterIP'), service('b', 'NodePort'), service('c', 'ClusterIP'), service('d'), service('e', 'ExternalName')]))
    assert.deepEqual(findings.map(({status, subject, message}) => [status, `${subject.kind}/${subject.name}`, message]), [
      ['fail', 'Service/b', 'nodeport'],
      ['unknown', 'Service/d', 'no service.type (permission-denied)'],
      ['pass', 'Cluster/cluster', '3 Service(s) pass (2 reported apart); for example a: fine'],
    ])
    assert.deepEqual([findings[2].remediation, findings[2].reason], [[], undefined])
    const interleaved = reported(evaluateRules([serviceRule], [cluster, service('b', 'NodePort'), service('d'), service('f', 'NodePort')]))
    assert.deepEqual(interleaved.map(({subject}) => subject.name), ['b', 'd', 'f'], 'in the order of the subjects, not of their groups')
  })

  it('says when every Service is skipped, and when there is none', () => {
    const skipped = reported(evaluateRules([serviceRule], [cluster, service('a', 'ExternalName')]))
    assert.deepEqual(skipped.map(({status, reason, message}) => [status, reason, message]), [['skip', 'not-applicable', '1 Service(s) do not apply; for example a: no proxy']])
    const none = reported(evaluateRules([serviceRule], [cluster]))
    assert.deepEqual(none.map(({status, subject, message}) => [status, subject.name, message]), [['skip', 'cluster', 'No Service in the cluster is concerned.']])
    const [summary] = reported(evaluateRules([serviceRule], [cluster, service('a', 'ClusterIP')], {severity: new Map([['cluster/probe', 'blocker' as const]])}))
    assert.deepEqual([summary.severity, summary.confidence, summary.references], ['blocker', 'verified', serviceRule.references])
    const failing = reported(evaluateRules([serviceRule], [cluster, service('b', 'NodePort')]))
    assert.deepEqual(failing.map(({status}) => status), ['fail'], 'no summary when nothing passed')
  })

  it('folds unknowns of the given reasons into one finding after the others, counting them', () => {
    const findings = reported(evaluateRules([serviceRule], [cluster, service('a', 'ClusterIP'), service('d'), service('f')]), new Set(['permission-denied']))
    assert.deepEqual(findings.map(({status, subject, message}) => [status, `${subject.kind}/${subject.name}`, message]), [
      ['pass', 'Cluster/cluster', '1 Service(s) pass (2 reported apart); for example a: fine'],
      ['unknown', 'Cluster/cluster', '2 service(s), e.g. d: no service.type (permission-denied)'],
    ])
    const onlyFolded = reported(evaluateRules([serviceRule], [cluster, service('d')]), new Set(['permission-denied']))
    assert.deepEqual(onlyFolded.map(({status}) => status), ['unknown'], 'no summary when nothing passed')
  })

  it('tells subjects apart whose facts are unknown for other reasons, or with other details', () => {
    const worded = rule({unknown: {message: '{{ missing.reason }}: {{ missing.detail }}'}})
    const unknownVersion = (name: string, reason: 'permission-denied' | 'timeout', detail: string) => ({kind: 'Node', name, facts: new FactSet().unknown('kernel.version', reason, detail)})
    const {findings} = evaluateRules([worded], [
      unknownVersion('a', 'permission-denied', 'uname blocked'),
      unknownVersion('b', 'timeout', 'uname blocked'),
      unknownVersion('c', 'permission-denied', 'no shell'),
      unknownVersion('d', 'permission-denied', 'uname blocked'),
    ])
    assert.deepEqual(findings.map(({subject, message}) => `${subject.name} ${message}`), [
      'a permission-denied: uname blocked',
      'b timeout: uname blocked',
      'c permission-denied: no shell',
      'd permission-denied: uname blocked',
    ])
  })

  it('lists each Node when Nodes are not summed up, and keeps each subject\'s finding apart when asked', () => {
    const nodes = ['n1', 'n2'].map((name) => ({kind: 'Node', name, facts: kernel('4.18')}))
    const {findings, bySubject} = evaluateRules([rule({})], nodes, {grouped: new Set(), perSubject: new Set(['Node'])})
    assert.deepEqual(findings.map(({subject}) => subject.name), ['n1', 'n2'])
    assert.deepEqual([...bySubject.keys()], ['node/n1', 'node/n2'])
    assert.equal(bySubject.get('node/n2')?.get('node/probe')?.message, 'old 4.18')
    assert.equal(evaluateRules([rule({})], nodes).bySubject.size, 0, 'only when asked')
  })

  it('keeps each subject\'s finding of every rule, where subjects agree on one rule and differ on another', () => {
    const nodes = [
      {kind: 'Node', name: 'n1', facts: kernel('4.18').set('nft.version', '1.0.6')},
      {kind: 'Node', name: 'n2', facts: kernel('4.18').set('nft.version', '0.9.3')},
      {kind: 'Node', name: 'n3', facts: kernel('6.1')},
    ]
    const nft = rule({
      id: 'node/nft',
      needs: ['nft.version'],
      outcomes: [
        {status: 'fail', when: 'nft.version == "0.9.3"', message: 'old nft {{ nft.version }}'},
        {status: 'pass', message: 'nft {{ nft.version }}'},
      ],
    })
    const {bySubject} = evaluateRules([rule({}), nft], nodes, {perSubject: new Set(['Node'])})
    const checks = (name: string) => Object.fromEntries([...bySubject.get(`node/${name}`)!].map(([id, finding]) => [id, `${finding.status}: ${finding.message}`]))
    assert.deepEqual(checks('n1'), {'node/probe': 'fail: old 4.18', 'node/nft': 'pass: nft 1.0.6'})
    assert.deepEqual(checks('n2'), {'node/probe': 'fail: old 4.18', 'node/nft': 'fail: old nft 0.9.3'})
    assert.deepEqual(checks('n3'), {'node/probe': 'pass: fine', 'node/nft': 'unknown: no nft.version (not-collected)'})
  })

  it('decides nodes that share their facts through a parent alike, and apart the one whose own facts say otherwise', () => {
    const pool = kernel('4.18').set('nft.version', '1.0.6')
    const nodes = [
      {kind: 'Node', name: 'n1', facts: new FactSet(pool).set('node.name', 'n1')},
      {kind: 'Node', name: 'n2', facts: new FactSet(pool).set('node.name', 'n2').set('kernel.version', '6.1')},
      {kind: 'Node', name: 'n3', facts: new FactSet(pool).set('node.name', 'n3').unknown('kernel.version', 'timeout', 'uname')},
      {kind: 'Node', name: 'n4', facts: new FactSet(pool).set('node.name', 'n4')},
    ]
    const named = rule({id: 'node/named', needs: ['node.name'], outcomes: [{status: 'pass', message: 'I am {{ node.name }}'}]})
    const {bySubject} = evaluateRules([rule({}), named], nodes, {perSubject: new Set(['Node'])})
    const checks = (name: string) => [...bySubject.get(`node/${name}`)!.values()].map((finding) => `${finding.status}: ${finding.message}`)
    assert.deepEqual(nodes.map(({name}) => checks(name)), [
      ['fail: old 4.18', 'pass: I am n1'],
      ['pass: fine', 'pass: I am n2'],
      ['unknown: no kernel.version (timeout)', 'pass: I am n3'],
      ['fail: old 4.18', 'pass: I am n4'],
    ])
  })

  it('sums nodes up in their own order when some hold a kernel of their own, one of them the pool\'s, and names the first as the example', () => {
    const pool = kernel('6.1')
    const nodes = [
      {kind: 'Node', name: 'a0', facts: new FactSet(pool).set('node.name', 'a0').set('kernel.version', '4.18')},
      {kind: 'Node', name: 'a1', facts: new FactSet(pool).set('node.name', 'a1')},
      {kind: 'Node', name: 'a2', facts: new FactSet(pool).set('node.name', 'a2').set('kernel.version', '6.1')},
      {kind: 'Node', name: 'a3', facts: new FactSet(pool).set('node.name', 'a3')},
      {kind: 'Node', name: 'a4', facts: new FactSet(pool).set('node.name', 'a4').set('kernel.version', '6.2')},
    ]
    const versioned = rule({outcomes: [{status: 'fail', when: 'kernel.version == "4.18"', message: 'old {{ kernel.version }}'}, {status: 'pass', message: 'fine {{ kernel.version }}'}]})
    const evaluation = evaluateRules([versioned], nodes, {grouped: new Set(['Node']), perSubject: new Set(['Node'])})
    const {bySubject} = evaluation
    const findings = reported(evaluation)
    assert.deepEqual(
      findings.map(({status, subject, message}) => `${status} ${subject.name}: ${message}`),
      ['fail a0: old 4.18', 'pass cluster: 4 Node(s) pass (1 reported apart); for example a1: fine 6.1'],
    )
    assert.deepEqual(nodes.map(({name}) => bySubject.get(`node/${name}`)!.get('node/probe')!.message), ['old 4.18', 'fine 6.1', 'fine 6.1', 'fine 6.1', 'fine 6.2'])
  })

  it('is unknown about the cluster when the rule\'s subjects could not be listed, unless its skip holds on the cluster', () => {
    const unreadableKinds = new Map([['Node', {reason: 'permission-denied' as const, detail: 'nodes is forbidden'}]])
    const [unknown] = evaluateRules([rule({})], [cluster], {unreadableKinds}).findings
    assert.deepEqual(brief(unknown), {
      status: 'unknown', severity: 'warning', subject: 'Cluster/cluster', message: 'No Node could be listed: no node list (permission-denied)', reason: 'permission-denied', remediation: [],
    })
    const ranged = rule({versions: {kubernetes: '>=1.33'}})
    assert.equal(evaluateRules([ranged], [cluster], {unreadableKinds, kubernetesVersion: '1.30.0'}).findings[0].status, 'skip')
    const off = rule({data: {off: true}, skip: [{when: 'data.off', message: 'switched off'}]})
    assert.deepEqual(evaluateRules([off], [cluster], {unreadableKinds}).findings.map(({status, message}) => [status, message]), [['skip', 'switched off']])
  })
})

describe('findings by rule', () => {
  it('groups them by rule id, in the order they come', () => {
    const {findings} = evaluateRules([rule({}), rule({id: 'node/other'})], [{kind: 'Node', name: 'a', facts: kernel('4.18')}, {kind: 'Node', name: 'b', facts: kernel('5.15')}])
    const groups = groupByRule([findings[0], findings[2], findings[1]])
    assert.deepEqual([...groups].map(([id, some]) => [id, some.map(({subject}) => subject.name)]), [['node/probe', ['a', 'b']], ['node/other', ['a']]])
  })
})
