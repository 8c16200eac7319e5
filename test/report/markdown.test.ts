/**
 * The Markdown report with hostile strings from the cluster in every place they reach: escaped output written
 * out by hand, then a whole hostile report read back by a real GFM parser (micromark's, through mdast, which
 * also links URLs and e-mail addresses as GitHub does after escapes are undone).
 */
import type {Nodes} from 'mdast'
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {PLAN_PHASES} from '../../src/contract/phases.js'
import type {PlanStep, Report} from '../../src/contract/report.js'
import {code, codeBlock, link, md, prose, proseWithCode, tableRow} from '../../src/report/markdown-safe.js'
import {renderMarkdown} from '../../src/report/markdown.js'
import {nodesOf, parseMarkdown as parse, shown} from '../helpers/markdown.js'
import {exampleClusterReport} from '../helpers/reports.js'

/** The issue's node name: a line break that would close a fence, then HTML. */
const FENCE_BREAKER = 'n1\n```\n<img src=x onerror=alert(1)>'
/** The same, as the Markdown source must have it: the line breaks shown as `\n`, every metacharacter escaped. */
const FENCE_BREAKER_SOURCE = String.raw`n1\\n\`\`\`\\n\<img src=x onerror=alert(1)\>`

describe('Markdown escaping, by hand', () => {
  it('prose escapes what GFM acts on, shows line breaks and controls, and sets linkable words as code', () => {
    assert.equal(String(md`${FENCE_BREAKER}`), FENCE_BREAKER_SOURCE)
    assert.equal(String(md`x ${'<script>alert(1)</script>'}`), String.raw`x \<script\>alert(1)\</script\>`)
    assert.equal(String(md`x ${'[x](javascript:alert(1))'}`), String.raw`x \[x\](javascript:alert(1))`)
    // An image needs `![`; its URL makes the whole word code, where nothing is fetched or linked.
    assert.equal(String(md`x ${'![img](http://x)'}`), 'x `![img](http://x)`')
    assert.equal(String(md`x ${String.raw`*a* _b_ ~~c~~ &amp; # \ !`}`), String.raw`x \*a\* \_b\_ \~\~c\~\~ \&amp; \# \\ \!`)
    assert.equal(String(md`x ${'see https://evil.example, www.evil.example, ops@evil.example, @team and $x$'}`), 'x see `https://evil.example,` `www.evil.example,` `ops@evil.example,` `@team` and `$x$`')
    assert.equal(String(md`x ${'a\u001B]8;;https://evil.example\u0007b\u202Ec'}`), 'x `a\\x1B]8;;https://evil.example\\x07b\\u202Ec`')
  })

  it('a value that starts a line starts no list, quote, heading or indented code; inside a line it is left as it is', () => {
    assert.equal(String(md`${'1. first'}`), String.raw`1\. first`)
    assert.equal(String(md`- ${'- nested'}`), String.raw`- \- nested`)
    assert.equal(String(md`> ${'+ item'}`), String.raw`> \+ item`)
    assert.equal(String(md`${'=== underline'}`), String.raw`\=== underline`)
    assert.equal(String(md`${'# heading'}`), String.raw`\# heading`)
    assert.equal(String(md`${'    indented code'}`), 'indented code')
    assert.equal(String(md`Kubernetes ${'1.34.0'} - ${'-x'}`), 'Kubernetes 1.34.0 - -x')
  })

  it('inline code has a longer backtick string than any run in the value', () => {
    assert.equal(String(code('kubectl get nodes')), '`kubectl get nodes`')
    assert.equal(String(code('a`b``c')), '```a`b``c```')
    assert.equal(String(code('`start')), '`` `start ``')
    assert.equal(String(code('end`')), '`` end` ``')
    assert.equal(String(code(FENCE_BREAKER)), '````' + String.raw`n1\n` + '```' + String.raw`\n<img src=x onerror=alert(1)>` + '````')
  })

  it('a fenced block is fenced longer than any backtick run in its lines; tildes do not close it; a command keeps its own lines', () => {
    assert.equal(String(codeBlock(['echo ok'], 'sh')), '```sh\necho ok\n```')
    assert.equal(String(codeBlock(['echo one', '```', '~~~~', 'echo `````'], 'sh')), '``````sh\necho one\n```\n~~~~\necho `````\n``````')
    // A command's line breaks are its own (a loop is one command; the planner lets no value bring one): they stay, inside a longer fence.
    assert.equal(String(codeBlock([FENCE_BREAKER], 'sh')), '````sh\n' + FENCE_BREAKER + '\n````')
    assert.equal(String(codeBlock(['for n in a; do\n  echo "$n\u001B[2J"\ndone'], 'sh')), '```sh\nfor n in a; do\n  echo "$n\\x1B[2J"\ndone\n```')
  })

  it('a table cell escapes every pipe, in code too, and holds no line break', () => {
    assert.equal(String(tableRow([code('a|b'), md`${'x | y'}`, md`${FENCE_BREAKER}`])), String.raw`| ${'`a\\|b`'} | x \| y | ${FENCE_BREAKER_SOURCE} |`)
  })

  it('links go to https pages only, with the destination encoded and the title escaped', () => {
    assert.equal(String(link('Docs [v1]', 'https://kubernetes.io/docs/a b(c)<d>')), String.raw`[Docs \[v1\]](<https://kubernetes.io/docs/a%20b(c)%3Cd%3E>)`)
    assert.equal(String(link('click', 'javascript:alert(1)')), 'click')
    assert.equal(String(link('click', 'ftp://files.example/kube-proxy.tar')), 'click')
    assert.equal(String(prose(md`**kept**`)), '**kept**')
  })
})

describe('Markdown that pastes into a change ticket', () => {
  it('defines the restart-and-wait block once (the example snapshot): the steps that restart a node call it', async () => {
    const markdown = renderMarkdown(await exampleClusterReport())
    // The definition: the script the configure step writes, with its one wait loop and one Ready wait.
    assert.equal(markdown.match(/^cat > kpx-restart-node\.sh <<'EOF'$/gm)?.length, 1)
    assert.equal(markdown.match(/^ *while \[ -z "\$pod" \]/gm)?.length, 1)
    assert.equal(markdown.match(/--for=condition=Ready/g)?.length, 1)
    // The callers: the canary's undo and the rollback (the canary and rollout have no node ready in the example).
    assert.deepEqual(markdown.match(/^ *sh kpx-restart-node\.sh .*$/gm), ['sh kpx-restart-node.sh NODE', '  sh kpx-restart-node.sh "$node" || break'])
  })

  it('says each cause once: a rule\'s findings that say the same thing share one row naming their objects (the example snapshot)', async () => {
    const markdown = renderMarkdown(await exampleClusterReport())
    const rows = markdown.split('\n').filter((line) => line.includes('`cluster/nodeport-addresses` |'))
    assert.equal(rows.length, 1)
    assert.match(rows[0], /^\| <a id="warnings-cluster-nodeport-addresses"><\/a>`cluster\/nodeport-addresses` \| `-n dns service\/coredns-external`, `-n ingress-nginx service\/ingress-nginx-controller`, `-n monitoring service\/grafana` \| nodePortAddresses is unset /)
    // Findings of one rule that say different things keep a row each; the rule's first row has its anchor.
    assert.deepEqual(
      markdown.split('\n').filter((line) => line.includes('`cluster/ipvs-lb-hijack` |')).map((line) => line.slice(0, line.indexOf('` |') + 3)),
      ['| <a id="warnings-cluster-ipvs-lb-hijack"></a>`cluster/ipvs-lb-hijack` |', '| `cluster/ipvs-lb-hijack` |'],
    )
  })

  it('says each cause once: a plan step made from findings links to them, and the step holds what to do (the example snapshot)', async () => {
    const markdown = renderMarkdown(await exampleClusterReport())
    const once = (text: string) => assert.equal(markdown.split(text).length - 1, 1, text)
    // The findings' messages are in the findings tables only, the remediation lines in the fix steps only.
    once('nodePortAddresses is unset and this LoadBalancer Service uses NodePorts')
    // The two pings' messages end alike: the first ping's row says it.
    once('In IPVS mode kube-ipvs0 answers them')
    assert.ok(markdown.includes('| `-n monitoring cronjob/dns-canary` | 1 ping(s) of a Service\'s ClusterIP in its template: container canary, command: ping 10.233.0.3 (Service kube-system/coredns, 10.233.0.3). |'))
    once('It sets spec.externalIPs (10.10.10.50).')
    once('kube-proxy 1.32.5 has nftables mode before GA (1.33)')
    once('flannel 0.28.9 runs in iptables mode')
    once('Replace each ping of a Service with a check of the port it serves')
    once('Look for others the templates do not spell out')
    once('Set nodePortAddresses in the new configuration')
    once('Upgrade flannel to 0.25+')
    // A fix step: its title, where the findings are, the rule and its objects, what to do, and its own check.
    const step = markdown.slice(markdown.indexOf('### 9. '), markdown.indexOf('### 10. '))
    assert.equal(step, [
      '### 9. Fix: NodePorts stay on the addresses clients use',
      '',
      '*configure* · What it found: [Warnings, `cluster/nodeport-addresses`](#warnings-cluster-nodeport-addresses).',
      '',
      'Answers: `cluster/nodeport-addresses`. Applies to: `-n dns service/coredns-external`; `-n ingress-nginx service/ingress-nginx-controller`; `-n monitoring service/grafana`.',
      '',
      String.raw`- Set nodePortAddresses in the new configuration: \["0.0.0.0/0"\] (and "::/0") keeps today's behaviour; or list the CIDRs clients use.`,
      '',
      '**Verify**',
      '',
      '- `kpx-check cluster` reports cluster/nodeport-addresses passed',
      '',
      '',
    ].join('\n'))
    // Every fix step names its rule and links to an anchor the document has.
    const fixes = markdown.split('\n### ').filter((section) => /^\d+\. Fix: /.test(section))
    assert.equal(fixes.length, 6)
    for (const fix of fixes) {
      const [, rule, anchor] = /What it found: \[Warnings, `([^`]+)`\]\(#([a-z\d-]+)\)/.exec(fix)!
      assert.ok(markdown.includes(`<a id="${anchor}"></a>\`${rule}\``), fix)
    }
  })

  it('sets commands between backticks in kpx-check\'s own text as code, and escapes the rest as prose', () => {
    assert.equal(String(proseWithCode('Run `kubectl get nodes -o wide` and then `kpx-check cluster`.')), 'Run `kubectl get nodes -o wide` and then `kpx-check cluster`.')
    assert.equal(String(proseWithCode('a `<b>` *c* `d``e` f')), String.raw`a ${'`<b>`'} \*c\* \`d\`\`e\` f`)
    assert.equal(String(proseWithCode('no code here: *x*')), String.raw`no code here: \*x\*`)
  })

  it('shows command output (nft -c\'s error) as a block under its first line, tabs as the terminal showed them, and subjects as kubectl names them', async () => {
    const report = await exampleClusterReport()
    const [first] = report.plan.steps
    first.why = 'nft -c rejected the ruleset: /dev/stdin:14:3-22: Error: Could not process rule\n\t\tfib daddr type local\n\t\t^^^^^^^^^^^^^^^^^^^^'
    first.subjects = [{kind: 'DaemonSet', name: 'kube-system/calico-node'}, {kind: 'Cluster', name: 'cluster'}]
    const text = renderMarkdown(report)
    assert.ok(text.includes(`*${first.phase}* · nft -c rejected the ruleset: /dev/stdin:14:3-22: Error: Could not process rule\n\n${'```'}text\nfib daddr type local\n^^^^^^^^^^^^^^^^^^^^\n${'```'}\n`), text)
    assert.ok(text.includes('Applies to: `-n kube-system daemonset/calico-node`; the cluster.'), text)
  })
})

/** Every string the Markdown report shows from a cluster, a node or a file, made hostile. */
const HOSTILE = [
  FENCE_BREAKER,
  '| cell | split |',
  '<script>alert(1)</script>',
  '[x](javascript:alert(1))',
  '![img](http://x)',
  '`one` ``two`` ```three```',
  'https://evil.example www.evil.example ops@evil.example',
  '**bold** _em_ ~~gone~~ &lt;b&gt; $x$',
  '\u001B]8;;https://evil.example\u0007link\u001B]8;;\u0007',
].join(' ')
/** A rule id that would close an HTML attribute and open a tag. */
const HOSTILE_RULE = 'evil/"><img src=x onerror=alert(1)>'
/** HOSTILE as a reader sees it: line breaks and controls shown as escapes, nothing else changed. */
const HOSTILE_SHOWN = HOSTILE.replaceAll('\n', String.raw`\n`).replaceAll('\u001B', String.raw`\x1B`).replaceAll('\u0007', String.raw`\x07`)
/** HOSTILE as a command shows it: its line breaks kept, its other controls visible. */
const HOSTILE_IN_COMMAND = HOSTILE.replaceAll('\u001B', String.raw`\x1B`).replaceAll('\u0007', String.raw`\x07`)

/** The example cluster's report, with HOSTILE in every string the report takes from outside kpx-check. */
async function hostileReport(): Promise<Report> {
  const report = await exampleClusterReport()
  const names = new Map(report.nodes.map((node, index) => [node.name, `${HOSTILE} ${index}`]))
  const rename = (name: string) => names.get(name) ?? name
  for (const node of report.nodes) {
    node.name = rename(node.name)
    node.os.prettyName = HOSTILE
    node.kernelRelease = HOSTILE
    node.proxyMode = {running: null, evidence: HOSTILE}
  }

  for (const finding of report.findings) {
    finding.subject.name = rename(finding.subject.name)
    finding.message = `${HOSTILE} ${finding.message}`
  }

  for (const group of report.plan.nodeGroups) {
    group.name = HOSTILE
    group.nodes = group.nodes.map((node) => rename(node))
  }

  for (const wave of report.plan.waves) {
    wave.name = HOSTILE
    wave.canary = wave.canary && rename(wave.canary)
    wave.undecided = wave.undecided.map(({node, rules}) => ({node: rename(node), rules}))
  }

  // A rule id is a rule file's (--rules): the anchor made of it is letters, digits and dashes whatever it holds.
  const renamed = report.plan.steps.find((step) => step.finding?.status === 'fail')!.finding!
  for (const finding of report.findings.filter(({rule}) => rule === renamed.rule)) finding.rule = HOSTILE_RULE
  renamed.rule = HOSTILE_RULE
  for (const step of report.plan.steps) {
    step.title = `${HOSTILE} ${step.title}`
    step.why = HOSTILE
    step.actions = [HOSTILE, '1. # > - a line of its own']
    step.verify = [HOSTILE]
    for (const subject of step.subjects) subject.members = subject.members?.map((member) => rename(member))
    if (step.commands.length > 0) step.commands.push(HOSTILE, '```', '~~~')
  }

  report.cluster!.context = HOSTILE
  report.cluster!.unreadable = [HOSTILE]
  report.plan.summary = HOSTILE
  report.plan.references = [
    {title: HOSTILE, url: 'https://kubernetes.io/blog/2025/02/28/nftables-kube-proxy/'},
    {title: 'not a link', url: 'javascript:alert(1)'},
  ]
  return report
}

describe('a hostile report read back by a GFM parser', () => {
  it('has no HTML, no image and no link but the https sources, and every fence closes where kpx-check put it', async () => {
    const report = await hostileReport()
    const tree = parse(renderMarkdown(report))
    const nodes = [...nodesOf(tree)]
    const ofType = (type: Nodes['type']) => nodes.filter((node) => node.type === type)

    for (const type of ['image', 'imageReference', 'linkReference', 'definition', 'footnoteReference', 'footnoteDefinition', 'delete', 'thematicBreak', 'blockquote'] as const) {
      assert.deepEqual(ofType(type), [], type)
    }

    // The only HTML: kpx-check's anchors, one per rule and section, with ids of letters, digits and dashes (the hostile rule's too).
    const html = ofType('html').map((node) => node.type === 'html' && node.value)
    const anchors = html.filter((value) => value !== '</a>').map((value) => /^<a id="([a-z\d-]+)">$/.exec(String(value))?.[1])
    assert.equal(html.length, 2 * anchors.length)
    assert.ok(anchors.includes('warnings-evil-img-src-x-onerror-alert-1'), String(anchors))
    // The links: the https sources, and the plan steps made from findings, to anchors in the document.
    const links = ofType('link').flatMap((node) => (node.type === 'link' ? [[node.url, shown(node)]] : []))
    assert.deepEqual(links.filter(([url]) => !url.startsWith('#')), [['https://kubernetes.io/blog/2025/02/28/nftables-kube-proxy/', HOSTILE_SHOWN]])
    const inDocument = links.filter(([url]) => url.startsWith('#'))
    // One per step made from findings, and one per rule another step answers (the probe step's 23, rollback readiness' 2).
    assert.equal(inDocument.length, report.plan.steps.reduce((count, step) => count + (step.finding ? 1 : step.rules.length), 0))
    for (const [url] of inDocument) assert.ok(anchors.includes(url.slice(1)), url)
    // One fenced block per command list and undo list, holding exactly those commands: no line of theirs closes it.
    // Text of several lines (the step's why and an action here, nft's output in real reports) keeps its first line
    // as a sentence and the others as a text block, which nothing in them closes either.
    const afterFirstLine = ['text', HOSTILE_IN_COMMAND.slice(HOSTILE_IN_COMMAND.indexOf('\n') + 1)]
    const sh = (lines: string[]) => (lines.length > 0 ? [['sh', lines.map((line) => (line === HOSTILE ? HOSTILE_IN_COMMAND : line)).join('\n')]] : [])
    // A step made from findings shows no why (it links to them), and a way to find out no action either (its action is their message).
    const prose = (step: PlanStep) => (step.finding ? (step.finding.status === 'fail' ? [afterFirstLine] : []) : [afterFirstLine, afterFirstLine])
    assert.deepEqual(
      ofType('code').map((node) => node.type === 'code' && [node.lang, node.value]),
      report.plan.steps.flatMap((step) => [...prose(step), ...sh(step.commands), ...sh(step.undo)]),
    )
    // The headings are kpx-check's: the title, the sections, one per step; each step title is one heading.
    assert.equal(ofType('heading').length, 1 + ['Change summary', 'Checklist', 'Warnings', 'Unknown', 'kube-proxy on the nodes', 'Node groups', 'Waves', 'Plan', 'Sources'].length + report.plan.steps.length)
    assert.ok(ofType('heading').some((node) => shown(node) === `1. ${HOSTILE_SHOWN} ${report.plan.steps[0].title.slice(HOSTILE.length + 1)}`))
    // Emphasis and strong text are kpx-check's words only.
    assert.ok(ofType('emphasis').every((node) => (PLAN_PHASES as readonly string[]).includes(shown(node))))
    const summary = ['Scope:', 'Waves:', 'Expected impact:', 'How long:', 'Rollback:', 'Open preconditions:', 'nftables']
    assert.deepEqual(new Set(ofType('strong').map((node) => shown(node))), new Set(['INCOMPLETE', 'kubeadm', 'ipvs', 'Verify', 'Undo', ...summary]))
  })

  it('keeps every table row to its columns and every hostile value in one cell or code span, shown as it was', async () => {
    const nodes = [...nodesOf(parse(renderMarkdown(await hostileReport())))]
    const tables = nodes.filter((node) => node.type === 'table')
    assert.deepEqual(
      tables.map((table) => table.children.map((row) => row.children.length)),
      tables.map(({children: [header, ...rows]}) => [header, ...rows].map(() => header.children.length)),
    )
    const [[, group], [, wave]] = tables.slice(-2).map((table) => table.children)
    assert.deepEqual(
      group.children.map((cell) => shown(cell)),
      [HOSTILE_SHOWN, `${HOSTILE_SHOWN} 0, ${HOSTILE_SHOWN} 1, ${HOSTILE_SHOWN} 2`, '–', '–', '–'],
    )
    // The workers' wave: named, no canary (no node is ready) and its two unchecked nodes, each in its cell.
    assert.deepEqual(
      wave.children.map((cell) => shown(cell)),
      ['1', HOSTILE_SHOWN, '2', 'none: no node is ready', '0', '–', `${HOSTILE_SHOWN} 1, ${HOSTILE_SHOWN} 2`],
    )
    const cluster = nodes.find((node) => node.type === 'paragraph' && shown(node).startsWith('Cluster '))!
    assert.equal(shown(cluster), `Cluster ${HOSTILE_SHOWN} · platform kubeadm · Kubernetes 1.32.5 · kube-proxy mode ipvs (DaemonSet kube-system/kube-proxy v1.32.5)`)
    assert.ok([...nodesOf(cluster)].some((node) => node.type === 'inlineCode' && node.value === HOSTILE_SHOWN))
  })
})
