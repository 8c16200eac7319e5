/**
 * Runs the real node facts collector (src/sources/collector/collect.sh) under dash and busybox sh on this
 * machine, as root and as nobody, with and without fake node commands on PATH, and checks the
 * bundle it prints against the v1 contract.
 *
 * Needs: dash, busybox (Debian packages `dash`, `busybox`), util-linux `setpriv` for the non-root
 * run. shellcheck and checkbashisms are used when present. nft, iptables and systemd are optional:
 * their absence is an outcome the tests assert on.
 */
import assert from 'node:assert/strict'
import {type ChildProcess, execFile, spawn} from 'node:child_process'
import {constants} from 'node:fs'
import {access, chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {hostname, release, tmpdir} from 'node:os'
import {delimiter, join} from 'node:path'
import {after, before, describe, it} from 'node:test'

import {type Bundle, parseBundle} from '../../../src/facts/bundle.js'
import {COLLECTOR_SCRIPT} from '../../../src/util/paths.js'
import {skipOutsideCi} from '../../helpers/ci.js'
import {startKubeProxyStandIn} from '../../helpers/kube-proxy-stand-in.js'

/** Every section of bundle format v1, in the order the collector prints them. */
const SECTIONS = [
  'collector',
  'hostname',
  'machine-id',
  'kernel-release',
  'os-release',
  'nft-version',
  'kube-proxy-nft-version',
  'iptables-version',
  'kernel-config',
  'modules',
  'modules-builtin',
  'modules-available',
  'nft-check',
  'ipvs',
  'kube-ipvs0',
  'sysctl',
  'services',
  'iptables-policies',
  'iptables-rules',
  'nft-tables',
  'nft-chains',
  'addresses',
  'kube-proxy-mode',
  'kube-proxy-metrics',
  'kube-proxy-healthz',
  'kube-proxy-process',
  'nft-json',
  'ruleset-flush',
  'ipvs-balancers',
  'rollback-kernel',
  'iptables-nft-incompatible',
  'ipsets',
  'unavailable',
]

const ROOT_ONLY = ['nft-check', 'iptables-policies', 'iptables-rules', 'nft-tables', 'nft-chains']

const REASONS = new Set(['not-installed', 'permission-denied', 'not-present', 'unreachable', 'timeout', 'failed'])

/** The directories the collector appends to PATH. */
const SYSTEM_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin']

const IS_ROOT = process.getuid?.() === 0
const NOBODY = 65_534

interface Run {
  stdout: string
  stderr: string
  code: number
  ms: number
  bundle: Bundle
}

interface RunOptions {
  /** Directories put in front of PATH. */
  pathFront?: string[]
  /** Replace PATH (before the collector appends the system directories). */
  path?: string
  env?: Record<string, string>
  /** Run as nobody through setpriv (the caller must be root). */
  asNobody?: boolean
  script?: string
  args?: string[]
  cwd?: string
}

async function which(name: string, extraDirs: string[] = []): Promise<string | undefined> {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...extraDirs]
  for (const dir of dirs) {
    const candidate = join(dir, name)
    try {
      await access(candidate, constants.X_OK)
      return candidate
    } catch {
      // next
    }
  }

  return undefined
}

function execFileResult(
  file: string,
  args: string[],
  options: {env?: NodeJS.ProcessEnv; cwd?: string; timeout?: number} = {},
): Promise<{stdout: string; stderr: string; code: number}> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, timeout: options.timeout ?? 30_000, ...options},
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(error)
          return
        }

        resolve({stdout, stderr, code: error ? (error.code as number) : 0})
      },
    )
  })
}

/** Runs the collector under `shell` (argv prefix, e.g. ['/usr/bin/dash']) and parses its bundle. */
async function runCollector(shell: string[], options: RunOptions = {}): Promise<Run> {
  const basePath = options.path ?? process.env.PATH ?? ''
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: [...(options.pathFront ?? []), basePath].filter(Boolean).join(delimiter),
    ...options.env,
  }
  if (!options.env || !('KPX_TIMEOUT' in options.env)) delete env.KPX_TIMEOUT
  const argv = [...shell, options.script ?? COLLECTOR_SCRIPT, ...(options.args ?? [])]
  const [file, ...args] = options.asNobody
    ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', ...argv]
    : argv
  const started = Date.now()
  const result = await execFileResult(file, args, {env, cwd: options.cwd})
  const ms = Date.now() - started
  assert.equal(result.code, 0, `collector exited ${result.code}: ${result.stderr}`)
  return {...result, ms, bundle: parseBundle(result.stdout)}
}

function sectionNames(bundle: Bundle): string[] {
  return [...bundle.sections.keys()]
}

function reasons(bundle: Bundle): Record<string, string> {
  return Object.fromEntries([...bundle.unavailable].map(([section, fact]) => [section, fact.reason]))
}

function assertContract(run: Run): void {
  assert.ok(run.stdout.startsWith('# kpx-check node facts v1\n'), 'first line is the v1 header')
  assert.deepEqual(sectionNames(run.bundle), SECTIONS)
  for (const [section, fact] of run.bundle.unavailable) {
    assert.ok(SECTIONS.includes(section), `unavailable names a known section: ${section}`)
    assert.ok(REASONS.has(fact.reason), `reason ${fact.reason} for ${section}`)
  }

  const collector = run.bundle.sections.get('collector') ?? ''
  assert.match(collector, /^version=0\.1\.0\nuid=\d+\ntime=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\nwhere=host$/)
}

async function osReleaseText(): Promise<string> {
  try {
    return await readFile('/etc/os-release', 'utf8')
  } catch {
    return readFile('/usr/lib/os-release', 'utf8')
  }
}

async function writeExecutable(path: string, text: string): Promise<void> {
  await writeFile(path, text)
  await chmod(path, 0o755)
}

/** A world-readable temp dir (nobody must reach the fakes in it). */
async function openTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  await chmod(dir, 0o755)
  return dir
}

const NFT_VERSION = 'nftables v1.0.6 (Lester Gooch #5)'
const STDERR_MARKER = 'STDERR-MUST-NOT-LEAK'

const FAKE_RULESET = `table inet filter {
\tchain input {
\t\ttype filter hook input priority filter; policy drop;
\t\tct state established,related accept
\t\tiif "lo" accept
\t}
\tchain forward {
\t\ttype filter hook forward priority filter; policy accept;
\t}
\tchain helper {
\t\tcounter
\t}
}
table ip kube-proxy {
\tset cluster-ips {
\t\ttype ipv4_addr
\t\telements = { 10.96.0.1 }
\t}
\tchain nat-prerouting {
\t\ttype nat hook prerouting priority dstnat; policy accept;
\t\tjump services
\t}
}
`

// nft-check is the one section that shows a command's combined stdout and stderr.
const FAKE_NFT = String.raw`#!/bin/sh
case "$1" in
  -c) echo 'warning: probe checked' >&2; exit 0 ;;
esac
echo '${STDERR_MARKER} nft' >&2
case "$1" in
  --version) echo '${NFT_VERSION}' ;;
  list)
    case "$2" in
      tables) printf 'table inet filter\n### injected\ntable ip kube-proxy\n' ;;
      ruleset) cat <<'EOF'
${FAKE_RULESET}EOF
      ;;
    esac
    ;;
esac
exit 0
`

const FAKE_IPTABLES = String.raw`#!/bin/sh
echo '${STDERR_MARKER} iptables' >&2
case "$1 $2" in
  "--version ") echo 'iptables v1.8.9 (nf_tables)' ;;
  "-S INPUT") printf -- '-P INPUT DROP\n-A INPUT -j KUBE-FIREWALL\n' ;;
  "-S FORWARD") printf -- '-P FORWARD ACCEPT\n-N KUBE-FORWARD\n' ;;
esac
`

const FAKE_LEGACY_SAVE = String.raw`#!/bin/sh
printf '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -j KUBE-FIREWALL\n-A INPUT -s 192.0.2.1/32 -j DROP\nCOMMIT\n'
`

const FAKE_NFT_SAVE = String.raw`#!/bin/sh
printf '*nat\n-A PREROUTING -j KUBE-SERVICES\n-A OUTPUT -j KUBE-SERVICES\n-A POSTROUTING -j MASQUERADE\nCOMMIT\n'
`

/** IPv6: kube-proxy's Service chains of iptables mode (a chain, a rule in it), KUBE-FIREWALL, which is the kubelet's. */
const FAKE_IP6_NFT_SAVE = String.raw`#!/bin/sh
printf '*nat\n:KUBE-SVC-ABCDEFGHIJKLMNOP - [0:0]\n-A KUBE-SVC-ABCDEFGHIJKLMNOP -j KUBE-SEP-QRSTUVWXYZ234567\nCOMMIT\n*filter\n:KUBE-FIREWALL - [0:0]\n-A INPUT -j KUBE-FIREWALL\nCOMMIT\n'
`

const FAKE_IP6_LEGACY_SAVE = `#!/bin/sh
exit 0
`

const FAKE_METRICS = `# HELP kubeproxy_iptables_ct_state_invalid_dropped_packets_total [ALPHA] packets dropped
# TYPE kubeproxy_iptables_ct_state_invalid_dropped_packets_total counter
kubeproxy_iptables_ct_state_invalid_dropped_packets_total 7
kubeproxy_iptables_localhost_nodeports_accepted_packets_total 0
kubeproxy_sync_proxy_rules_duration_seconds_count 3
kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv4"} 1.7965388423e+09
kubeproxy_sync_proxy_rules_last_timestamp_seconds_total 9
rest_client_requests_total{code="200"} 10
`

const FAKE_CURL = `#!/bin/sh
echo '${STDERR_MARKER} curl' >&2
for arg in "$@"; do url=$arg; done
case "$url" in
  */proxyMode) printf 'iptables' ;;
  */metrics) cat <<'EOF'
${FAKE_METRICS}EOF
  ;;
  *) exit 7 ;;
esac
`

const HANGING = `#!/bin/sh
exec sleep 600
`

let dash: string | undefined
let busybox: string | undefined
let workDir: string
let fakeBin: string
let hangBin: string
let busyboxBin: string | undefined

before(async () => {
  dash = await which('dash', SYSTEM_DIRS)
  busybox = await which('busybox', SYSTEM_DIRS)
  workDir = await openTempDir('kpx-collector-test-')

  fakeBin = join(workDir, 'fake')
  await mkdir(fakeBin, {mode: 0o755})
  await writeExecutable(join(fakeBin, 'nft'), FAKE_NFT)
  await writeExecutable(join(fakeBin, 'iptables'), FAKE_IPTABLES)
  await writeExecutable(join(fakeBin, 'iptables-legacy-save'), FAKE_LEGACY_SAVE)
  await writeExecutable(join(fakeBin, 'iptables-nft-save'), FAKE_NFT_SAVE)
  await writeExecutable(join(fakeBin, 'ip6tables-nft-save'), FAKE_IP6_NFT_SAVE)
  await writeExecutable(join(fakeBin, 'ip6tables-legacy-save'), FAKE_IP6_LEGACY_SAVE)
  await writeExecutable(join(fakeBin, 'curl'), FAKE_CURL)

  hangBin = join(workDir, 'hang')
  await mkdir(hangBin, {mode: 0o755})
  await writeExecutable(join(hangBin, 'nft'), HANGING)

  if (busybox) {
    // A busybox-only userland (sed, grep, tr, timeout, ... are busybox applets), as on minimal nodes.
    busyboxBin = join(workDir, 'busybox-bin')
    await mkdir(busyboxBin, {mode: 0o755})
    await execFileResult(busybox, ['--install', '-s', busyboxBin])
  }
})

after(async () => {
  if (workDir) await rm(workDir, {recursive: true, force: true})
})

/** dash must be there; busybox may be missing on a developer machine, but never in CI. */
function requireBusybox(t: {skip: (message: string) => void}): string | undefined {
  if (busybox) return busybox
  skipOutsideCi(t, 'busybox is not installed (apt-get install busybox)')
  return undefined
}

function requireDash(): string {
  assert.ok(dash, 'dash is required (apt-get install dash)')
  return dash
}

describe('collector script syntax', () => {
  it('parses under dash -n and busybox sh -n', async (t) => {
    const dashResult = await execFileResult(requireDash(), ['-n', COLLECTOR_SCRIPT])
    assert.equal(dashResult.code, 0, dashResult.stderr)
    const bb = requireBusybox(t)
    if (!bb) return
    const bbResult = await execFileResult(bb, ['sh', '-n', COLLECTOR_SCRIPT])
    assert.equal(bbResult.code, 0, bbResult.stderr)
  })

  it('passes shellcheck as POSIX sh', async (t) => {
    const shellcheck = await which('shellcheck', SYSTEM_DIRS)
    if (!shellcheck) {
      skipOutsideCi(t, 'shellcheck is not installed (apt-get install shellcheck)')
      return
    }

    const result = await execFileResult(shellcheck, ['--shell=sh', '--severity=info', COLLECTOR_SCRIPT])
    assert.equal(result.code, 0, result.stdout + result.stderr)
  })

  it('has no bashisms according to checkbashisms', async (t) => {
    const checkbashisms = await which('checkbashisms', SYSTEM_DIRS)
    if (!checkbashisms) {
      skipOutsideCi(t, 'checkbashisms is not installed (apt-get install devscripts)')
      return
    }

    const result = await execFileResult(checkbashisms, ['--posix', COLLECTOR_SCRIPT])
    assert.equal(result.code, 0, result.stdout + result.stderr)
  })
})

describe('collector on this machine', () => {
  let dashRun: Run

  before(async () => {
    dashRun = await runCollector([requireDash()])
  })

  it('prints a v1 bundle with every section, in order, in well under 10 s', () => {
    assertContract(dashRun)
    assert.ok(dashRun.ms < 10_000, `took ${dashRun.ms} ms`)
  })

  it('reports the kernel release, hostname and os-release of this machine', async () => {
    const {sections} = dashRun.bundle
    assert.equal(sections.get('kernel-release'), release())
    assert.equal(sections.get('hostname'), hostname())
    // What the Node calls nodeInfo.machineID: a probe compares it with the Node it meant to reach.
    const machineId = (await readFile('/etc/machine-id', 'utf8')).trim()
    assert.match(sections.get('machine-id') ?? '', new RegExp(`^machine-id=${machineId}$`, 'm'))
    assert.equal(sections.get('os-release'), (await osReleaseText()).replace(/\n+$/, ''))
    assert.equal(sections.get('collector')?.split('\n', 2)[1], `uid=${process.getuid?.()}`)
  })

  it('reports nft when, and only when, nft is installed', async () => {
    const nft = await which('nft', SYSTEM_DIRS)
    const body = dashRun.bundle.sections.get('nft-version') ?? ''
    if (nft) {
      assert.match(body, /^nftables v\d/)
      assert.equal(dashRun.bundle.unavailable.has('nft-version'), false)
    } else {
      assert.equal(body, '')
      assert.equal(dashRun.bundle.unavailable.get('nft-version')?.reason, 'not-installed')
      for (const section of ['nft-check', 'nft-tables', 'nft-chains']) {
        assert.equal(dashRun.bundle.unavailable.get(section)?.reason, 'not-installed', section)
      }
    }
  })

  it('reports iptables when, and only when, iptables is installed', async () => {
    const iptables = await which('iptables', SYSTEM_DIRS)
    const body = dashRun.bundle.sections.get('iptables-version') ?? ''
    if (iptables) {
      assert.match(body, /^iptables v\d/)
    } else {
      assert.equal(body, '')
      assert.equal(dashRun.bundle.unavailable.get('iptables-version')?.reason, 'not-installed')
    }
  })

  it('names the services it looked at and how', () => {
    const lines = (dashRun.bundle.sections.get('services') ?? '').split('\n')
    assert.match(lines[0], /^# method: (systemctl|proc)$/)
    assert.deepEqual(
      lines.slice(1).map((line) => line.split(' ', 1)[0]),
      ['firewalld', 'ufw', 'nftables', 'docker', 'keepalived'],
    )
    for (const line of lines.slice(1)) assert.match(line, /^[a-z]+ [a-z-]+$/)
  })

  it('reads the sysctls from /proc/sys as "name = value"', async () => {
    const body = dashRun.bundle.sections.get('sysctl') ?? ''
    const expected: string[] = []
    for (const [name, file] of [
      ['net.ipv4.conf.all.route_localnet', '/proc/sys/net/ipv4/conf/all/route_localnet'],
      ['net.netfilter.nf_conntrack_tcp_be_liberal', '/proc/sys/net/netfilter/nf_conntrack_tcp_be_liberal'],
      ['net.ipv4.vs.conn_reuse_mode', '/proc/sys/net/ipv4/vs/conn_reuse_mode'],
    ]) {
      try {
        expected.push(`${name} = ${(await readFile(file, 'utf8')).trim()}`)
      } catch {
        // absent: skipped
      }
    }

    assert.equal(body, expected.join('\n'))
  })

  it('shows kernel config lines only for the options kube-proxy needs, with their source', () => {
    const body = dashRun.bundle.sections.get('kernel-config')
    if (dashRun.bundle.unavailable.has('kernel-config')) {
      assert.equal(body, '')
      return
    }

    const [source, ...lines] = (body ?? '').split('\n')
    assert.match(source, /^# source: \/\S+$/)
    for (const line of lines) {
      assert.match(
        line,
        /^(CONFIG_|# CONFIG_)(NF_TABLES|NF_TABLES_IPV4|NF_TABLES_IPV6|NF_TABLES_INET|NFT_[A-Z0-9_]+|NF_CONNTRACK|NF_NAT|NETFILTER_NETLINK_ACCT|NETFILTER_XT_MATCH_NFACCT|IP_VS)(=| is not set$)/,
      )
    }
  })

  it('prints the same shape under busybox sh as under dash', async (t) => {
    const bb = requireBusybox(t)
    if (!bb) return
    const bbRun = await runCollector([bb, 'sh'])
    assertContract(bbRun)
    assert.ok(bbRun.ms < 10_000, `took ${bbRun.ms} ms`)
    assert.deepEqual(sectionNames(bbRun.bundle), sectionNames(dashRun.bundle))
    assert.deepEqual(reasons(bbRun.bundle), reasons(dashRun.bundle))
    for (const section of SECTIONS.filter((name) => !['collector', 'kube-proxy-process', 'unavailable'].includes(name))) {
      assert.equal(bbRun.bundle.sections.get(section), dashRun.bundle.sections.get(section), section)
    }
  })

  it('works with a busybox-only userland (busybox sed, grep, timeout, ...)', async (t) => {
    const bb = requireBusybox(t)
    if (!bb || !busyboxBin) return
    const bbRun = await runCollector([bb, 'sh'], {path: busyboxBin})
    assertContract(bbRun)
    for (const section of ['hostname', 'kernel-release', 'os-release', 'kernel-config', 'modules', 'sysctl', 'ipvs']) {
      assert.equal(bbRun.bundle.sections.get(section), dashRun.bundle.sections.get(section), section)
    }
  })

  it('works when fed on standard input (sh -s), as a remote shell runs it', async () => {
    const script = await readFile(COLLECTOR_SCRIPT)
    const env = {...process.env}
    delete env.KPX_TIMEOUT
    const child = spawn(requireDash(), ['-s'], {env, stdio: ['pipe', 'pipe', 'pipe']})
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    child.stderr.resume()
    const code = new Promise<number | null>((resolve) => {
      child.on('close', resolve)
    })
    child.stdin.end(script)
    assert.equal(await code, 0)
    const bundle = parseBundle(stdout)
    assert.deepEqual(sectionNames(bundle), SECTIONS)
    assert.deepEqual(reasons(bundle), reasons(dashRun.bundle))
    assert.equal(bundle.sections.get('os-release'), dashRun.bundle.sections.get('os-release'))
  })

  it('ignores arguments and an invalid KPX_TIMEOUT', async () => {
    const marker = join(workDir, 'must-not-exist')
    const run = await runCollector([requireDash()], {
      args: ['--help', `$(touch ${marker})`, `;touch ${marker}`],
      env: {KPX_TIMEOUT: `1; touch ${marker}`},
    })
    assertContract(run)
    assert.match(run.stderr, /KPX_TIMEOUT/)
    await assert.rejects(access(marker))
    assert.deepEqual(reasons(run.bundle), reasons(dashRun.bundle))
  })
})

describe('collector with fake node commands', () => {
  let proxy: ChildProcess
  let dashRun: Run

  before(async () => {
    // A process whose argv[0] is kube-proxy, with a secret among its flags and the
    // kernel-check override in its environment.
    proxy = await startKubeProxyStandIn(
      ['--proxy-mode=iptables', '--config', '/var/lib/kube-proxy/config.conf', '--token=SECRET-TOKEN', '--kubeconfig=/etc/kubernetes/kubeconfig', '--masquerade-all', '--kube-proxy-arg=token=SECRET-TOKEN-2'],
      {...process.env, KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK: '1', API_TOKEN: 'SECRET-ENV'},
    )
    dashRun = await runCollector([requireDash()], {pathFront: [fakeBin]})
  })

  after(() => {
    proxy?.kill('SIGKILL')
  })

  it('puts the fake nft version in nft-version and keeps stderr out of the bundle', () => {
    assertContract(dashRun)
    assert.equal(dashRun.bundle.sections.get('nft-version'), NFT_VERSION)
    assert.equal(dashRun.bundle.sections.get('iptables-version'), 'iptables v1.8.9 (nf_tables)')
    assert.ok(!dashRun.stdout.includes(STDERR_MARKER), 'no stderr in the bundle')
  })

  it('reads kube-proxy mode and only the metrics that matter', () => {
    assert.equal(dashRun.bundle.sections.get('kube-proxy-mode'), 'iptables')
    assert.equal(
      dashRun.bundle.sections.get('kube-proxy-metrics'),
      // A family is kept whole and only whole: …last_timestamp_seconds_total is another family.
      'kubeproxy_iptables_ct_state_invalid_dropped_packets_total 7\nkubeproxy_iptables_localhost_nodeports_accepted_packets_total 0\nkubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv4"} 1.7965388423e+09',
    )
  })

  it('finds the kube-proxy process, shows only safe flags, and never a secret', async () => {
    const body = dashRun.bundle.sections.get('kube-proxy-process') ?? ''
    const lines = body.split('\n')
    const index = lines.findIndex((line) => line.startsWith(`pid=${proxy.pid} `))
    assert.notEqual(index, -1, body)
    const cgroup = await readFile(`/proc/${proxy.pid}/cgroup`, 'utf8')
    const container = /kubepods|docker|containerd|crio/.test(cgroup) ? 'yes' : 'no'
    assert.equal(
      lines[index],
      `pid=${proxy.pid} exe=kube-proxy container=${container} args=--proxy-mode=iptables --config=/var/lib/kube-proxy/config.conf --masquerade-all`,
    )
    // The collector runs as the same user as this process: the environment is readable.
    assert.equal(lines[index + 1], 'skip-kernel-check=set')
    assert.ok(!dashRun.stdout.includes('SECRET'), 'no secret in the bundle')
  })

  it('reads the root-only sections when root', (t) => {
    if (!IS_ROOT) {
      skipOutsideCi(t, 'not running as root')
      return
    }

    const {sections, unavailable} = dashRun.bundle
    for (const section of ROOT_ONLY) assert.equal(unavailable.has(section), false, section)
    assert.equal(sections.get('nft-check'), 'exit=0\nwarning: probe checked')
    // A body line that looks like a section header is shifted by one space.
    assert.equal(sections.get('nft-tables'), 'table inet filter\n ### injected\ntable ip kube-proxy')
    assert.equal(
      sections.get('nft-chains'),
      [
        'table inet filter {',
        '\tchain input {',
        '\t\ttype filter hook input priority filter; policy drop;',
        '\tchain forward {',
        '\t\ttype filter hook forward priority filter; policy accept;',
        '\tchain helper {',
        'table ip kube-proxy {',
        '\tset cluster-ips {',
        '\tchain nat-prerouting {',
        '\t\ttype nat hook prerouting priority dstnat; policy accept;',
      ].join('\n'),
    )
    assert.equal(sections.get('iptables-policies'), '-P INPUT DROP\n-P FORWARD ACCEPT')
    // svc=: kube-proxy's Service chains, IPv6 on a line of its own: KUBE-FIREWALL is not one.
    assert.equal(sections.get('iptables-rules'), 'legacy6 svc=0\nlegacy total=2 kube=1 svc=0\nnft6 svc=2\nnft total=3 kube=2 svc=2')
  })

  for (const userland of ['system', 'busybox'] as const) {
    it(`gives the same bundle under busybox sh with ${userland} tools`, async (t) => {
      const bb = requireBusybox(t)
      if (!bb || !busyboxBin) return
      const bbRun = await runCollector([bb, 'sh'], {
        pathFront: [fakeBin],
        path: userland === 'busybox' ? busyboxBin : undefined,
      })
      assertContract(bbRun)
      assert.deepEqual(reasons(bbRun.bundle), reasons(dashRun.bundle))
      // busybox ip prints addresses a little differently from iproute2.
      const skip = new Set(['collector', 'kube-proxy-process', ...(userland === 'busybox' ? ['addresses'] : [])])
      for (const section of SECTIONS.filter((name) => !skip.has(name))) {
        assert.equal(bbRun.bundle.sections.get(section), dashRun.bundle.sections.get(section), section)
      }

      const line = (bundle: Bundle) =>
        (bundle.sections.get('kube-proxy-process') ?? '').split('\n').find((l) => l.startsWith(`pid=${proxy.pid} `))
      assert.ok(line(bbRun.bundle))
      assert.equal(line(bbRun.bundle), line(dashRun.bundle))
    })
  }

  it('lists the root-only sections as permission-denied when run as nobody', async (t) => {
    let run: Run
    if (IS_ROOT) {
      const setpriv = await which('setpriv', SYSTEM_DIRS)
      if (!setpriv) {
        skipOutsideCi(t, 'setpriv is not installed (apt-get install util-linux)')
        return
      }

      // A copy nobody can read, wherever the checkout lives.
      const script = join(workDir, 'collect.sh')
      await copyFile(COLLECTOR_SCRIPT, script)
      await chmod(script, 0o644)
      run = await runCollector([requireDash()], {pathFront: [fakeBin], asNobody: true, script, cwd: workDir})
      assert.equal(run.bundle.sections.get('collector')?.split('\n', 2)[1], `uid=${NOBODY}`)
    } else {
      run = await runCollector([requireDash()], {pathFront: [fakeBin]})
    }

    assertContract(run)
    for (const section of ROOT_ONLY) {
      assert.equal(run.bundle.unavailable.get(section)?.reason, 'permission-denied', section)
      assert.equal(run.bundle.sections.get(section), '', section)
    }

    // Non-root reads still work.
    assert.equal(run.bundle.sections.get('nft-version'), NFT_VERSION)
    assert.equal(run.bundle.sections.get('kernel-release'), release())
    if (IS_ROOT) {
      const body = run.bundle.sections.get('kube-proxy-process') ?? ''
      const lines = body.split('\n')
      const index = lines.findIndex((line) => line.startsWith(`pid=${proxy.pid} `))
      if (index !== -1) assert.equal(lines[index + 1], 'skip-kernel-check=unreadable')
    }
  })
})

describe('collector time bound', () => {
  for (const variant of ['dash', 'busybox'] as const) {
    it(`stops a hanging nft after KPX_TIMEOUT seconds (${variant})`, async (t) => {
      let shell: string[]
      let path: string | undefined
      if (variant === 'dash') {
        shell = [requireDash()]
      } else {
        const bb = requireBusybox(t)
        if (!bb || !busyboxBin) return
        // busybox's own timeout applet, which exits 143 instead of 124.
        shell = [bb, 'sh']
        path = busyboxBin
      }

      const run = await runCollector(shell, {pathFront: [hangBin], path, env: {KPX_TIMEOUT: '1'}})
      assertContract(run)
      assert.ok(run.ms < 8000, `took ${run.ms} ms`)
      assert.equal(run.bundle.unavailable.get('nft-version')?.reason, 'timeout')
      assert.equal(run.bundle.sections.get('nft-version'), '')
      if (IS_ROOT) {
        // A command that timed out once is not run again.
        for (const section of ['nft-check', 'nft-tables', 'nft-chains']) {
          assert.equal(run.bundle.unavailable.get(section)?.reason, 'timeout', section)
        }
      }

      // Everything else was still collected.
      assert.equal(run.bundle.sections.get('kernel-release'), release())
    })
  }
})

/**
 * The ipsets section with the real ipset command, in a network namespace of its own (ipsets belong to one): the sets
 * kube-proxy's IPVS mode names KUBE-*, and a Calico set beside them that the collector leaves out.
 */
describe('collector ipsets (real ipset, a network namespace of its own)', () => {
  let ipset: string | undefined
  let unshare: string | undefined

  before(async () => {
    ipset = await which('ipset', SYSTEM_DIRS)
    unshare = await which('unshare', SYSTEM_DIRS)
  })

  /** The ipset command, root and a kernel with ip_set; undefined (the test skipped) without them. */
  async function requireIpset(t: {skip: (message: string) => void}): Promise<string | undefined> {
    if (!IS_ROOT || !unshare) {
      t.skip('needs root and unshare to make a network namespace')
      return undefined
    }

    try {
      await access('/sys/module/ip_set')
    } catch {
      t.skip('the kernel has no ip_set')
      return undefined
    }

    if (!ipset) skipOutsideCi(t, 'ipset is not installed (apt-get install ipset)')
    return ipset
  }

  /** The shell prefix that runs `shell` in a new network namespace holding the sets `setup` makes. */
  function inNamespace(setup: string[], shell: string[]): string[] {
    return [unshare!, '--net', '/bin/sh', '-c', `${setup.join(' && ')} && exec "$0" "$@"`, ...shell]
  }

  const SETS = ['ipset create KUBE-CLUSTER-IP hash:ip,port', 'ipset create KUBE-6-LOOP-BACK hash:ip,port,ip family inet6', 'ipset create cali40all-hosts-net hash:net']

  for (const variant of ['dash', 'busybox'] as const) {
    it(`lists the KUBE-* sets and leaves the others out, under ${variant}`, async (t) => {
      if (!(await requireIpset(t))) return
      const shell = variant === 'dash' ? [requireDash()] : requireBusybox(t) && [busybox!, 'sh']
      if (!shell) return
      const run = await runCollector(inNamespace(SETS, shell))
      assertContract(run)
      assert.equal(run.bundle.sections.get('ipsets'), 'KUBE-CLUSTER-IP\nKUBE-6-LOOP-BACK')
      assert.equal(run.bundle.unavailable.has('ipsets'), false)
    })
  }

  it('lists at most 64 names, then how many more', async (t) => {
    if (!(await requireIpset(t))) return
    const sets = Array.from({length: 66}, (_, index) => `ipset create KUBE-SET-${index} hash:ip`)
    const run = await runCollector(inNamespace(sets, [requireDash()]))
    const lines = (run.bundle.sections.get('ipsets') ?? '').split('\n')
    assert.equal(lines.length, 65)
    assert.equal(lines[63], 'KUBE-SET-63')
    assert.equal(lines[64], '# 2 more')
  })

  it('is permission-denied for nobody, and not-installed without the ipset command: never an empty list', async (t) => {
    if (!(await requireIpset(t))) return
    const script = join(workDir, 'collect-ipsets.sh')
    await copyFile(COLLECTOR_SCRIPT, script)
    await chmod(script, 0o644)
    const nobody = await runCollector([requireDash()], {asNobody: true, script, cwd: workDir})
    assert.equal(nobody.bundle.unavailable.get('ipsets')?.reason, 'permission-denied')
    assert.equal(nobody.bundle.sections.get('ipsets'), '')
    // In a kube-proxy pod the collector keeps the image's PATH: here one without ipset.
    const empty = join(workDir, 'no-ipset')
    await mkdir(empty, {recursive: true})
    const pod = await runCollector([requireDash()], {path: empty, args: ['kube-proxy-pod']})
    assert.equal(pod.bundle.unavailable.get('ipsets')?.reason, 'not-installed')
    assert.equal(pod.bundle.sections.get('ipsets'), '')
  })
})
