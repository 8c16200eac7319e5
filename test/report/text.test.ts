/** The text report on a terminal: prose wrapped to its width, commands and the node table never. */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {renderText, wrapLine} from '../../src/report/text.js'
import {exampleClusterReport, exampleNodeReport} from '../helpers/reports.js'

describe('wrapping to the terminal', () => {
  it('breaks a line at spaces, its continuations under the text after its indent and mark', () => {
    assert.equal(wrapLine('     → Move to Ubuntu 22.04 or newer, or install the HWE kernel', 30), ['     → Move to Ubuntu 22.04 or', '       newer, or install the', '       HWE kernel'].join('\n'))
    assert.equal(wrapLine('  12. Fix the kernel first', 16), ['  12. Fix the', '      kernel', '      first'].join('\n'))
    assert.equal(wrapLine('short line', 30), 'short line')
  })

  it('keeps a word longer than the line whole, and does not count colour codes', () => {
    assert.equal(wrapLine('see https://github.com/kubernetes/kubernetes/issues/139515 now', 20), ['see', 'https://github.com/kubernetes/kubernetes/issues/139515', 'now'].join('\n'))
    assert.equal(wrapLine('\u001B[2mdim words here\u001B[22m', 14), '\u001B[2mdim words here\u001B[22m')
  })

  it('wraps every prose line of a report to the width, and leaves commands and the node table as they are', async () => {
    const report = await exampleClusterReport()
    const whole = renderText(report).split('\n')
    const wrapped = renderText(report, {width: 60}).split('\n')
    const commandLines = report.plan.steps.flatMap((step) => [...step.commands, ...step.undo]).flatMap((command) => command.split('\n'))
    assert.ok(commandLines.some((line) => line.length > 60), 'the example has commands wider than the terminal')
    const isCommand = (line: string) => commandLines.some((command) => command.length > 0 && line.endsWith(command))
    for (const command of commandLines) assert.ok(wrapped.some((line) => line.endsWith(command)), command)
    const table = whole.slice(whole.indexOf('Nodes') + 1, whole.indexOf('Nodes') + 2 + report.nodes.length)
    for (const row of table) assert.ok(wrapped.includes(row), row)
    // A line of one word after its indent and mark may be longer: a word is never broken.
    const breakable = (line: string) => line.replace(/^ *(?:[→✓✗!?i~] |\d+\. )?/, '').includes(' ')
    const tooLong = wrapped.filter((line) => line.length > 60 && !isCommand(line) && !table.includes(line) && breakable(line))
    assert.deepEqual(tooLong, [])
    assert.ok(wrapped.length > whole.length)
    assert.equal(wrapped.join(' ').replaceAll(/\s+/g, ' '), whole.join(' ').replaceAll(/\s+/g, ' '), 'nothing lost, nothing added but line breaks')
  })
})

describe('the long form says each cause once', () => {
  it('a plan step made from findings names its rule and objects and points to them; their message and fix are said with the findings (the example snapshot)', async () => {
    const text = renderText(await exampleClusterReport())
    const count = (part: string) => text.split(part).length - 1
    for (const remediation of [
      '→ Replace each ping of a Service with a check of the port it serves',
      '→ Look for others the templates do not spell out',
      '→ Set nodePortAddresses in the new configuration',
      '→ Upgrade flannel to 0.25+',
      '→ Upgrade the control plane and kube-proxy to 1.33.6 or newer',
    ]) {
      assert.equal(count(remediation), 1, remediation)
    }

    // Said once: the Services' shared message on one line naming them, the pings' shared last sentence on the first ping's line.
    assert.equal(count('nodePortAddresses is unset and this LoadBalancer Service uses NodePorts'), 1)
    assert.ok(text.includes('\n    Service dns/coredns-external, ingress-nginx/ingress-nginx-controller, monitoring/grafana: nodePortAddresses is unset '))
    assert.equal(count('In IPVS mode kube-ipvs0 answers them'), 1)
    assert.ok(text.includes('\n    CronJob monitoring/dns-canary: 1 ping(s) of a Service\'s ClusterIP in its template: container canary, command: ping 10.233.0.3 (Service kube-system/coredns, 10.233.0.3).\n'))
    assert.equal(count('It sets spec.externalIPs (10.10.10.50).'), 1)
    assert.equal(count('kube-proxy 1.32.5 has nftables mode before GA (1.33)'), 1)
    const lines = text.split('\n')
    const step = lines.indexOf('  2. Fix: No workload pings a Service\'s ClusterIP [prerequisites]')
    assert.deepEqual(lines.slice(step, step + 3), [
      '  2. Fix: No workload pings a Service\'s ClusterIP [prerequisites]',
      '     cluster/clusterip-ping on Deployment legacy/billing-worker; CronJob monitoring/dns-canary: what it found and what to do are under Warnings above.',
      '     ✓ `kpx-check cluster` reports cluster/clusterip-ping passed',
    ])
    // A wave names its unchecked nodes held back by the same checks together, and a few of those checks.
    assert.ok(lines.includes('     → Not checked, probe before this wave: node1.taikang1.local, node2.taikang1.local (node/ipvs-other-users, node/nf-tables-kernel, verify/iptables-leftovers and 7 more).'))
    assert.equal(count('node1.taikang1.local (node/'), 0)
    // Each fix step names its rule.
    const fixes = lines.flatMap((line, index) => (/^ {2}\d+\. Fix: /.test(line) ? [lines[index + 1]] : []))
    assert.deepEqual(fixes.map((line) => line.trim().split(' ', 1)[0]), ['cluster/clusterip-ping', 'cluster/external-ips', 'cluster/ipvs-lb-hijack', 'cluster/kubernetes-version', 'cluster/cni-version', 'cluster/nodeport-addresses'])
  })

  it('keeps a remediation line that only some nodes call for said for those nodes, under the finding (the example bundles)', async () => {
    const text = renderText(await exampleNodeReport())
    const lines = text.split('\n')
    const rule = lines.findIndex((line) => line.startsWith('  ✗ node/kernel-version'))
    const next = lines.findIndex((line, index) => index > rule && /^ {0,2}\S/.test(line))
    const fix = lines.slice(rule, next).filter((line) => line.startsWith('      → '))
    assert.deepEqual(fix, [
      '      → For Red Hat Enterprise Linux 8.10 (Ootpa), kernel 4.18.0-553.el8_10.x86_64 (rhel8-worker-07.corp.example): Move to RHEL 9 or newer (kernel 5.14); RHEL 8\'s 4.18 kernel lacks the backports nftables mode needs.',
      '      → Keep this node on iptables or IPVS mode until then: kube-proxy supports mixed modes, one node at a time.',
      '      → Expert escape hatch, not recommended: `KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK=1` in kube-proxy\'s environment skips the check for kernels with backports. If a feature is missing, the first rule sync fails and the node is left with no Service rules at all.',
      '      → For Ubuntu 20.04.4 LTS, kernel 5.4.0-204-generic (ip-10-0-1-23): Move to Ubuntu 22.04 or newer, or install the HWE kernel on 20.04 (linux-generic-hwe-20.04, 5.15).',
    ])
    assert.ok(lines.includes('     node/kernel-version on Node ip-10-0-1-23, rhel8-worker-07.corp.example: what it found and what to do are under Blockers above.'))
    assert.equal(text.split('Move to RHEL 9 or newer').length - 1, 1)
  })
})
