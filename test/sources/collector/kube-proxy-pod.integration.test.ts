/**
 * The collector as `cluster --node-probe exec` runs it: `sh -s kube-proxy-pod`, in the upstream
 * kube-proxy image, whose tools are all it finds on PATH (test/helpers/apiserver-exec.ts makes that
 * folder from this machine's programs: dash, cat, grep, wc, nft, iptables, … and no sed, tr, cut, uname,
 * mkdir, mktemp, timeout, ip or curl). Run under dash, as the image's /bin/sh is.
 */
import assert from 'node:assert/strict'
import {type ChildProcess, spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {mkdtemp, readdir, readFile, rm, symlink, writeFile} from 'node:fs/promises'
import {hostname, release, tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import {type Bundle, parseBundle} from '../../../src/facts/bundle.js'
import {COLLECTOR_SCRIPT} from '../../../src/util/paths.js'
import {imageToolsFolder} from '../../helpers/apiserver-exec.js'
import {startKubeProxyStandIn} from '../../helpers/kube-proxy-stand-in.js'

const SCRIPT = readFileSync(COLLECTOR_SCRIPT)
const IS_ROOT = process.getuid?.() === 0

interface PodRun {
  bundle: Bundle
  stdout: string
  code: number | null
}

/** `sh -s kube-proxy-pod` with the script on stdin, PATH and nothing else in the environment but TMPDIR. */
function runInImage(toolsDir: string, scratchDir: string, options: {args?: string[]; env?: Record<string, string>} = {}): Promise<PodRun> {
  return new Promise((resolve) => {
    const env = {PATH: toolsDir, TMPDIR: scratchDir, ...options.env}
    const child = spawn(join(toolsDir, 'sh'), options.args ?? ['-s', 'kube-proxy-pod'], {cwd: '/', env, stdio: ['pipe', 'pipe', 'ignore']})
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.on('close', (code) => resolve({stdout, code, bundle: parseBundle(stdout)}))
    child.stdin.end(SCRIPT)
  })
}

/** Runs the collector the usual way, on this machine with its full PATH, for comparison. */
function runOnHost(): Promise<Bundle> {
  return new Promise((resolve) => {
    const env = {...process.env}
    delete env.KPX_TIMEOUT
    const child = spawn('dash', [COLLECTOR_SCRIPT], {env, stdio: ['ignore', 'pipe', 'ignore']})
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.on('close', () => resolve(parseBundle(stdout)))
  })
}

const unavailable = (bundle: Bundle, section: string) => {
  const entry = bundle.unavailable.get(section)
  return entry && `${entry.reason} ${entry.detail}`
}

describe('collector in the kube-proxy image (sh -s kube-proxy-pod)', () => {
  let tools: Awaited<ReturnType<typeof imageToolsFolder>>
  let scratch: string
  let proxy: ChildProcess
  let pod: PodRun
  let host: Bundle

  before(async () => {
    tools = await imageToolsFolder()
    scratch = await mkdtemp(join(tmpdir(), 'kpx-pod-scratch-'))
    // The container's own kube-proxy, as the collector finds it in the pod's PID namespace.
    proxy = await startKubeProxyStandIn(['--config=/var/lib/kube-proxy/config.conf', '--hostname-override=node-1'])
    ;[pod, host] = await Promise.all([runInImage(tools.dir, scratch), runOnHost()])
  })

  after(async () => {
    proxy?.kill('SIGKILL')
    await tools?.remove()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('has only the image tools to work with: no sed, tr, cut, uname, mkdir or mktemp', async () => {
    const present = new Set(await readdir(tools.dir))
    for (const absent of ['sed', 'awk', 'tr', 'cut', 'tail', 'uname', 'mkdir', 'mktemp', 'timeout', 'ip', 'curl', 'wget', 'date', 'id']) assert.ok(!present.has(absent), absent)
    assert.ok(present.has('sh') && present.has('grep') && present.has('cat') && present.has('wc'))
  })

  it('prints a whole bundle, exits 0 and leaves no scratch file behind (files of its own, without mkdir)', async () => {
    assert.equal(pod.code, 0)
    assert.equal(pod.bundle.cut, undefined)
    assert.deepEqual([...pod.bundle.sections.keys()], [...host.sections.keys()])
    assert.deepEqual(await readdir(scratch), [])
  })

  it('reads the kernel release from /proc without uname, and the node name from the shared UTS namespace', () => {
    assert.equal(pod.bundle.sections.get('kernel-release'), release())
    assert.equal(pod.bundle.sections.get('hostname'), hostname())
  })

  it('says the node facts the container cannot see are unavailable, with why, instead of reading its own', () => {
    assert.equal(pod.bundle.sections.get('os-release'), '')
    assert.equal(unavailable(pod.bundle, 'os-release'), "not-present the node's /etc/os-release is not mounted in the kube-proxy container (its own is the image's)")
    assert.doesNotMatch(pod.bundle.sections.get('machine-id') ?? '', /^machine-id=/m, "the container's /etc/machine-id is the image's, never the node's")
    assert.equal(pod.bundle.sections.get('services'), '')
    assert.equal(unavailable(pod.bundle, 'services'), "not-present the node's processes and /etc are not visible from the kube-proxy container (no hostPID)")
    assert.equal(unavailable(pod.bundle, 'addresses'), 'not-installed ip')
    assert.equal(unavailable(pod.bundle, 'kube-proxy-mode'), 'not-installed curl or wget')
    assert.equal(pod.bundle.sections.get('nft-version'), '')
    assert.equal(unavailable(pod.bundle, 'nft-version'), "not-present the node's own nft is not reachable from the kube-proxy container (the nft there is the image's: kube-proxy-nft-version)")
  })

  it("says where it ran, and reads the image's nft as kube-proxy's own, which a host run leaves to the pod", () => {
    assert.match(pod.bundle.sections.get('collector') ?? '', /^where=kube-proxy-pod$/m)
    assert.match(host.sections.get('collector') ?? '', /^where=host$/m)
    assert.equal(pod.bundle.sections.get('kube-proxy-nft-version'), host.sections.get('nft-version'))
    assert.deepEqual(pod.bundle.unavailable.get('kube-proxy-nft-version'), host.unavailable.get('nft-version'))
    assert.equal(unavailable(host, 'kube-proxy-nft-version'), "not-present the collector ran on the host: the nft in kube-proxy's image is read in its pod (kpx-check cluster --node-probe exec)")
  })

  it('reads what it shares with the node as a host run does: nft, iptables, modules, sysctls, IPVS and, as root, the rulesets', () => {
    const shared = ['iptables-version', 'modules', 'modules-builtin', 'modules-available', 'sysctl', 'ipvs', 'kube-ipvs0']
    const rootOnly = ['nft-check', 'iptables-policies', 'iptables-rules', 'nft-tables', 'nft-chains']
    for (const section of [...shared, ...(IS_ROOT ? rootOnly : [])]) {
      assert.equal(pod.bundle.sections.get(section), host.sections.get(section), section)
      assert.deepEqual(pod.bundle.unavailable.get(section), host.unavailable.get(section), section)
    }
  })

  it("finds the container's kube-proxy, in a container, with its flags split without tr", () => {
    const lines = (pod.bundle.sections.get('kube-proxy-process') ?? '').split('\n')
    const index = lines.findIndex((line) => line.startsWith(`pid=${proxy.pid} `))
    assert.equal(lines[index], `pid=${proxy.pid} exe=kube-proxy container=yes args=--config=/var/lib/kube-proxy/config.conf`)
    assert.equal(lines[index + 1], 'skip-kernel-check=unset')
  })

  /** The image's tools with some replaced by scripts run by the image's dash. */
  async function fakedTools(scripts: Record<string, string>): Promise<string> {
    const faked = await mkdtemp(join(tmpdir(), 'kpx-pod-tools-'))
    for (const name of await readdir(tools.dir)) {
      if (!(name in scripts)) await symlink(join(tools.dir, name), join(faked, name))
    }

    for (const [name, script] of Object.entries(scripts)) await writeFile(join(faked, name), `#!${join(tools.dir, 'dash')}\n${script}`, {mode: 0o755})
    return faked
  }

  it('stops a hanging command after KPX_TIMEOUT seconds without a timeout utility, and leaves no process behind', async () => {
    const faked = await fakedTools({nft: 'exec sleep 607\n'})
    try {
      const started = Date.now()
      const run = await runInImage(faked, scratch, {env: {KPX_TIMEOUT: '2'}})
      assert.ok(Date.now() - started < 8000, `took ${Date.now() - started} ms`)
      assert.equal(unavailable(run.bundle, 'kube-proxy-nft-version'), 'timeout bound=2s')
      // Timed out once, not run again.
      if (IS_ROOT) assert.equal(unavailable(run.bundle, 'nft-tables'), 'timeout bound=2s')
      assert.equal(run.bundle.sections.get('kernel-release'), release())
      const commandLines = await Promise.all(
        (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry)).map((pid) => readFile(`/proc/${pid}/cmdline`, 'latin1').catch(() => '')),
      )
      assert.deepEqual(commandLines.filter((line) => line === 'sleep\u0000607\u0000' || line === 'sleep\u00002\u0000'), [], 'neither the hung command nor a watchdog outlives the run')
    } finally {
      await rm(faked, {recursive: true, force: true})
    }
  })

  it('escapes header-like lines, ends bodies with a newline and cleans error details without sed, tail or cut', async () => {
    const faked = await fakedTools({
      // nft fails with a long, tab- and control-character-ridden first line of stderr.
      nft: "printf 'bad\\tthing\\001   here %0130d\\nsecond line\\n' 7 >&2\nexit 1\n",
      // iptables --version prints a line that looks like a section header, and no final newline.
      iptables: "printf '### iptables v1.8.9 (nf_tables)\\nend'\n",
    })
    try {
      const run = await runInImage(faked, scratch)
      assert.equal(run.code, 0)
      // Its first 120 characters (18 of words, 102 of the number's zeros), then printable and squeezed.
      assert.equal(unavailable(run.bundle, 'kube-proxy-nft-version'), `failed exit=1 bad thing here ${'0'.repeat(102)}`)
      assert.equal(run.bundle.sections.get('iptables-version'), ' ### iptables v1.8.9 (nf_tables)\nend')
      assert.match(run.stdout, /\n ### iptables v1\.8\.9 \(nf_tables\)\nend\n### kernel-config\n/)
    } finally {
      await rm(faked, {recursive: true, force: true})
    }
  })

  it('is the host collector without the word kube-proxy-pod: os-release and services read as usual', async () => {
    const run = await runInImage(tools.dir, scratch, {args: ['-s']})
    assert.equal(run.code, 0)
    assert.equal(run.bundle.sections.get('os-release'), host.sections.get('os-release'))
    assert.equal(run.bundle.unavailable.has('services'), host.unavailable.has('services'))
    assert.equal(await readFile('/etc/os-release', 'utf8').then((text) => text.trim()), host.sections.get('os-release'))
  })
})
