/**
 * A snapshot holds only what the checks read, so it can be attached to a ticket: third-party
 * DaemonSets' secrets on their command lines and in their environment, and the keys of a ConfigMap
 * that are not read, reach neither `kpx-check snapshot` nor any report, while the result is the same
 * as on the same cluster without them.
 */
import assert from 'node:assert/strict'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {Report} from '../../src/contract/report.js'
import type {ClusterSnapshot, KubeObject} from '../../src/sources/cluster/snapshot.js'
import {loadScenario, type Scenario} from '../helpers/apiserver-scenario.js'
import {startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-snapshot-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

/** Every secret the hostile cluster holds, each a string that occurs nowhere else. */
const SECRETS = ['Hunter2-arg-value', 'PASS-db-7731', 'bearer-9f1c2e', 'abc-token-5521', 'env-secret-4410', 'felix-env-8832', 'etcd-pw-3390', 'kubeconfig-token-6612', 'flannel-cm-2274']

/** Flags of a database agent, and of a CNI's "extra args": values as separate arguments, in URLs, as --name=value. */
const HOSTILE_ARGS = ['--password', 'Hunter2-arg-value', '--db-url=postgres://u:PASS-db-7731@db', '--bearer', 'bearer-9f1c2e', '--token=abc-token-5521']
const HOSTILE_ENV = [
  {name: 'DB_PASSWORD', value: 'env-secret-4410'},
  // Calico's variables were once kept whole; only the two that name its dataplane are read.
  {name: 'FELIX_ETCDPASSWORD', value: 'felix-env-8832'},
]

/** Keys no check reads, added to the scenario's own ConfigMaps (beside the ones read). */
const HOSTILE_KEYS: Record<string, Record<string, string>> = {
  'cilium-config': {'etcd-config': 'endpoints:\n- https://etcd.kube-system:2379\nusername: cilium\npassword: etcd-pw-3390\n'},
  'kube-proxy': {'kubeconfig.conf': 'apiVersion: v1\nkind: Config\nusers:\n- name: default\n  user:\n    token: kubeconfig-token-6612\n'},
  'kube-flannel-cfg': {'backend-credentials': 'flannel-cm-2274'},
}

/** The ConfigMaps each scenario has, with the one key the checks read of each. */
const KEYS_KEPT: Record<string, Array<[string, string[]]>> = {
  'ipvs-metallb': [
    ['kube-proxy', ['config.conf']],
    ['kube-flannel-cfg', ['net-conf.json']],
  ],
  'cilium-kpr': [['cilium-config', ['kube-proxy-replacement']]],
}

type Raw = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** The scenario with secrets in every DaemonSet's containers and in every ConfigMap above. */
function hostile(name: string): Scenario {
  const scenario = structuredClone(loadScenario(name))
  for (const daemonSet of scenario.objects['/apis/apps/v1/daemonsets'] ?? []) {
    for (const container of (daemonSet as Raw).spec.template.spec.containers as Raw[]) {
      container.args = [...(container.args ?? []), ...HOSTILE_ARGS]
      container.env = [...(container.env ?? []), ...HOSTILE_ENV]
    }
  }

  for (const configMap of scenario.objects['/api/v1/configmaps'] ?? []) {
    (configMap as Raw).data = {...(configMap as Raw).data, ...HOSTILE_KEYS[configMap.metadata?.name ?? '']}
  }

  return scenario
}

interface Outputs {
  snapshot: string
  json: string
  text: string
  markdown: string
}

/** `kpx-check snapshot -o` and `kpx-check cluster` in JSON, text and Markdown, against the scenario over HTTPS. */
async function outputsOf(scenario: Scenario, label: string): Promise<Outputs> {
  const server = await startApiServer({scenario})
  try {
    const dir = mkdtempSync(join(workdir, `${label}-`))
    const kubeconfig = writeKubeconfig(dir, server)
    const file = join(dir, 's.json')
    const saved = await runCli(['snapshot', '--kubeconfig', kubeconfig, '-o', file])
    assert.equal(saved.code, 0, saved.stderr)
    const markdown = join(dir, 'report.md')
    const json = await runCli(['cluster', '--kubeconfig', kubeconfig, '--json', '--output', `md=${markdown}`])
    const text = await runCli(['cluster', '--kubeconfig', kubeconfig])
    assert.notEqual(json.code, 1, json.stderr)
    return {snapshot: readFileSync(file, 'utf8'), json: json.stdout, text: text.stdout, markdown: readFileSync(markdown, 'utf8')}
  } finally {
    await server.close()
  }
}

/** The report without its time and the test API server's address (a new port each run). */
const withoutTime = (json: string) => {
  const report = JSON.parse(json) as Report
  return {...report, generatedAt: '', cluster: report.cluster && {...report.cluster, server: ''}}
}
const resourcesOf = (snapshot: string) => (JSON.parse(snapshot) as ClusterSnapshot).resources

describe('kpx-check snapshot keeps only what the checks read', () => {
  for (const name of ['ipvs-metallb', 'cilium-kpr']) {
    it(`${name} with secrets in its DaemonSets and ConfigMaps: none of them in the snapshot or a report, the same result`, async () => {
      const [plain, withSecrets] = [await outputsOf(loadScenario(name), `${name}-plain`), await outputsOf(hostile(name), `${name}-hostile`)]
      for (const [output, text] of Object.entries(withSecrets)) {
        for (const secret of SECRETS) assert.ok(!text.includes(secret), `${output} holds ${secret}`)
      }

      // Not redacted but never collected: the flags, variables and keys are not there at all.
      for (const trace of ['--password', '--db-url', '--bearer', '--token', 'DB_PASSWORD', 'FELIX_ETCDPASSWORD', 'etcd-config', 'backend-credentials']) {
        assert.ok(!withSecrets.snapshot.includes(trace), `the snapshot names ${trace}`)
      }

      const keys = (resourcesOf(withSecrets.snapshot).configMaps as {items: Raw[]}).items.map((configMap) => [configMap.metadata.name, Object.keys(configMap.data)])
      assert.deepEqual(keys, KEYS_KEPT[name])

      assert.deepEqual(resourcesOf(withSecrets.snapshot), resourcesOf(plain.snapshot), 'the secrets change nothing that is kept')
      assert.deepEqual(withoutTime(withSecrets.json), withoutTime(plain.json), 'the same verdict, findings and plan')
    })
  }

  it('keeps the read flags of a command line, in either spelling, and what they say', async () => {
    const scenario = hostile('ipvs-metallb')
    const kubeProxy = (scenario.objects['/apis/apps/v1/daemonsets'] as KubeObject[]).find((daemonSet) => daemonSet.metadata?.name === 'kube-proxy') as Raw
    kubeProxy.spec.template.spec.containers[0].command = ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf', '--hostname-override=$(NODE_NAME)']
    kubeProxy.spec.template.spec.containers[0].args = ['--proxy-mode', 'iptables', '--password', 'Hunter2-arg-value', '--masquerade-all']
    const {snapshot, json} = await outputsOf(scenario, 'flags')
    const kept = (resourcesOf(snapshot).daemonSets as {items: Raw[]}).items.find((daemonSet) => daemonSet.metadata.name === 'kube-proxy')!
    assert.deepEqual(kept.spec.template.spec.containers[0].args, ['--config=/var/lib/kube-proxy/config.conf', '--proxy-mode=iptables', '--masquerade-all'])
    const report = JSON.parse(json) as Report
    // The flag wins over the ConfigMap's ipvs, and masqueradeAll must be carried over to nftables mode.
    assert.equal(report.cluster?.proxyMode, 'iptables')
    const carryOver = report.findings.find((finding) => finding.rule === 'cluster/config-carry-over')!
    assert.deepEqual(carryOver.evidence['kubeProxy.carryOver'], ['iptables.masqueradeAll: true'])
  })
})
