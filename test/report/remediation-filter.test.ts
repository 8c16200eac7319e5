/**
 * Advice for the cluster at hand: the example snapshot (kubeadm, flannel, Kubernetes 1.32.5, IPVS) is told
 * neither another platform's fix, nor another version's, nor another CNI's. The rule fixtures show each
 * conditional line kept on its own platform or version, and kept where the platform could not be read
 * (rule-fixture-expectations.ts), or where it is "unknown" (below); test/planner/recipe-lines.test.ts does the same for the recipes' CNI lines.
 */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {evaluateRules} from '../../src/engine/evaluate.js'
import {FactSet} from '../../src/facts/fact-set.js'
import {renderMarkdown} from '../../src/report/markdown.js'
import {renderText} from '../../src/report/text.js'
import {loadRuleCatalog} from '../../src/services/rule-catalog.js'
import {reported} from '../helpers/evaluation.js'
import {exampleClusterReport} from '../helpers/reports.js'

const report = await exampleClusterReport()
const outputs = {text: renderText(report), markdown: renderMarkdown(report)}

describe('remediation for the detected platform, version, CNI and mode', () => {
  it('keeps Huawei CCE\'s annotation for a shared address on CCE and where kpx-check could not name the platform, not on kubeadm', async () => {
    const hijack = (await loadRuleCatalog([])).filter((rule) => rule.id === 'cluster/ipvs-lb-hijack')
    const onPlatform = (platform: string) => {
      const cluster = new FactSet().set('cluster.proxyMode', 'ipvs').set('cluster.platform', platform)
      const facts = new FactSet(cluster).set('service.type', 'LoadBalancer').set('service.name', 'web/shop').set('service.addresses', ['203.0.113.7']).set('service.sharedWith', ['Ingress web/shop']).set('service.portCount', 1)
      const [finding] = reported(evaluateRules(hijack, [{kind: 'Service', namespace: 'web', name: 'shop', facts}]))
      assert.equal(finding.status, 'fail')
      return finding.remediation.some((line) => line.startsWith('On Huawei CCE, the annotation kubernetes.io/elb.pass-through'))
    }

    assert.deepEqual(['cce', 'unknown', 'kubeadm', 'eks'].map((platform) => onPlatform(platform)), [true, true, false, false])
  })

  for (const [format, output] of Object.entries(outputs)) {
    it(`leaves Huawei CCE's annotation out of a kubeadm cluster's ${format} report, where the shared-address advice stays`, () => {
      assert.match(output, /Test in-cluster access to the shared address/)
      assert.doesNotMatch(output, /Huawei CCE|elb\.pass-through/)
    })

    it(`leaves the 1.29–1.30 feature gate out of a 1.32.5 cluster's ${format} report, where the upgrade advice stays`, () => {
      assert.match(output, /Upgrade the control plane and kube-proxy to 1\.33\.6 or newer/)
      assert.doesNotMatch(output, /On 1\.29–1\.30|NFTablesProxyMode: true/)
    })

    it(`names no Calico backup or dataplane in a flannel cluster's ${format} plan, where flannel's rollback stays`, () => {
      assert.match(output, /flannel's own switch, if it was made: kubectl replace -f kube-flannel-cfg\.backup\.yaml/)
      assert.doesNotMatch(output, /calico-node-daemonset\.backup\.yaml|Calico (must move|on its iptables dataplane)/)
    })
  }
})
