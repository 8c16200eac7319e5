import assert from 'node:assert/strict'
import {appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import type {GatedFinding} from '../../src/contract/finding.js'
import type {NodeReport, PlanStep, Report} from '../../src/contract/report.js'
import type {Component} from '../../src/derive/components.js'
import type {RulePlan} from '../../src/planner/plan-input.js'
import {buildPlan} from '../../src/planner/plan.js'
import {recipeSteps} from '../../src/planner/recipes.js'
import {readBuildManifest} from '../../src/services/build-manifest.js'
import {lintRecipes, loadRecipes, recipeFiles} from '../../src/services/recipe-catalog.js'
import {BUILTIN_PLATFORMS_DIR} from '../../src/util/paths.js'
import {type Fault, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'
import {NODE_RULES, SWITCH_CHECK_RULES} from '../helpers/node-rules.js'
import {KUBEADM_KUBE_PROXY, KUBEADM_SUMMARY} from '../helpers/plan-inputs.js'

const recipes = await loadRecipes()

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-plan-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

/** `kpx-check cluster --json` against a scenario served by the test API server. */
async function planOf(scenario: string, args: string[] = [], faults: Fault[] = []): Promise<Report> {
  const server = await startApiServer({scenario, faults})
  try {
    const kubeconfig = writeKubeconfig(mkdtempSync(join(workdir, `${scenario}-`)), server)
    const {stdout, stderr} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--json', ...args])
    assert.ok(stdout.startsWith('{'), stderr)
    return JSON.parse(stdout) as Report
  } finally {
    await server.close()
  }
}

const step = (report: Report, id: string): PlanStep => {
  const found = report.plan.steps.find((candidate) => candidate.id === id)
  assert.ok(found, `no step ${id} in ${report.plan.steps.map((candidate) => candidate.id).join(', ')}`)
  return found
}

const PHASES = ['prerequisites', 'prepare-cni', 'configure', 'canary', 'rollout', 'verify', 'cleanup', 'rollback']

describe('the migration plan, per platform', () => {
  it('EKS in IPVS mode with an old VPC CNI: CNI upgrade first, the add-on switch, IPVS cleanup, rollback to ipvs', async () => {
    const report = await planOf('eks-ipvs-old-vpc-cni', ['--target-version', '1.36'])
    assert.equal(report.plan.platform, 'eks')
    const ids = report.plan.steps.map((candidate) => candidate.id)
    assert.deepEqual(
      ids.map((id) => PHASES.indexOf(id.split('/', 1)[0])),
      ids.map((id) => PHASES.indexOf(id.split('/', 1)[0])).toSorted((a, b) => a - b),
      'steps come in phase order',
    )
    const cni = step(report, 'prepare-cni/cluster-cni-version')
    assert.deepEqual(cni.subjects, [{kind: 'DaemonSet', name: 'kube-system/aws-node'}])
    assert.ok(cni.actions.some((action) => action.includes('v1.23.0')))
    // The add-on's switch restarts kube-proxy on every node at once, and no node was checked: left out, saying why.
    const setMode = step(report, 'configure/set-mode')
    assert.deepEqual(setMode.commands, [])
    assert.match(setMode.actions.join(' '), /^Not yet: this restarts kube-proxy on every node at once, and ip-/)
    assert.ok(setMode.undo.some((command) => command.includes(`aws eks update-addon --cluster-name "$CLUSTER" --addon-name kube-proxy --configuration-values '{"mode":"ipvs"}'`)))
    assert.equal(setMode.undo[0], ['CLUSTER=my-cluster   # your EKS cluster name', ': "${CLUSTER:?set CLUSTER to your EKS cluster name}"'].join('\n'), 'each step sets and checks CLUSTER')
    assert.ok(step(report, 'rollback/rollback').commands.some((command) => command.includes(`'{"mode":"ipvs"}'`)))
    assert.ok(step(report, 'cleanup/cleanup-ipvs').commands.includes('ipvsadm -Ln'))
    assert.ok(step(report, 'verify/verify-nodes').commands.includes('kpx-check verify cluster --node-probe exec'))
    assert.ok(!ids.includes('configure/hold-restarts'), 'the add-on owns the DaemonSet: no hand edits')
    assert.match(report.plan.deadline!, /deprecated in Kubernetes 1\.36 .* migrate before upgrading to 1\.40/)
  })

  it('kubeadm on RHEL 8: the kernel fix names the node group, then Calico, the ConfigMap switch and one canary node', async () => {
    const report = await planOf('kubeadm-rhel8')
    assert.equal(report.plan.platform, 'kubeadm')
    assert.deepEqual(report.plan.nodeGroups.map((group) => [group.name, group.nodes.length, group.blockers]), [
      ['Red Hat Enterprise Linux 8.10 (Ootpa), kernel 4.18.0-553.el8_10.x86_64', 3, ['node/kernel-version']],
    ])
    const kernel = step(report, 'prerequisites/node-kernel-version')
    assert.deepEqual(kernel.subjects, [{kind: 'NodeGroup', name: 'Red Hat Enterprise Linux 8.10 (Ootpa), kernel 4.18.0-553.el8_10.x86_64', members: ['k8s-cp-01', 'k8s-worker-01', 'k8s-worker-02']}])
    assert.equal(step(report, 'prepare-cni/cluster-cni-version').subjects[0].name, 'kube-system/calico-node')
    assert.ok(step(report, 'configure/hold-restarts').commands.some((command) => command.includes(`kubectl -n kube-system patch daemonset kube-proxy --type=merge -p '{"spec":{"updateStrategy":{"type":"OnDelete"}}}'`)))
    assert.equal(
      step(report, 'configure/set-mode').commands.at(-1),
      ['# In config.conf, set:', '#   mode: nftables', '#   nodePortAddresses:', '#     - 0.0.0.0/0', '#     - ::/0'].join('\n'),
      'k8s-worker-02 has two InternalIPs: the new config keeps NodePorts on all of them (cluster/nodeport-addresses)',
    )
    assert.ok(step(report, 'configure/persist-mode').commands[0].includes('kubeadm'))
    // Every node is blocked (kernel 4.18) and none was checked by a node shell: no canary to switch.
    const canary = step(report, 'canary/canary-node')
    assert.deepEqual(canary.commands, [])
    assert.match(canary.actions.join(' '), /No node is ready to switch/)
    assert.ok(!report.plan.steps.some((candidate) => candidate.id === 'cleanup/cleanup-ipvs'), 'iptables mode leaves no IPVS state')
    assert.ok(step(report, 'prepare-cni/calico-lockstep').commands.includes('kubectl -n kube-system set env daemonset/calico-node -c calico-node FELIX_NFTABLESMODE=Enabled'))
    assert.match(step(report, 'configure/hold-restarts').commands.at(-1)!, / owners=' kube-system\/kube-proxy kube-system\/calico-node ' /, 'calico-node restarts with kube-proxy on each node')
    assert.ok(step(report, 'cleanup/restore-calico-updates'))
    assert.match(report.plan.summary, /^Fix what blocks first \(.*node\/kernel-version.*\)\. kubeadm: /)
  })

  it('k3s, RKE2, AKS and OpenShift SDN get their own switch', async () => {
    const k3s = await planOf('k3s')
    assert.ok(step(k3s, 'configure/set-mode').commands.some((command) => command.startsWith('# On every server and agent, in /etc/rancher/k3s/config.yaml:\n')))
    const rke2 = await planOf('rke2-canal')
    assert.ok(step(rke2, 'rollback/rollback').commands.some((command) => command.includes('rke2-agent')))
    assert.equal(step(rke2, 'prepare-cni/cluster-cni-version').subjects[0].name, 'kube-system/rke2-canal')
    const aks = await planOf('aks')
    assert.ok(step(aks, 'configure/set-mode').undo.some((command) => command.startsWith('az aks update')))
    assert.ok(step(aks, 'prerequisites/enable-preview').commands.some((command) => command.includes('KubeProxyConfigurationPreview')))
    const sdn = await planOf('openshift-sdn')
    assert.deepEqual(
      sdn.plan.steps.filter((candidate) => candidate.rules.length === 0).map((candidate) => candidate.id),
      ['configure/migrate-ovn'],
    )
  })

  it('Nodes forbidden: one step finds out what the Nodes are, for every node rule; the cluster rules keep their own', async () => {
    const report = await planOf('kubeadm-calico', [], [{path: '/api/v1/nodes', kind: 'forbidden'}])
    const listNodes = step(report, 'prerequisites/list-nodes')
    // The checks after the switch too: with no Node listed, none is seen running a mode, so none can be judged.
    assert.deepEqual(listNodes.rules, [...NODE_RULES, ...SWITCH_CHECK_RULES])
    assert.deepEqual(
      report.plan.steps.filter((candidate) => candidate.title.startsWith('Find out')).map((candidate) => candidate.id),
      [
        'prerequisites/cluster-platform-switch',
        'prerequisites/list-nodes',
        'prerequisites/cluster-eks-bottlerocket',
        'prerequisites/cluster-endpoints-kernel',
        'prerequisites/cluster-k3s-nft-json',
        'prerequisites/cluster-windows-nodes',
      ],
    )
  })

  it('nothing to migrate: no steps, said plainly', async () => {
    for (const scenario of ['gke-dataplane-v2', 'cilium-kpr']) {
      const report = await planOf(scenario)
      assert.deepEqual(report.plan.steps, [])
      assert.match(report.plan.summary, /^Nothing to migrate: this cluster runs no kube-proxy/)
    }
  })
})

describe('the plan from facts', () => {
  const summary = KUBEADM_SUMMARY
  const kubeProxy = KUBEADM_KUBE_PROXY

  it('carries the iptables/ipvs settings that have an nftables counterpart into the new config', () => {
    const carryOver = [
      {field: 'iptables.masqueradeAll', value: true},
      {field: 'ipvs.syncPeriod', value: '60s'},
      {field: 'ipvs.scheduler', value: 'lc'},
    ]
    const plan = buildPlan({findings: [], nodes: [], rulePlans: new Map(), cluster: {summary, kubeProxy: {...kubeProxy, mode: 'ipvs', carryOver}, cnis: [], recipes}})
    const setMode = plan.steps.find((candidate) => candidate.id === 'configure/set-mode')!
    assert.equal(setMode.commands.at(-1), ['# In config.conf, set:', '#   mode: nftables', '#   nftables:', '#     masqueradeAll: true', '#     syncPeriod: 60s'].join('\n'))
    assert.ok(plan.steps.some((candidate) => candidate.id === 'cleanup/cleanup-config'), 'the old sections are dropped once all nodes switched')
  })

  it('Calico from the operator switches through its Installation; its pods are not restarted by hand', () => {
    const calico: Component = {name: 'calico', role: 'cni', daemonSet: {namespace: 'calico-system', name: 'calico-node'}, image: 'quay.io/calico/node:v3.30.7', dataplane: 'Iptables', replacesKubeProxy: false}
    const plan = buildPlan({findings: [], nodes: [], rulePlans: new Map(), cluster: {summary: {...summary, proxyMode: 'iptables'}, kubeProxy, cnis: [calico], recipes}})
    const ids = new Set(plan.steps.map((candidate) => candidate.id))
    assert.ok(ids.has('prepare-cni/calico-operator') && !ids.has('prepare-cni/calico-lockstep'))
    assert.match(plan.steps.find((candidate) => candidate.id === 'configure/hold-restarts')!.commands.at(-1)!, / owners=' kube-system\/kube-proxy ' /)
  })

  it('an old kube-proxy (< 1.29) leaves its nftables tables behind on rollback: the plan says how to delete them', () => {
    const plan = buildPlan({findings: [], nodes: [], rulePlans: new Map(), cluster: {summary: {...summary, proxyMode: 'iptables'}, kubeProxy: {...kubeProxy, version: '1.28.15'}, cnis: [], recipes}})
    assert.deepEqual(plan.steps.find((candidate) => candidate.id === 'rollback/rollback-old-kube-proxy')?.commands, ['nft delete table ip kube-proxy', 'nft delete table ip6 kube-proxy'])
  })

  it('Nodes that could not be listed: their rules share one step, with the reason and the RBAC to grant', () => {
    const unknown = (rule: string, severity: GatedFinding['severity'], message: string): GatedFinding => ({
      rule,
      title: `${rule} holds`,
      status: 'unknown',
      severity,
      confidence: 'verified',
      subject: {kind: 'Cluster', name: 'cluster'},
      message,
      evidence: {},
      remediation: [],
      reason: 'permission-denied',
      references: [],
    })
    const findings = [
      unknown('node/kernel-version', 'blocker', 'No Node could be listed: Cannot tell the kernel version.'),
      unknown('node/conntrack-liberal', 'warning', 'No Node could be listed: Cannot tell whether the conntrack workaround is in use.'),
      unknown('cluster/windows-nodes', 'warning', 'Cannot list nodes.'),
    ]
    const rulePlans = new Map<string, RulePlan>([
      ['node/kernel-version', {phase: 'prerequisites', subjectKind: 'Node'}],
      ['node/conntrack-liberal', {phase: 'configure', subjectKind: 'Node'}],
      ['cluster/windows-nodes', {phase: 'prerequisites', subjectKind: 'Cluster'}],
    ])
    const unlistedNodes = {reason: 'permission-denied', detail: 'nodes is forbidden: User "kpx" cannot list resource "nodes" (needs: list nodes (all namespaces))'} as const
    const plan = buildPlan({findings, nodes: [], rulePlans, cluster: {summary: {...summary, proxyMode: 'iptables'}, kubeProxy, unlistedNodes, cnis: [], recipes}})
    const [listNodes, windows, ...others] = plan.steps.filter((candidate) => candidate.rules.length > 0)
    assert.deepEqual(listNodes, {
      id: 'prerequisites/list-nodes',
      phase: 'prerequisites',
      title: 'Find out what the Nodes are: kpx-check could not list them (permission-denied)',
      why: '2 node check(s) have no node to run on, so their answer is not known yet: nodes is forbidden: User "kpx" cannot list resource "nodes" (needs: list nodes (all namespaces))',
      rules: ['node/kernel-version', 'node/conntrack-liberal'],
      subjects: [{kind: 'Cluster', name: 'cluster'}],
      actions: [
        'Let kpx-check list Nodes: `kpx-check rbac` prints the read-only ClusterRole and binding it needs (list nodes among them); apply it for the user kpx-check runs as.',
        'Then run `kpx-check cluster` again; or probe the nodes without the list: `kpx-check node` over SSH, or on facts bundles collected on the nodes.',
      ],
      commands: [
        'kubectl auth can-i list nodes',
        'kpx-check rbac --user USER | kubectl apply -f -   # or --group, --service-account',
        'kpx-check cluster',
        '# or, without the Node list: kpx-check node --ssh USER@NODE --sudo, or kpx-check node --facts facts/',
      ],
      verify: ['`kpx-check cluster` lists the Nodes, and the checks listed here are no longer unknown'],
      undo: [],
    })
    assert.deepEqual([windows.id, windows.title, windows.rules, windows.actions], ['prerequisites/cluster-windows-nodes', 'Find out: cluster/windows-nodes holds', ['cluster/windows-nodes'], ['Cannot list nodes.']])
    assert.deepEqual(others, [])

    // Listed Nodes: each node rule keeps its own step.
    const listed = buildPlan({findings, nodes: [], rulePlans, cluster: {summary: {...summary, proxyMode: 'iptables'}, kubeProxy, cnis: [], recipes}})
    assert.deepEqual(
      listed.steps.filter((candidate) => candidate.rules.length > 0).map((candidate) => candidate.id),
      ['prerequisites/node-kernel-version', 'prerequisites/cluster-windows-nodes', 'configure/node-conntrack-liberal'],
    )
  })

  it('to find out what only the nodes show, a managed platform is offered exec in kube-proxy pods first, a self-managed one SSH', () => {
    const notCollected: GatedFinding = {
      rule: 'node/nft-version',
      title: 'nft',
      status: 'unknown',
      severity: 'blocker',
      confidence: 'verified',
      subject: {kind: 'Cluster', name: 'cluster'},
      message: '3 node(s), e.g. n1: Cannot tell the host nft version.',
      evidence: {},
      remediation: [],
      reason: 'not-collected',
      references: [],
    }
    const rulePlans = new Map<string, RulePlan>([['node/nft-version', {phase: 'prerequisites', subjectKind: 'Node'}]])
    const probeCommand = (platform: string, index: number) =>
      buildPlan({findings: [notCollected], nodes: [], rulePlans, cluster: {summary: {...summary, platform}, kubeProxy, cnis: [], recipes}}).steps.find((candidate) => candidate.id === 'prerequisites/probe-nodes')!.commands[index]
    const firstCommand = (platform: string) => probeCommand(platform, 0)
    const secondCommand = (platform: string) => probeCommand(platform, 1)
    for (const platform of ['eks', 'aks', 'gke', 'ack', 'tke', 'cce', 'openshift']) assert.match(firstCommand(platform), /^kpx-check cluster --node-probe exec,pod /, platform)
    for (const platform of ['kubeadm', 'kubespray', 'k3s', 'rke2']) {
      assert.match(firstCommand(platform), /^kpx-check cluster --node-probe ssh /, platform)
      assert.match(secondCommand(platform), /^# or: kpx-check cluster --node-probe exec,pod .*kpx-check rbac --node-probe exec,pod$/, platform)
    }
  })

  it('a pool whose every node is blocked gets a rollout step with nothing to run, saying what to fix, and no placeholder taken for a bad name', () => {
    const blocked: NodeReport = {
      name: 'old-1',
      source: 'api',
      origin: 'test',
      kernelRelease: '4.18.0',
      os: {id: 'rhel', prettyName: null, versionId: '8.10'},
      nftVersion: null,
      reachable: true,
      pool: {label: 'eks.amazonaws.com/nodegroup', name: 'old'},
      verdict: 'no-go',
      checks: {'node/kernel-version': {status: 'fail', severity: 'blocker', message: 'Kernel 4.18 is older than 5.13.'}},
    }
    const plan = buildPlan({findings: [], nodes: [blocked], rulePlans: new Map(), cluster: {summary, kubeProxy, cnis: [], recipes}})
    const rollout = plan.steps.find((candidate) => candidate.id === 'rollout/rollout/eks-node-group-old')!
    assert.deepEqual(rollout.commands, [])
    assert.deepEqual(rollout.actions, [
      'No node of EKS node group old is ready to switch: fix what blocks it and check what is not checked first (the prerequisites steps).',
      'Blocked, fix before this wave: old-1 (node/kernel-version).',
    ])
  })

  it('k3s and RKE2 roll out on the ready nodes, named, servers first: not the canary, not a blocked or unchecked node', () => {
    const node = (name: string, verdict: NodeReport['verdict'], controlPlane = false): NodeReport => ({name, source: 'api', origin: 'test', kernelRelease: '6.1.0', os: {id: 'debian', prettyName: null, versionId: '12'}, nftVersion: null, reachable: true, verdict, controlPlane, checks: {}})
    const nodes = [node('agent-1', 'go'), node('agent-2', 'go'), node('agent-3', 'no-go'), node('agent-4', 'incomplete'), node('server-1', 'go', true)]
    for (const [platform, restart] of [['k3s', 'sudo systemctl restart k3s || sudo systemctl restart k3s-agent'], ['rke2', 'sudo systemctl restart rke2-server || sudo systemctl restart rke2-agent']]) {
      const plan = buildPlan({findings: [], nodes, rulePlans: new Map(), cluster: {summary: {...summary, platform}, kubeProxy, cnis: [], recipes}})
      assert.equal(plan.steps.find((candidate) => candidate.id === 'canary/canary-node')!.title.endsWith(': agent-1'), true, platform)
      assert.deepEqual(plan.steps.find((candidate) => candidate.id === 'rollout/rollout')!.commands, [`# On each of these nodes in turn, checking each before the next: server-1 agent-2\n${restart}`], platform)
      // Only the canary is ready: nothing is left to roll out, and no command says otherwise.
      const alone = buildPlan({findings: [], nodes: [node('agent-1', 'go'), node('agent-3', 'no-go')], rulePlans: new Map(), cluster: {summary: {...summary, platform}, kubeProxy, cnis: [], recipes}})
      const rollout = alone.steps.find((candidate) => candidate.id === 'rollout/rollout')!
      assert.deepEqual(rollout.commands, [], platform)
      assert.deepEqual(rollout.actions, ['No node but the canary (agent-1) is ready to switch: fix the blockers and check the unchecked nodes, then run kpx-check again.'], platform)
    }
  })

  it('a platform without a recipe gets the plain DaemonSet procedure', () => {
    const plan = buildPlan({findings: [], nodes: [], rulePlans: new Map(), cluster: {summary: {...summary, platform: 'unknown'}, kubeProxy: {...kubeProxy, daemonSet: null, configMap: null}, cnis: [], recipes}})
    assert.ok(plan.steps.some((candidate) => candidate.id === 'configure/hold-restarts'))
    assert.match(plan.summary, /^kube-proxy as a DaemonSet with a ConfigMap: /)
  })
})

describe('platform recipes (platforms/)', () => {
  it('cover every platform kpx-check detects', () => {
    for (const platform of ['eks', 'aks', 'gke', 'openshift', 'k3s', 'rke2', 'k0s', 'kubermatic', 'kind', 'talos', 'kops', 'cce', 'ack', 'tke', 'kubeadm']) {
      assert.ok(recipes.has(platform), platform)
    }
  })

  it('every switchable platform says how to verify and how to roll back', () => {
    for (const recipe of recipes.values()) {
      const phases = new Set(recipeSteps(recipes, recipe).map((candidate) => candidate.phase))
      if (!phases.has('canary') && !phases.has('rollout')) continue
      assert.ok(phases.has('verify') && phases.has('rollback'), recipe.platform)
    }
  })

  it('a broken recipe is named by file, line and column', async () => {
    const dir = mkdtempSync(join(workdir, 'recipes-'))
    writeFileSync(
      join(dir, 'acme.yaml'),
      ['platform: acme', 'title: Acme', 'confidence: verified', 'summary: s', 'steps:', '  - id: set-mode', '    phase: configure', '    title: t', '    why: w', '    commands: ["edit {{configMapNme}}"]', 'references: []', ''].join('\n'),
    )
    await assert.rejects(loadRecipes(dir), /platforms\/acme\.yaml:10:16 unknown variable {{configMapNme}}/)
    writeFileSync(join(dir, 'acme.yaml'), readFileSync(join(dir, 'acme.yaml'), 'utf8').replace('title: t', 'title: On {{canaryNodes}}'))
    await assert.rejects(loadRecipes(dir), /platforms\/acme\.yaml:8:5 unknown variable {{canaryNodes}}/)
  })

  it('a step names the wave variables only when it comes once for each wave (forEachWave)', async () => {
    const dir = mkdtempSync(join(workdir, 'waves-'))
    const recipe = (forEachWave: string[]) =>
      ['platform: acme', 'title: Acme', 'confidence: verified', 'summary: s', 'steps:', '  - id: rollout', '    phase: rollout', ...forEachWave, '    title: t', '    why: w', '    commands: ["for node in {{waveNodes}}; do echo; done"]', 'references: []', ''].join('\n')
    writeFileSync(join(dir, 'acme.yaml'), recipe([]))
    await assert.rejects(loadRecipes(dir), /platforms\/acme\.yaml:10:16 unknown variable {{waveNodes}}/)
    writeFileSync(join(dir, 'acme.yaml'), recipe(['    forEachWave: true']))
    assert.equal((await loadRecipes(dir)).get('acme')?.steps[0].forEachWave, true)
  })

  it('a snippet may name plan variables only, and not take a plan variable\'s name', async () => {
    const dir = mkdtempSync(join(workdir, 'snippets-'))
    const recipe = (snippets: string[]) =>
      ['platform: acme', 'title: Acme', 'confidence: verified', 'summary: s', 'snippets:', ...snippets, 'steps:', '  - id: set-mode', '    phase: configure', '    title: t', '    why: w', '    commands: ["{{restart}}"]', 'references: []', ''].join('\n')
    writeFileSync(join(dir, 'acme.yaml'), recipe(['  restart: kubectl -n {{kubeProxyNamespace}} delete pod {{pod}}']))
    await assert.rejects(loadRecipes(dir), /platforms\/acme\.yaml:6:3 unknown variable {{pod}}; one of kubeProxyNamespace, /)
    writeFileSync(join(dir, 'acme.yaml'), recipe(['  restart: kubectl delete pod x', '  canaryNode: n1']))
    await assert.rejects(loadRecipes(dir), /platforms\/acme\.yaml:7:3 snippet {{canaryNode}} has the name of a plan variable/)
    writeFileSync(join(dir, 'acme.yaml'), recipe(['  restart: kubectl -n {{kubeProxyNamespace}} delete pod x']))
    assert.deepEqual((await loadRecipes(dir)).get('acme')?.snippets, {restart: 'kubectl -n {{kubeProxyNamespace}} delete pod x'})
  })

  it('the built-in recipes come as the build linted them, and are linted again once a file changes', async () => {
    assert.deepEqual(recipes, await lintRecipes(BUILTIN_PLATFORMS_DIR))
    const dir = mkdtempSync(join(workdir, 'platforms-'))
    cpSync(BUILTIN_PLATFORMS_DIR, dir, {recursive: true})
    assert.ok(readBuildManifest('recipes', dir, recipeFiles(dir)), 'the same files, elsewhere')
    appendFileSync(join(dir, 'kind.yaml'), '# edited\n')
    assert.equal(readBuildManifest('recipes', dir, recipeFiles(dir)), undefined, 'a file changed')
  })
})
