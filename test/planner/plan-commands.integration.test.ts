/**
 * The plan's commands as the shells that run them see them: every command of every recipe stands on its
 * own in bash and zsh and passes shellcheck; the node-by-node loops run under bash and zsh, against stub
 * tools that play a cluster's answers (failures included) and against the test API server with the real
 * kubectl, as an operator would paste them.
 */
import assert from 'node:assert/strict'
import {spawn, spawnSync} from 'node:child_process'
import {once} from 'node:events'
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {text} from 'node:stream/consumers'
import {after, before, describe, it} from 'node:test'

import type {ClusterSummary, NodeReport, PlanStep, Report} from '../../src/contract/report.js'
import type {Component} from '../../src/derive/components.js'
import type {KubeProxyConfig} from '../../src/derive/kube-proxy-config.js'
import {buildPlan} from '../../src/planner/plan.js'
import {loadRecipes} from '../../src/services/recipe-catalog.js'
import {scenarioNames} from '../helpers/apiserver-scenario.js'
import {type ApiServer, startApiServer, writeKubeconfig} from '../helpers/apiserver.js'
import {capturedBundle, nodesOfCapturedMachine, withSections} from '../helpers/captured-bundles.js'
import {runCli} from '../helpers/cli.js'
import {KUBEADM_KUBE_PROXY, KUBEADM_SUMMARY} from '../helpers/plan-inputs.js'

const SHELLS = ['bash', 'zsh'] as const
/** The captures predate the collector's nft-json section; the lab's nft (Debian's 1.0.6) lists JSON, as a ready node's must. */
const NFT_LISTS_JSON = {'nft-json': 'path json=yes'}

/** kubectl is not a Debian package: where the machine has none, the runs with the real one are skipped, saying why. */
const noKubectl = spawnSync('kubectl', ['version', '--client'], {encoding: 'utf8'}).status === 0 ? false : 'kubectl is not on PATH'
const recipes = await loadRecipes()

let workdir: string
before(() => {
  workdir = mkdtempSync(join(tmpdir(), 'kpx-plan-commands-'))
})
after(() => rmSync(workdir, {recursive: true, force: true}))

/** Every runnable text of a plan: its commands and its undo commands (verify lines may be prose). */
const runnable = (steps: readonly PlanStep[]) => steps.flatMap((step) => [...step.commands, ...step.undo].map((command) => ({step: step.id, command})))

/** The scripts a command writes (`cat > NAME <<'EOF'`), by name. */
const scriptsWritten = (command: string) => [...command.matchAll(/^cat > (\S+) <<'EOF'\n([\s\S]*?)\nEOF$/gm)].map((match) => ({name: match[1], script: match[2]}))

/** The command of a plan that writes kpx-restart-node.sh, the restart-and-wait block its loops run. */
const restartScriptWriter = (steps: readonly PlanStep[]) => runnable(steps).find(({command}) => scriptsWritten(command).some(({name}) => name === 'kpx-restart-node.sh'))?.command

describe('every command of every recipe', () => {
  const summary: ClusterSummary = {...KUBEADM_SUMMARY, kubeProxy: {...KUBEADM_SUMMARY.kubeProxy, version: '1.28.15'}}
  const kubeProxy: KubeProxyConfig = {...KUBEADM_KUBE_PROXY, mode: 'ipvs', version: '1.28.15', carryOver: [{field: 'ipvs.syncPeriod', value: '60s'}]}
  const cni = (name: string, namespace: string, dataplane: string): Component => ({name, role: 'cni', daemonSet: {namespace, name: `${name}-node`}, image: `${name}:1`, dataplane, replacesKubeProxy: false})
  // Two clusters per platform between them meet every recipe condition: from IPVS with carried
  // settings, an old kube-proxy, Calico from its manifest and flannel; from iptables with Calico's operator.
  const clusters: Array<{cnis: Component[]; kubeProxy: KubeProxyConfig; summary: ClusterSummary}> = [
    {summary, kubeProxy, cnis: [cni('calico', 'kube-system', 'Iptables'), cni('flannel', 'kube-flannel', 'iptables')]},
    {summary: {...summary, proxyMode: 'iptables'}, kubeProxy: {...kubeProxy, mode: 'iptables', version: '1.34.1', carryOver: []}, cnis: [cni('calico', 'calico-system', 'Iptables')]},
  ]
  // Waves of every kind: a pool picked by a selector, nodes in no pool, the control plane by name, and a pool whose every node is blocked.
  const nodes: NodeReport[] = [
    waveNode('ip-10-0-1-10.ec2.internal', {pool: {label: 'eks.amazonaws.com/nodegroup', name: 'workers-a'}}),
    waveNode('ip-10-0-1-11.ec2.internal', {pool: {label: 'eks.amazonaws.com/nodegroup', name: 'workers-a'}}),
    waveNode('legacy-1', {}),
    waveNode('cp-1', {controlPlane: true}),
    waveNode('old-kernel-1', {pool: {label: 'karpenter.sh/nodepool', name: 'spot'}, verdict: 'no-go'}),
  ]
  const plans = [...recipes.keys()].flatMap((platform) =>
    clusters.map((cluster) => ({platform, steps: buildPlan({findings: [], nodes, rulePlans: new Map(), cluster: {...cluster, summary: {...cluster.summary, platform}, recipes}}).steps})),
  )
  const commands = [...new Map(plans.flatMap((plan) => runnable(plan.steps)).map((entry) => [entry.command, entry])).values()]

  it('are checked here: more than a few, from every recipe with steps', () => {
    assert.ok(commands.length > 60, `${commands.length} commands`)
  })

  it('hold every line of a recipe that carries conditions of its own: the two clusters between them meet each one\'s', () => {
    const conditional = [...recipes.values()].flatMap((recipe) => recipe.steps.flatMap((step) => [...step.commands, ...(step.undo ?? [])]).flatMap((line) => (typeof line === 'string' ? [] : [line.command])))
    assert.ok(conditional.length >= 3, `${conditional.length} conditional lines`)
    for (const line of conditional) {
      const filled = new RegExp(line.split(/{{\s*\w+\s*}}/).map((part) => part.replaceAll(/[$()*+.?[\\\]^{|}]/g, String.raw`\$&`)).join(String.raw`[\s\S]*`))
      assert.ok(commands.some(({command}) => filled.test(command)), line)
    }
  })

  for (const shell of SHELLS) {
    it(`each parses on its own under ${shell} -n`, () => {
      for (const {step, command} of commands) {
        const parsed = spawnSync(shell, ['-n', '-c', command], {encoding: 'utf8'})
        assert.equal(parsed.status, 0, `${step}: ${command}\n${parsed.stderr}`)
      }
    })
  }

  it('each passes shellcheck', () => {
    // SC2043: a loop over the one canary node is how `break` stops its block; SC2034: a command that
    // sets a variable (CLUSTER=…) is there for the commands after it.
    for (const {step, command} of commands) {
      const checked = spawnSync('shellcheck', ['--shell=bash', '--exclude=SC2043,SC2034', '--format=gcc', '-'], {input: command, encoding: 'utf8'})
      assert.equal(checked.status, 0, `${step}: ${command}\n${checked.stdout}${checked.stderr}`)
    }
  })

  it('the scripts they write pass shellcheck as POSIX sh; a plan that restarts nodes writes its restart-and-wait block once, and no loop repeats it', () => {
    const written = commands.flatMap(({step, command}) => scriptsWritten(command).map((script) => ({step, ...script})))
    assert.ok(written.length > 0)
    for (const {step, script} of written) {
      const checked = spawnSync('shellcheck', ['--shell=sh', '--format=gcc', '-'], {input: script, encoding: 'utf8'})
      assert.equal(checked.status, 0, `${step}: ${script}\n${checked.stdout}${checked.stderr}`)
    }

    let restarting = 0
    for (const {platform, steps} of plans) {
      const texts = runnable(steps).map(({command}) => command)
      const calls = texts.filter((command) => command.includes('sh kpx-restart-node.sh'))
      if (calls.length > 0) restarting += 1
      assert.equal(texts.filter((command) => scriptsWritten(command).length > 0).length, calls.length > 0 ? 1 : 0, platform)
      assert.equal(texts.filter((command) => command.includes('--for=condition=Ready')).length, calls.length > 0 ? 1 : 0, `${platform}: the wait is in the script only`)
    }

    // generic, kubeadm and kind, for both clusters.
    assert.equal(restarting, 6)
  })

  /**
   * Each step as an operator pastes it into a fresh terminal: its commands (then, apart, its undo) in one shell that
   * has none of the plan's variables, with unset variables an error (-u); the tools it calls stand in, doing nothing.
   */
  for (const shell of SHELLS) {
    it(`${shell}: each step sets every variable it uses (a fresh shell has none), its undo too`, async () => {
      const tools = mkdtempSync(join(workdir, 'fresh-shell-tools-'))
      for (const tool of ['aws', 'az', 'curl', 'gcloud', 'ip', 'ipset', 'ipvsadm', 'k0s', 'k0sctl', 'kind', 'kops', 'kpx-check', 'kubeadm', 'mkdir', 'nft', 'oc', 'sleep', 'ssh', 'sudo', 'systemctl', 'talosctl']) {
        writeFileSync(join(tools, tool), '#!/bin/sh\nexit 0\n')
        chmodSync(join(tools, tool), 0o755)
      }

      // kubectl answers every question with a pod's name, so that the loops end at their first try.
      writeFileSync(join(tools, 'kubectl'), '#!/bin/sh\necho pod/kube-proxy-x\n')
      chmodSync(join(tools, 'kubectl'), 0o755)
      // Each step in a folder where its plan wrote the restart-and-wait script, as the steps before it would have.
      const scripts = new Map<string, {where: string; writer?: string}>()
      for (const {platform, steps} of plans) {
        const writer = restartScriptWriter(steps)
        for (const step of steps) {
          for (const [part, commands] of [['commands', step.commands], ['undo', step.undo]] as const) {
            if (commands.length > 0) scripts.set(commands.join('\n'), {where: `${platform} ${step.id} ${part}`, writer})
          }
        }
      }

      const unset = []
      for (const [script, {where, writer}] of scripts) {
        const cwd = mkdtempSync(join(workdir, 'fresh-shell-'))
        if (writer) assert.equal(spawnSync(shell, ['-c', writer], {cwd}).status, 0, writer)
        const child = spawn(shell, ['-u', '-c', script], {cwd, env: {PATH: `${tools}:${process.env.PATH}`, HOME: cwd}, stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000})
        const stderr = text(child.stderr)
        await once(child, 'close')
        const problem = /unbound variable|parameter not set|parameter null or not set/.exec(await stderr)
        if (problem) unset.push(`${where}: ${(await stderr).trim()}`)
      }

      assert.ok(scripts.size > 40, `${scripts.size} steps`)
      assert.deepEqual(unset, [])
    })
  }

  it('none waits with `kubectl rollout status` on a DaemonSet the same plan put on OnDelete', () => {
    const named = (texts: string[], pattern: RegExp) => texts.flatMap((command) => [...command.matchAll(pattern)].map((match) => `${match[1]}/${match[2]}`))
    const heldAnywhere = new Set<string>()
    for (const {platform, steps} of plans) {
      const texts = runnable(steps).map((entry) => entry.command)
      const held = named(texts, /-n (\S+) patch daemonset (\S+) .*OnDelete/g)
      for (const name of held) heldAnywhere.add(name)
      assert.deepEqual(named(texts, /-n (\S+) rollout status daemonset[/ ](\S+)/g).filter((name) => held.includes(name)), [], platform)
    }

    assert.deepEqual([...heldAnywhere].toSorted(), ['kube-flannel/flannel-node', 'kube-system/calico-node', 'kube-system/kube-proxy'])
  })
})

/**
 * The plan `kpx-check cluster --json` prints for the kubeadm cluster with manifest-installed Calico, its nodes
 * checked with the real kube-proxy 1.36.2 iptables-mode bundle renamed to each (kernel 6.18: ready); only nodes
 * a check passed on are ever switched.
 */
async function kubeadmCalicoPlan(server: ApiServer): Promise<Report> {
  const dir = mkdtempSync(join(workdir, 'kubeadm-calico-'))
  const kubeconfig = writeKubeconfig(dir, server)
  mkdirSync(join(dir, 'facts'))
  for (const node of ['k8s-cp-01', 'k8s-worker-01', 'k8s-worker-02']) writeFileSync(join(dir, 'facts', `${node}.facts`), withSections(capturedBundle('iptables'), {sections: {hostname: node, ...NFT_LISTS_JSON}}))
  const {stdout, stderr} = await runCli(['cluster', '--kubeconfig', kubeconfig, '--facts', join(dir, 'facts'), '--json'])
  assert.ok(stdout.startsWith('{'), stderr)
  return JSON.parse(stdout) as Report
}

const commandsOf = (report: Report, id: string): string[] => {
  const step = report.plan.steps.find((candidate) => candidate.id === id)
  assert.ok(step, `${id} in ${report.plan.steps.map((candidate) => candidate.id).join(', ')}`)
  return step.commands
}

const commandOf = (report: Report, id: string): string => {
  const commands = commandsOf(report, id)
  assert.equal(commands.length, 1, `${id} is one command`)
  return commands[0]
}

/** Runs a command under a shell in `cwd` (not spawnSync, which would hold up the test API server in this process). */
async function runShell(shell: string, command: string, cwd: string, env: Record<string, string>) {
  const child = spawn(shell, ['-c', command], {cwd, env, timeout: 60_000})
  const [stdout, stderr] = [child.stdout, child.stderr].map((stream) => text(stream))
  const [status] = (await once(child, 'close')) as [number | null]
  return {status, stdout: await stdout, stderr: await stderr, command}
}

/** A folder on PATH with `edit-mode`, the editor `kubectl edit` runs as an operator would: mode nftables in the kube-proxy configuration. */
function modeEditor(): string {
  const tools = mkdtempSync(join(workdir, 'editor-'))
  writeFileSync(join(tools, 'edit-mode'), String.raw`#!/bin/sh
sed -i 's/^\(    mode:\).*/\1 nftables/' "$1"
`)
  chmodSync(join(tools, 'edit-mode'), 0o755)
  return tools
}

/** What an undo must bring back: the object but what the server sets on every write. */
function restorable(object: Record<string, any>): Record<string, any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const {resourceVersion, generation, ...metadata} = object.metadata // eslint-disable-line @typescript-eslint/no-unused-vars
  return {...object, metadata}
}

/** A node as the planner sees it, ready to switch unless told otherwise. */
function waveNode(name: string, row: Partial<NodeReport>): NodeReport {
  return {name, source: 'api', origin: 'test', kernelRelease: '6.1.0', os: {id: 'debian', prettyName: null, versionId: '12'}, nftVersion: null, reachable: true, verdict: 'go', checks: {}, ...row}
}

/**
 * kubectl and sleep as a cluster would answer the loops: each call is logged (arguments separated by
 * US, one call a line); the pods a node runs are named after it, among them a pod of the hold-back's copy
 * (DaemonSet kube-proxy-iptables) and a tenant's kube-proxy in another namespace, which no loop may touch;
 * KPX_NOT_READY and KPX_RESTARTED name a node whose new kube-proxy pod never gets Ready or restarts after starting.
 */
const STUB_KUBECTL = String.raw`#!/bin/sh
for arg in "$@"; do printf '%s\037' "$arg"; done >> "$KPX_LOG"
printf '\n' >> "$KPX_LOG"
node=''
for arg in "$@"; do case "$arg" in spec.nodeName=*) node=${'$'}{arg#spec.nodeName=} ;; esac; done
case " $* " in
  *" get nodes "*) printf '%s' "$KPX_NODES" ;;
  *" get pods -A "*) printf 'kube-system   kube-proxy-iptables-old-%s   DaemonSet   kube-proxy-iptables\nkube-system   kube-proxy-old-%s   DaemonSet   kube-proxy\nkube-system   calico-node-old-%s   DaemonSet   calico-node\ntenant   kube-proxy-tenant-%s   DaemonSet   kube-proxy\nkube-system   coredns-7db6d8ff4d-x2x9c   ReplicaSet   coredns-7db6d8ff4d\n' "$node" "$node" "$node" "$node" ;;
  *" delete pod "*) printf 'pod "%s" deleted\n' "$5" ;;
  *" get pods --field-selector "*) printf 'kube-proxy-iptables-new-%s   DaemonSet   kube-proxy-iptables\nkube-proxy-new-%s   DaemonSet   kube-proxy\n' "$node" "$node" ;;
  *" wait "*) case "$5" in *"-new-$KPX_NOT_READY") echo 'error: timed out waiting for the condition' >&2; exit 1 ;; esac; echo "$5 condition met" ;;
  *restartCount*) case "$4" in *"-new-$KPX_RESTARTED") echo 2 ;; *) echo 0 ;; esac ;;
  *" logs "*) echo 'I1202 09:00:01.000000       1 server_linux.go:124] "Using nftables Proxier"' ;;
  *) echo "stub kubectl: no answer for: $*" >&2; exit 1 ;;
esac
`

/** kpx-check as the canary loop calls it: each call logged as kubectl's are; KPX_VERIFY_FAILS names a node it finds not switched cleanly. */
const STUB_KPX_CHECK = String.raw`#!/bin/sh
for arg in "$@"; do printf '%s\037' "$arg"; done >> "$KPX_LOG"
printf '\n' >> "$KPX_LOG"
[ "$4" != "$KPX_VERIFY_FAILS" ]
`

describe('the node-by-node switch (kubeadm, Calico from its manifest)', () => {
  let server: ApiServer
  let report: Report
  let stubs: string
  before(async () => {
    server = await startApiServer({scenario: nodesOfCapturedMachine('kubeadm-calico')})
    report = await kubeadmCalicoPlan(server)
    stubs = join(workdir, 'stubs')
    mkdirSync(stubs)
    writeFileSync(join(stubs, 'kubectl'), STUB_KUBECTL)
    writeFileSync(join(stubs, 'kpx-check'), STUB_KPX_CHECK)
    writeFileSync(join(stubs, 'sleep'), '#!/bin/sh\nexit 0\n')
    for (const tool of ['kubectl', 'kpx-check', 'sleep']) chmodSync(join(stubs, tool), 0o755)
  })
  after(() => server.close())

  /**
   * Runs a command under a shell in a fresh folder, with Enter pressed for every prompt; not spawnSync,
   * which would hold up the test API server in this process.
   */
  async function run(shell: string, command: string, env: Record<string, string>, path: string) {
    const cwd = mkdtempSync(join(workdir, `${shell}-`))
    const log = join(cwd, 'kubectl.log')
    const child = spawn(shell, ['-c', command], {cwd, env: {PATH: path, HOME: cwd, KPX_LOG: log, ...env}, timeout: 60_000})
    // A command with nothing to do ends before it reads: its closed stdin is no failure.
    child.stdin.on('error', () => {})
    child.stdin.end('\n'.repeat(10))
    const [stdout, stderr] = [child.stdout, child.stderr].map((stream) => text(stream))
    const [status] = (await once(child, 'close')) as [number | null]
    const calls = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => line.split('\u001F').slice(0, -1)) : []
    return {status, stdout: await stdout, stderr: await stderr, calls, cwd}
  }

  /** A command run in a folder where the plan's configure step wrote kpx-restart-node.sh (writing it calls no tool). */
  const withScript = (command: string) => `${restartScriptWriter(report.plan.steps)!}\n${command}`
  const stubbed = async (shell: string, command: string, env: Record<string, string> = {}) =>
    run(shell, withScript(command), {KPX_NODES: 'k8s-cp-01 k8s-worker-01 k8s-worker-02', ...env}, `${stubs}:${process.env.PATH}`)

  /** What switching one node asks of kubectl, in order. */
  const switchCalls = (node: string) => [
    ['get', 'pods', '-A', '--field-selector', `spec.nodeName=${node}`, '--no-headers', '-o', 'custom-columns=NS:.metadata.namespace,POD:.metadata.name,KIND:.metadata.ownerReferences[0].kind,OWNER:.metadata.ownerReferences[0].name'],
    ['-n', 'kube-system', 'delete', 'pod', `kube-proxy-old-${node}`],
    ['-n', 'kube-system', 'delete', 'pod', `calico-node-old-${node}`],
    ['-n', 'kube-system', 'get', 'pods', '--field-selector', `spec.nodeName=${node}`, '--no-headers', '-o', 'custom-columns=POD:.metadata.name,KIND:.metadata.ownerReferences[0].kind,OWNER:.metadata.ownerReferences[0].name'],
    ['-n', 'kube-system', 'wait', '--for=condition=Ready', `pod/kube-proxy-new-${node}`, '--timeout=5m'],
    ['-n', 'kube-system', 'get', `pod/kube-proxy-new-${node}`, '-o', 'jsonpath={.status.containerStatuses[0].restartCount}'],
  ]
  it('no loop skips its own nodes, and each runs the one restart-and-wait script', () => {
    const loops = report.plan.steps.flatMap((step) => [...step.commands, ...step.undo]).filter((command) => /^for node in /m.test(command))
    assert.equal(loops.length, 4, 'the canary, one per wave, the rollback')
    for (const loop of loops) {
      assert.doesNotMatch(loop, /continue/)
      assert.match(loop, /^ {2}sh kpx-restart-node\.sh "\$node" \|\| break$/m)
    }
  })

  for (const shell of ['sh', ...SHELLS]) {
    it(`the restart-and-wait script under ${shell} -u: restarts the node's own pods only (not the hold-back copy's, not a tenant's), waits for its new kube-proxy pod; exit 1 when it is not Ready`, async () => {
      const script = `${shell} -u kpx-restart-node.sh k8s-worker-02`
      const done = await stubbed(shell, script)
      assert.equal(done.status, 0, done.stderr)
      assert.deepEqual(done.calls, switchCalls('k8s-worker-02'))
      const notReady = await stubbed(shell, script, {KPX_NOT_READY: 'k8s-worker-02'})
      assert.equal(notReady.status, 1)
      assert.match(notReady.stderr, /^kube-proxy on k8s-worker-02 is not Ready: stopping here$/m)
      const unnamed = await stubbed(shell, `${shell} -u kpx-restart-node.sh`)
      assert.notEqual(unnamed.status, 0)
      assert.match(unnamed.stderr, /usage: sh kpx-restart-node\.sh NODE/)
      assert.deepEqual(unnamed.calls, [])
    })
  }

  /** The workers' wave: kubeadm's workers carry no pool label, and the control plane is a wave of its own. */
  const WORKERS = 'rollout/rollout/nodes-in-no-pool'
  const CONTROL_PLANE = 'rollout/rollout/control-plane'
  for (const shell of SHELLS) {
    it(`${shell}: the rollout switches each wave's ready nodes, named in the command, one at a time, each waited for by its new pod: the workers but the canary, then the control plane`, async () => {
      // The workers' first node is the canary, switched already: no loop for it, and the other loop leaves it out.
      const workers = commandOf(report, WORKERS)
      assert.match(workers, /^for node in k8s-worker-02; do$/m)
      // kubectl lists every node there is: the loop asks it for none.
      const rest = await stubbed(shell, workers, {KPX_NODES: 'k8s-worker-01 k8s-worker-02 k8s-worker-03 blocked-1'})
      assert.equal(rest.status, 0, rest.stderr)
      assert.deepEqual(rest.calls, switchCalls('k8s-worker-02'))
      assert.equal(rest.stdout.match(/switched; check it, then press Enter for the next node/g)?.length, 1)

      // Its one node is its canary: no loop over the others.
      const first = await stubbed(shell, commandOf(report, CONTROL_PLANE))
      assert.deepEqual(first.calls, switchCalls('k8s-cp-01'))
      assert.match(first.stdout, /k8s-cp-01, the first of its pool, switched; watch it/)
    })


    it(`${shell}: the rollout stops at the first node whose kube-proxy is not Ready, or restarts`, async () => {
      const workers = commandOf(report, WORKERS)
      const notReady = await stubbed(shell, workers, {KPX_NOT_READY: 'k8s-worker-02'})
      assert.deepEqual(notReady.calls, switchCalls('k8s-worker-02').slice(0, 5))
      assert.match(notReady.stderr, /kube-proxy on k8s-worker-02 is not Ready: stopping here/)
      const restarted = await stubbed(shell, workers, {KPX_RESTARTED: 'k8s-worker-02'})
      assert.deepEqual(restarted.calls, switchCalls('k8s-worker-02'))
      assert.match(restarted.stderr, /kube-proxy on k8s-worker-02 restarted after the switch: stopping here/)
    })

    it(`${shell}: the canary switches its one node and has kpx-check verify it; a node not switched cleanly stops it with what to do`, async () => {
      const verifyCall = ['verify', 'cluster', '--node', 'k8s-worker-01', '--node-probe', 'exec']
      const {status, calls} = await stubbed(shell, commandOf(report, 'canary/canary-node'))
      assert.equal(status, 0)
      assert.deepEqual(calls, [...switchCalls('k8s-worker-01'), verifyCall])
      const failed = await stubbed(shell, commandOf(report, 'canary/canary-node'), {KPX_VERIFY_FAILS: 'k8s-worker-01'})
      assert.match(failed.stderr, /k8s-worker-01 did not switch cleanly: roll it back/)
    })
  }

  for (const shell of SHELLS) {
    it(`${shell} with the real kubectl against the API server: each node's pods are deleted and its new kube-proxy pod waited for`, {skip: noKubectl}, async () => {
      const kubeconfig = writeKubeconfig(mkdtempSync(join(workdir, 'real-')), server)
      const sleepOnly = join(workdir, `sleep-only-${shell}`)
      mkdirSync(sleepOnly)
      writeFileSync(join(sleepOnly, 'sleep'), '#!/bin/sh\nexit 0\n')
      chmodSync(join(sleepOnly, 'sleep'), 0o755)
      const before = server.requests.length
      let stderr = ''
      for (const command of [...commandsOf(report, WORKERS), ...commandsOf(report, CONTROL_PLANE)]) {
        const ran = await run(shell, withScript(command), {KUBECONFIG: kubeconfig}, `${sleepOnly}:${process.env.PATH}`)
        assert.equal(ran.status, 0, ran.stderr)
        stderr += ran.stderr
      }

      const requests = server.requests.slice(before)
      const deleted = requests.filter((request) => request.method === 'DELETE').map((request) => request.path.split('/').at(-1))
      // The scenario's kube-proxy pods of the two nodes that are not the canary (k8s-worker-01).
      assert.deepEqual(deleted.length, 2, stderr.slice(0, 2000))
      assert.ok(deleted.every((name) => name?.startsWith('kube-proxy-')))
      assert.ok(!requests.some((request) => request.status === 400 || request.status === 405), JSON.stringify(requests.filter((request) => (request.status ?? 0) >= 400)))
      const nodes = requests.filter((request) => request.query.fieldSelector?.startsWith('spec.nodeName=')).map((request) => request.query.fieldSelector)
      assert.deepEqual([...new Set(nodes)], ['spec.nodeName=k8s-worker-02', 'spec.nodeName=k8s-cp-01'])
      assert.doesNotMatch(stderr, /not Ready|restarted|unknown flag|error:/)
    })
  }
})

describe('no canary or rollout command touches a node the report marks blocked or not checked', () => {
  let stubs: string
  before(() => {
    stubs = mkdtempSync(join(workdir, 'stand-ins-'))
    writeFileSync(join(stubs, 'kubectl'), STUB_KUBECTL)
    writeFileSync(join(stubs, 'kpx-check'), STUB_KPX_CHECK)
    writeFileSync(join(stubs, 'sleep'), '#!/bin/sh\nexit 0\n')
    for (const tool of ['kubectl', 'kpx-check', 'sleep']) chmodSync(join(stubs, tool), 0o755)
  })

  /** `kpx-check cluster --json` on a scenario, with these nodes' bundles (the real iptables-mode one, renamed; `kernel` replaces its kernel). */
  async function planOf(scenario: string, bundles: Record<string, {kernel?: string}> = {}): Promise<Report> {
    const kernels = Object.fromEntries(Object.entries(bundles).flatMap(([node, {kernel}]) => (kernel ? [[node, kernel]] : [])))
    const server = await startApiServer({scenario: nodesOfCapturedMachine(scenario, kernels)})
    try {
      const dir = mkdtempSync(join(workdir, `${scenario}-`))
      const facts = join(dir, 'facts')
      mkdirSync(facts)
      for (const [node, {kernel}] of Object.entries(bundles)) {
        writeFileSync(join(facts, `${node}.facts`), withSections(capturedBundle('iptables'), {sections: {hostname: node, ...NFT_LISTS_JSON, ...(kernel ? {'kernel-release': kernel} : {})}}))
      }

      const args = ['cluster', '--kubeconfig', writeKubeconfig(dir, server), ...(Object.keys(bundles).length > 0 ? ['--facts', facts] : []), '--json']
      const {stdout, stderr} = await runCli(args)
      assert.ok(stdout.startsWith('{'), stderr)
      return JSON.parse(stdout) as Report
    } finally {
      await server.close()
    }
  }

  /** Runs each canary and rollout command under bash with kubectl standing in: it lists every node there is, and logs what it is asked. */
  async function deletedOn(report: Report): Promise<{deleted: string[]; restartsAll: boolean}> {
    const every = report.nodes.map((node) => node.name).join(' ')
    const writer = restartScriptWriter(report.plan.steps)
    const calls: string[][] = []
    for (const step of report.plan.steps.filter((candidate) => candidate.phase === 'canary' || candidate.phase === 'rollout')) {
      for (const command of step.commands) {
        const cwd = mkdtempSync(join(workdir, 'run-'))
        const log = join(cwd, 'calls.log')
        const child = spawn('bash', ['-c', writer ? `${writer}\n${command}` : command], {cwd, env: {PATH: `${stubs}:${process.env.PATH}`, HOME: cwd, KPX_LOG: log, KPX_NODES: every}, timeout: 60_000})
        child.stdin.on('error', () => {})
        child.stdin.end('\n'.repeat(50))
        child.stdout.resume()
        child.stderr.resume()
        await once(child, 'close')
        if (existsSync(log)) calls.push(...readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => line.split('\u001F').slice(0, -1)))
      }
    }

    const deleted = calls.filter((call) => call.includes('delete') && call.includes('pod')).map((call) => call.at(-1)!.replace(/^(?:kube-proxy|calico-node)-old-/, ''))
    return {deleted, restartsAll: calls.some((call) => call.includes('rollout') && call.includes('restart'))}
  }

  const held = (report: Report) => new Set(report.plan.waves.flatMap((wave) => [...wave.blocked, ...wave.undecided].map(({node}) => node)))

  for (const scenario of scenarioNames()) {
    it(`${scenario}, as the API shows it (no node checked): nothing is deleted or restarted`, async () => {
      const report = await planOf(scenario)
      const {deleted, restartsAll} = await deletedOn(report)
      assert.deepEqual(deleted.filter((node) => held(report).has(node)), [])
      assert.deepEqual(deleted, [], 'no node was checked, so none is ready')
      assert.equal(restartsAll, false)
    })
  }

  it('kubeadm-rhel8 with one node ready, one blocked (kernel 4.18), one not checked: only the ready one is switched', async () => {
    const report = await planOf('kubeadm-rhel8', {'k8s-cp-01': {}, 'k8s-worker-02': {kernel: '4.18.0-553.el8_10.x86_64'}})
    assert.deepEqual([...held(report)].toSorted(), ['k8s-worker-01', 'k8s-worker-02'])
    const {deleted, restartsAll} = await deletedOn(report)
    assert.deepEqual([...new Set(deleted)], ['k8s-cp-01'])
    assert.equal(restartsAll, false)
  })

  for (const shell of SHELLS) {
    it(`${shell}, real kubectl: the hold-back keeps kubeadm-rhel8's blocked and unchecked nodes on iptables mode through the switch, and its undo removes it all`, {skip: noKubectl}, async () => {
      const report = await planOf('kubeadm-rhel8', {'k8s-cp-01': {}, 'k8s-worker-02': {kernel: '4.18.0-553.el8_10.x86_64'}})
      const server = await startApiServer({scenario: 'kubeadm-rhel8'})
      try {
        const cwd = mkdtempSync(join(workdir, `hold-back-${shell}-`))
        const env = {PATH: `${modeEditor()}:${process.env.PATH}`, HOME: cwd, KUBECONFIG: writeKubeconfig(cwd, server), KUBE_EDITOR: 'edit-mode'}
        const named = (path: string, name: string) => server.objects(path).find((object) => object.metadata.name === name)
        const before = {daemonSet: named('/apis/apps/v1/daemonsets', 'kube-proxy')!, nodes: server.objects('/api/v1/nodes')}
        for (const id of ['configure/hold-restarts', 'configure/hold-back', 'configure/set-mode']) {
          for (const command of commandsOf(report, id)) {
            const ran = await runShell(shell, command, cwd, env)
            assert.equal(ran.status, 0, `${id}: ${command}\n${ran.stderr}`)
          }
        }

        const labelled = server.objects('/api/v1/nodes').filter((node) => node.metadata.labels['kpx-check/proxy-mode'] === 'iptables').map((node) => node.metadata.name)
        assert.deepEqual(labelled, ['k8s-worker-01', 'k8s-worker-02'])
        // The cluster's ConfigMap says nftables now; the held nodes' copy keeps iptables, and is all that differs.
        const [configMap, copy] = ['kube-proxy', 'kube-proxy-iptables'].map((name) => named('/api/v1/configmaps', name)!)
        assert.match(configMap.data['config.conf'], /^mode: nftables$/m)
        assert.match(copy.data['config.conf'], /^mode: iptables$/m)
        assert.equal(copy.data['config.conf'], configMap.data['config.conf'].replace(/^mode: nftables$/m, 'mode: iptables'))
        assert.deepEqual(copy.data['kubeconfig.conf'], configMap.data['kubeconfig.conf'])
        // The copy runs on the labelled nodes only, with that ConfigMap; the original stays off them.
        const held = named('/apis/apps/v1/daemonsets', 'kube-proxy-iptables')!
        assert.equal(held.spec.template.spec.nodeSelector['kpx-check/proxy-mode'], 'iptables')
        assert.deepEqual(held.spec.selector.matchLabels, {'k8s-app': 'kube-proxy', 'kpx-check/proxy-mode': 'iptables'})
        assert.deepEqual(held.spec.template.spec.volumes.filter((volume: {configMap?: unknown}) => volume.configMap).map((volume: {configMap: {name: string}}) => volume.configMap.name), ['kube-proxy-iptables'])
        assert.equal(held.spec.updateStrategy.type, 'RollingUpdate')
        assert.deepEqual(held.spec.template.spec.containers, before.daemonSet.spec.template.spec.containers)
        const original = named('/apis/apps/v1/daemonsets', 'kube-proxy')!
        assert.deepEqual(original.spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, [
          {matchExpressions: [{key: 'kpx-check/proxy-mode', operator: 'NotIn', values: ['iptables']}]},
        ])

        for (const command of report.plan.steps.find((step) => step.id === 'configure/hold-back')!.undo) {
          const ran = await runShell(shell, command, cwd, env)
          assert.equal(ran.status, 0, `${command}\n${ran.stderr}`)
        }

        assert.equal(named('/apis/apps/v1/daemonsets', 'kube-proxy-iptables'), undefined)
        assert.equal(named('/api/v1/configmaps', 'kube-proxy-iptables'), undefined)
        assert.deepEqual(server.objects('/api/v1/nodes').map((node) => node.metadata.labels), before.nodes.map((node) => node.metadata.labels))
        const undone = named('/apis/apps/v1/daemonsets', 'kube-proxy')!
        assert.deepEqual(restorable(undone).spec.template, before.daemonSet.spec.template)
      } finally {
        await server.close()
      }
    })
  }

  it('eks-old-vpc-cni with every node checked and one blocked: the add-on switch, which restarts every node, is left out', async () => {
    const report = await planOf('eks-old-vpc-cni', {})
    const nodes = report.nodes.map((node) => node.name)
    const checked = await planOf('eks-old-vpc-cni', Object.fromEntries(nodes.map((name, index) => [name, index === 0 ? {kernel: '4.18.0-553.el8_10.x86_64'} : {}])))
    for (const id of ['configure/set-mode', 'canary/canary-node']) {
      const step = checked.plan.steps.find((candidate) => candidate.id === id)!
      assert.deepEqual(step.commands, [], id)
      assert.match(step.actions.join(' '), new RegExp(`restarts kube-proxy on every node at once, and ${nodes[0].replaceAll('.', String.raw`\.`)} is blocked or not checked`))
    }

    assert.equal((await deletedOn(checked)).restartsAll, false)
  })
})

/**
 * The plan's own backups, changes and undo, run with the real kubectl against the test API server, which refuses
 * (409 Conflict) an update that names a resourceVersion not the stored one, as kube-apiserver does. Between the
 * change and the undo someone else changes the objects again (a label, an annotation): the undo must still put
 * them back. The same run with backups as kubectl prints them (resourceVersion kept) gets the 409.
 */
describe('undo with the real kubectl, after someone else changed the objects (kubeadm, Calico from its manifest)', {skip: noKubectl}, () => {
  let report: Report
  let tools: string
  before(async () => {
    const server = await startApiServer({scenario: nodesOfCapturedMachine('kubeadm-calico')})
    try {
      report = await kubeadmCalicoPlan(server)
    } finally {
      await server.close()
    }

    tools = modeEditor()
  })

  const CHANGES = ['prepare-cni/calico-lockstep', 'configure/set-mode']
  const objectsOf = (server: ApiServer) => ({
    configMap: server.objects('/api/v1/configmaps').find((object) => object.metadata.name === 'kube-proxy'),
    calico: server.objects('/apis/apps/v1/daemonsets').find((object) => object.metadata.name === 'calico-node'),
  })

  /** Runs the steps' commands, someone else's changes, then the steps' undo in reverse order, in one folder; `backups` rewrites the backup commands. */
  async function changeAndUndo(shell: string, backups: (command: string) => string = (command) => command) {
    const server = await startApiServer({scenario: 'kubeadm-calico'})
    try {
      const cwd = mkdtempSync(join(workdir, `undo-${shell}-`))
      const env = {PATH: `${tools}:${process.env.PATH}`, HOME: cwd, KUBECONFIG: writeKubeconfig(cwd, server), KUBE_EDITOR: 'edit-mode'}
      const sh = async (command: string) => runShell(shell, command, cwd, env)

      const before = objectsOf(server)
      for (const id of CHANGES) {
        for (const command of commandsOf(report, id)) {
          const ran = await sh(backups(command))
          assert.equal(ran.status, 0, `${id}: ${command}\n${ran.stderr}`)
        }
      }

      const changed = objectsOf(server)
      for (const command of ['kubectl -n kube-system label configmap kube-proxy changed-by=someone-else', 'kubectl -n kube-system annotate daemonset calico-node changed-by=someone-else']) {
        assert.equal((await sh(command)).status, 0, command)
      }

      const undone = []
      for (const id of CHANGES.toReversed()) {
        for (const command of report.plan.steps.find((step) => step.id === id)!.undo) undone.push(await sh(command))
      }

      return {before, changed, after: objectsOf(server), undone}
    } finally {
      await server.close()
    }
  }

  for (const shell of SHELLS) {
    it(`${shell}: the ConfigMap and calico-node's DaemonSet are back as they were, someone else's changes included`, async () => {
      const {before, changed, after, undone} = await changeAndUndo(shell)
      // The change happened: the ConfigMap says nftables, calico-node is on OnDelete with Felix's nftables mode.
      assert.match(changed.configMap!.data['config.conf'], /^mode: nftables$/m)
      assert.equal(changed.calico!.spec.updateStrategy.type, 'OnDelete')
      assert.ok(changed.calico!.spec.template.spec.containers[0].env.some(({name, value}: {name: string; value: string}) => name === 'FELIX_NFTABLESMODE' && value === 'Enabled'))
      for (const ran of undone) assert.equal(ran.status, 0, `${ran.command}\n${ran.stderr}`)
      assert.deepEqual(restorable(after.configMap!), restorable(before.configMap!))
      assert.deepEqual(restorable(after.calico!), restorable(before.calico!))
      assert.notEqual(after.configMap!.metadata.resourceVersion, changed.configMap!.metadata.resourceVersion, 'the undo wrote the object')
    })
  }

  it('bash: with backups as kubectl prints them (resourceVersion kept), the undo is refused with 409 Conflict and nothing comes back', async () => {
    // The backup commands as they were before: `kubectl get … -o yaml > X.backup.yaml`.
    const asPrinted = (command: string) => command.replace(/ > (\S+)\.served\.yaml && .*$/, ' > $1.backup.yaml')
    assert.ok(commandsOf(report, 'configure/set-mode').some((command) => asPrinted(command) !== command), 'the set-mode step makes a backup')
    const {before, after, undone} = await changeAndUndo('bash', asPrinted)
    const replaced = undone.filter((ran) => ran.command.startsWith('kubectl replace -f'))
    assert.equal(replaced.length, 2)
    for (const ran of replaced) {
      assert.equal(ran.status, 1)
      assert.match(ran.stderr, /Error from server \(Conflict\).*the object has been modified; please apply your changes to the latest version and try again/)
    }

    assert.notDeepEqual(restorable(after.configMap!), restorable(before.configMap!))
  })
})
