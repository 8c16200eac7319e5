/**
 * A corpus of realistic node facts bundles, built from real parts in test/fixtures:
 *
 * - os-release/: 116 real /etc/os-release files;
 * - kernels.tsv: real `uname -r` strings, each labelled with the distro it was seen on;
 * - kernel-config/: real kernel configs (netfilter lines), named by kernel release;
 * - tool-versions.tsv: real `nft --version` / `iptables --version` banners;
 * - SOURCES.md: which kernel a captured os-release came with ("node kernel (uname -r) = …").
 *
 * Each os-release is paired with kernels of the same distro and major version where the corpus
 * has them (the documented kernel first; for Enterprise Linux rebuilds, any `.elN` kernel of the
 * same N), else with the kernels of the distro's nearest version in the corpus, else with those of
 * the distro it derives from.
 * The kernel config is the captured one of that exact kernel, else that of a sibling build
 * (same major.minor and flavour, e.g. 5.15.0-1020-azure → 5.15.0-1051-azure), else none (the
 * bundle then lists the section unavailable). Module lists follow the config (=y → modules.builtin,
 * =m → modules.dep), and the nft -c result follows the features the config provides, so each
 * bundle is self-consistent. The nft/iptables banners are real banners whose version is the one
 * the distro ships, or the nearest one the corpus has (approximate for distros the corpus has no
 * banner for). Everything is deterministic: the same files every run.
 *
 * The corpus is built without the parsers and judges it tests (src/facts/parsers): it reads its
 * parts with the few plain readers below, so a broken parser cannot shape its own test input.
 */
import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {PACKAGE_ROOT} from '../../src/util/paths.js'

export const FIXTURES_DIR = join(PACKAGE_ROOT, 'test', 'fixtures')

// --- real parts ---------------------------------------------------------------------------------

interface KernelRow {
  distro: string
  release: string
  source: string
}

interface ToolRow {
  tool: string
  output: string
  source: string
}

/** Rows of a tab-separated fixture with a header line. */
function readTsv(name: string): Array<Record<string, string>> {
  const [header, ...lines] = readFileSync(join(FIXTURES_DIR, name), 'utf8').split('\n')
  const columns = header.split('\t')
  return lines
    .filter((line) => line.trim() !== '')
    .map((line) => Object.fromEntries(line.split('\t').map((cell, index) => [columns[index], cell])))
}

export function kernelRows(): KernelRow[] {
  return readTsv('kernels.tsv').map((row) => ({distro: row.distro, release: row.kernel_release, source: row.source}))
}

/**
 * kernel_release → the outcome node/kernel-version must have on it, from kernel-verdicts.tsv: written
 * apart from the code under test (SOURCES.md says how), for every row of kernels.tsv.
 */
export function kernelVerdicts(): Map<string, 'fail' | 'pass'> {
  return new Map(readTsv('kernel-verdicts.tsv').map((row) => [row.kernel_release, row['node/kernel-version'] as 'fail' | 'pass']))
}

export function toolRows(): ToolRow[] {
  return readTsv('tool-versions.tsv').map((row) => ({tool: row.tool, output: row.output, source: row.source}))
}

/** os-release fixtures, by file name without `.txt`, sorted. */
export function osReleaseFiles(): Array<{stem: string; text: string}> {
  const dir = join(FIXTURES_DIR, 'os-release')
  return readdirSync(dir)
    .filter((file) => file.endsWith('.txt'))
    .toSorted()
    .map((file) => ({stem: file.slice(0, -'.txt'.length), text: readFileSync(join(dir, file), 'utf8')}))
}

/** Captured kernel configs, by kernel release. */
export function kernelConfigs(): Map<string, string> {
  const dir = join(FIXTURES_DIR, 'kernel-config')
  return new Map(
    readdirSync(dir)
      .filter((file) => file.endsWith('.config'))
      .map((file) => [file.slice(0, -'.config'.length), readFileSync(join(dir, file), 'utf8')]),
  )
}

/** os-release stem → the kernel it was captured with, from SOURCES.md. */
function documentedKernels(): Map<string, string> {
  const kernels = new Map<string, string>()
  for (const line of readFileSync(join(FIXTURES_DIR, 'SOURCES.md'), 'utf8').split('\n')) {
    const match = /^\| `os-release\/(.+?)\.txt` \|.*node kernel \(uname -r\) = (\S+?)\s*\|?\s*$/.exec(line)
    if (match) kernels.set(match[1], match[2])
  }

  return kernels
}

// --- plain readers, apart from the code under test ----------------------------------------------

/** The numbers of a dotted version (`1.0.6` → [1, 0, 6]). */
const versionNumbers = (version: string): number[] => version.split('.').map(Number)

/** Numeric order of dotted versions; a missing component counts as 0. */
function compareDotted(a: string, b: string): number {
  const [left, right] = [versionNumbers(a), versionNumbers(b)]
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0)
    if (difference !== 0) return Math.sign(difference)
  }

  return 0
}

/** major.minor.patch at the start of a kernel release (`5.15.0-1034-azure` → `5.15.0`). */
function kernelVersionOf(release: string): string {
  const match = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(release)
  if (!match) throw new Error(`kernels.tsv: ${release} does not start with a version`)
  return `${match[1]}.${match[2]}.${match[3] ?? 0}`
}

/** The last value of an os-release key, unquoted and trimmed. */
function osReleaseField(text: string, key: string): string | undefined {
  const values = [...text.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((match) => match[1].trim().replace(/^(["'])(.*)\1$/, '$2'))
  return values.at(-1)
}

/** `nftables v1.0.6 (Lester Gooch #5)` → 1.0.6. */
const nftBannerVersion = (banner: string): string | undefined => /^nftables v(\d+(?:\.\d+)+)/.exec(banner)?.[1]

/** `iptables v1.8.4 (nf_tables)` → 1.8.4, nf_tables; a banner without a backend is legacy. */
function iptablesBanner(banner: string): {version: string; backend: string} | undefined {
  const match = /^iptables v(\d+(?:\.\d+)+)(?: \((legacy|nf_tables)\))?/.exec(banner)
  return match ? {version: match[1], backend: match[2] ?? 'legacy'} : undefined
}

/** A kernel config's `CONFIG_X=value` lines, without the CONFIG_ prefix. */
const configOptions = (configText: string): Map<string, string> =>
  new Map([...configText.matchAll(/^CONFIG_(\w+)=(\S+)$/gm)].map((match) => [match[1], match[2]]))

/** The module a modules.builtin/modules.dep path names (`kernel/net/netfilter/nft-ct.ko.xz` → nft_ct). */
const moduleOf = (path: string): string => path.split('/').at(-1)!.replace(/\.ko(\.\w+)?$/, '').replaceAll('-', '_')

// --- pairing os-release files with kernels ------------------------------------------------------

interface DistroSpec {
  /** Which kernels.tsv `distro` labels belong to the distro. */
  member?: RegExp
  /** The distro's major version in a label (group 1), or in the kernel release if fromRelease. */
  version?: RegExp
  fromRelease?: boolean
  /** Enterprise Linux rebuild: `.elN` kernels of the same N pair across the family. */
  el?: boolean
  /** The distro it derives from, for kernels when the corpus has none of its own. */
  like?: string
}

const DISTROS: Record<string, DistroSpec> = {
  alinux: {member: /^Alibaba Cloud Linux/, version: /(?:Linux|\)) (\d+)/},
  almalinux: {member: /^AlmaLinux/, version: /^AlmaLinux (\d+)/, el: true},
  amzn: {member: /^Amazon Linux/, version: /^Amazon Linux (?:AMI )?(\d+)/},
  azurelinux: {member: /^(?:Microsoft )?Azure Linux 3\.0/, version: /Azure Linux (\d+)/},
  bottlerocket: {member: /^Bottlerocket/, version: /^Bottlerocket OS (\d+)/},
  centos: {member: /^CentOS/, version: /^CentOS (?:Linux |Stream )?(?:release )?(\d+)/, el: true},
  // CoreOS Container Linux was continued as Flatcar; the corpus has only Flatcar kernels.
  coreos: {like: 'flatcar'},
  cos: {member: /^Container-Optimized OS/, version: /^Container-Optimized OS (\d+)/},
  debian: {member: /\bDebian\b/, version: /Debian (?:GNU\/Linux )?(\d+)/},
  euleros: {member: /^EulerOS/, version: /\(?SP(\d+)\)?/},
  fedora: {member: /^Fedora/, version: /^Fedora (?:CoreOS |Linux )?(\d+)/},
  flatcar: {member: /Flatcar/, version: /Flatcar\D*?(\d+)\.\d/},
  gardenlinux: {like: 'debian'},
  hce: {member: /^Huawei Cloud EulerOS/, version: /EulerOS (\d+)/},
  k3os: {member: /^k3OS/, version: /v(\d+)/},
  kylin: {member: /^Kylin/, version: /V(\d+)/},
  mariner: {member: /^(?:CBL-Mariner|Azure Linux 2\.0)/, version: /(?:CBL-Mariner|Azure Linux) (\d+)/},
  miraclelinux: {member: /^MIRACLE LINUX/, version: /(\d+)/, el: true},
  ol: {member: /^Oracle Linux/, version: /(\d+)/, el: true},
  openEuler: {member: /^openEuler/, version: /(\d+)/},
  'opensuse-leap': {like: 'sles'},
  photon: {member: /Photon/, version: /\.ph(\d+)/, fromRelease: true},
  rancheros: {member: /^RancherOS/, version: /v(\d+)/},
  rhcos: {member: /^(?:RHCOS|Red Hat Enterprise Linux CoreOS)/},
  rhel: {member: /^(?:Red Hat Enterprise Linux(?! CoreOS)|RHEL)/, version: /(\d+)\./, el: true},
  rocky: {member: /^Rocky Linux/, version: /(\d+)/, el: true},
  'sle-micro-rancher': {member: /^SUSE Linux Enterprise Micro/, version: /Micro (\d+)/},
  sles: {member: /^SUSE Linux Enterprise Server/, version: /Server (\d+)/},
  'suse-microos': {member: /^SUSE Linux Enterprise Micro/, version: /Micro (\d+)/},
  tencentos: {member: /^TencentOS/, version: /Server (\d+)/},
  ubuntu: {member: /Ubuntu \d/, version: /Ubuntu (\d+)\./},
}

interface OsInfo {
  stem: string
  text: string
  id: string
  versionId: string
  /** Major version used for pairing (`22` for 22.04, `9` for EulerOS 2.0 SP9). */
  major?: string
  /** VERSION_CODENAME, lower case, when it is a word (`trixie`). */
  codename?: string
}

function osInfo(stem: string, text: string): OsInfo {
  // os-release(5): ID defaults to linux.
  const id = osReleaseField(text, 'ID') || 'linux'
  const versionId = osReleaseField(text, 'VERSION_ID') ?? ''
  const servicePack = /SP(\d+)/.exec(osReleaseField(text, 'VERSION') ?? '')
  const major = id === 'euleros' ? servicePack?.[1] : /^[vV]?(\d+)/.exec(versionId)?.[1]
  const codename = osReleaseField(text, 'VERSION_CODENAME')?.toLowerCase()
  return {
    stem,
    text,
    id,
    versionId,
    ...(major === undefined ? {} : {major}),
    ...(codename && /^[a-z]{3,}$/.test(codename) ? {codename} : {}),
  }
}

function labelVersion(spec: DistroSpec, row: KernelRow): string | undefined {
  if (!spec.version) return undefined
  return spec.version.exec(spec.fromRelease ? row.release : row.distro)?.[1]
}

const elMajor = (release: string): string | undefined => /\.el(\d+)/.exec(release)?.[1]

function kernelsFor(os: OsInfo, rows: readonly KernelRow[], documented: ReadonlyMap<string, string>): string[] {
  const spec = DISTROS[os.id] ?? {}
  const own = spec.member ? rows.filter((row) => spec.member!.test(row.distro)) : []
  // Same major version, or the release's code name in the label ("Debian GNU/Linux trixie").
  const sameVersion = (candidate: DistroSpec, list: readonly KernelRow[]) =>
    list.filter(
      (row) =>
        (os.major !== undefined && (candidate.el && elMajor(row.release) ? elMajor(row.release) : labelVersion(candidate, row)) === os.major) ||
        (os.codename !== undefined && row.distro.toLowerCase().includes(os.codename)),
    )

  const elFamily = spec.el
    ? rows.filter((row) => Object.values(DISTROS).some((other) => other.el && other.member!.test(row.distro)) && elMajor(row.release) === os.major)
    : []
  // Without kernels of its own version, those of the distro's nearest version (older on a tie).
  const nearest = (candidate: DistroSpec, list: readonly KernelRow[]) => {
    const wanted = Number(os.major)
    const versioned = list.filter((row) => labelVersion(candidate, row) !== undefined)
    if (Number.isNaN(wanted) || versioned.length === 0) return [...list]
    const distance = (row: KernelRow) => Math.abs(Number(labelVersion(candidate, row)) - wanted) * 2 + (Number(labelVersion(candidate, row)) > wanted ? 1 : 0)
    const best = Math.min(...versioned.map((row) => distance(row)))
    return versioned.filter((row) => distance(row) === best)
  }

  const like = spec.like ? DISTROS[spec.like] : undefined
  const likeRows = like?.member ? rows.filter((row) => like.member!.test(row.distro)) : []
  const fallbacks = [sameVersion(spec, own), elFamily, nearest(spec, own), like ? sameVersion(like, likeRows) : [], like ? nearest(like, likeRows) : []]

  const chosen = [documented.get(os.stem), ...(fallbacks.find((list) => list.length > 0) ?? []).map((row) => row.release)]
  return [...new Set(chosen.filter((release): release is string => release !== undefined))]
}

/** The captured config of this kernel, else of a sibling build (same major.minor and flavour). */
function configFor(release: string, configs: ReadonlyMap<string, string>): {text: string; exact: boolean} | undefined {
  const exact = configs.get(release)
  if (exact) return {text: exact, exact: true}
  const flavour = (value: string) => value.replace(/\.el(\d+)_\d+/, '.el$1').replaceAll(/\d+/g, 'N')
  const majorMinor = (value: string) => /^\d+\.\d+/.exec(value)?.[0]
  const sibling = [...configs.keys()]
    .toSorted()
    .find((candidate) => majorMinor(candidate) === majorMinor(release) && flavour(candidate) === flavour(release))
  return sibling ? {text: configs.get(sibling)!, exact: false} : undefined
}

// --- tools ------------------------------------------------------------------------------------

interface ShippedTools {
  /** nft version the distro ships; undefined when nft is not on the host by default. */
  nft?: string
  iptables?: string
  backend: 'legacy' | 'nf_tables'
}

/**
 * What each distro ships, from memory of the distros' package versions; approximate where noted.
 * Only used to pick a plausible real banner.
 */
function shippedTools(os: OsInfo, kernelRelease: string): ShippedTools {
  const major = Number(os.major ?? 0)
  const el = elMajor(kernelRelease)
  switch (os.id) {
    case 'debian':
    case 'gardenlinux': {
      const byRelease: Record<number, ShippedTools> = {
        8: {iptables: '1.4.21', backend: 'legacy'},
        9: {iptables: '1.6.0', backend: 'legacy'},
        10: {nft: '0.9.0', iptables: '1.8.2', backend: 'nf_tables'},
        11: {nft: '0.9.8', iptables: '1.8.7', backend: 'nf_tables'},
        13: {nft: '1.1.3', iptables: '1.8.11', backend: 'nf_tables'},
      }
      return byRelease[major] ?? {nft: '1.0.6', iptables: '1.8.9', backend: 'nf_tables'}
    }

    case 'ubuntu': {
      if (major >= 24) return {nft: '1.0.9', iptables: '1.8.10', backend: 'nf_tables'}
      if (major >= 22) return {nft: '1.0.2', iptables: '1.8.7', backend: 'nf_tables'}
      if (major >= 20) return {nft: '0.9.3', iptables: '1.8.4', backend: 'legacy'}
      return {iptables: major >= 18 ? '1.6.1' : '1.6.0', backend: 'legacy'}
    }

    case 'amzn': {
      return major >= 2022 ? {nft: '1.0.4', iptables: '1.8.8', backend: 'nf_tables'} : {iptables: major === 2 ? '1.8.4' : '1.4.18', backend: 'legacy'}
    }
    case 'fedora': {
      return major >= 40 ? {nft: '1.0.9', iptables: '1.8.10', backend: 'nf_tables'} : (major >= 35 ? {nft: '1.0.0', iptables: '1.8.7', backend: 'nf_tables'} : {nft: '0.9.1', iptables: '1.8.3', backend: 'nf_tables'})
    }
    case 'bottlerocket': { // no host nft (kube-proxy brings its own); iptables is approximate
      return {iptables: '1.8.8', backend: 'nf_tables'}
    }
    case 'cos': {
      return {iptables: '1.8.8', backend: 'legacy'}
    }
    case 'k3os':
    case 'rancheros': {
      return {iptables: '1.8.8', backend: 'legacy'}
    }
    case 'coreos': {
      return {iptables: '1.6.2', backend: 'legacy'}
    }
    case 'flatcar': { // switched to the nf_tables backend in 2024 (approximate)
      return major >= 3975 ? {nft: '1.0.9', iptables: '1.8.10', backend: 'nf_tables'} : {nft: '0.9.8', iptables: '1.8.7', backend: 'legacy'}
    }
    case 'sles':
    case 'opensuse-leap': {
      return major >= 15 ? {nft: '0.9.3', iptables: '1.8.7', backend: 'legacy'} : {iptables: '1.4.21', backend: 'legacy'}
    }
    case 'suse-microos':
    case 'sle-micro-rancher': {
      return {nft: '0.9.8', iptables: '1.8.7', backend: 'legacy'}
    }
    case 'photon': {
      return major >= 5 ? {nft: '1.0.5', iptables: '1.8.9', backend: 'nf_tables'} : (major >= 4 ? {nft: '0.9.8', iptables: '1.8.7', backend: 'legacy'} : {iptables: '1.8.0', backend: 'legacy'})
    }
    case 'mariner': {
      return major >= 2 ? {nft: '1.0.1', iptables: '1.8.7', backend: 'legacy'} : {nft: '0.9.3', iptables: '1.8.3', backend: 'legacy'}
    }
    case 'azurelinux': {
      return {nft: '1.0.9', iptables: '1.8.10', backend: 'nf_tables'}
    }
    case 'openEuler':
    case 'hce': {
      return major >= 24 ? {nft: '1.0.8', iptables: '1.8.10', backend: 'nf_tables'} : {nft: '1.0.0', iptables: '1.8.7', backend: 'nf_tables'}
    }
    case 'kylin':
    case 'euleros': {
      return {nft: '0.9.3', iptables: '1.8.4', backend: 'nf_tables'}
    }
    case 'alinux': {
      return major >= 3 ? {nft: '0.9.3', iptables: '1.8.4', backend: 'nf_tables'} : {iptables: '1.4.21', backend: 'legacy'}
    }
    case 'tencentos': {
      return major >= 4 ? {nft: '1.0.9', iptables: '1.8.10', backend: 'nf_tables'} : {nft: '0.9.3', iptables: '1.8.4', backend: 'nf_tables'}
    }
    default: {
      // Enterprise Linux and rebuilds (rhel, centos, rocky, almalinux, ol, miraclelinux, rhcos).
      const release = Number(os.major ?? el ?? 8)
      const elVersion = os.id === 'rhcos' ? Number(el ?? 8) : release
      if (elVersion <= 7) return {iptables: '1.4.21', backend: 'legacy'}
      if (elVersion === 8) return {nft: Number(/^\d+\.(\d+)/.exec(os.versionId)?.[1] ?? 0) >= 7 ? '1.0.4' : '0.9.3', iptables: '1.8.4', backend: 'nf_tables'}
      if (elVersion === 9) return {nft: '1.0.4', iptables: '1.8.8', backend: 'nf_tables'}
      return {nft: '1.1.1', iptables: '1.8.11', backend: 'nf_tables'}
    }
  }
}

/**
 * The real banner closest to `version`: the exact one, else one of the same major.minor (closest
 * patch, lower on a tie), else the newest older one, else the oldest.
 */
function nearestBanner(banners: ReadonlyArray<{version: string; text: string}>, version: string): string | undefined {
  const exact = banners.find((banner) => banner.version === version)
  if (exact) return exact.text
  const [major, minor, patch = 0] = versionNumbers(version)
  const patchOf = (banner: {version: string}) => versionNumbers(banner.version)[2] ?? 0
  const sameMinor = banners
    .filter((banner) => {
      const [bMajor, bMinor] = versionNumbers(banner.version)
      return bMajor === major && bMinor === minor
    })
    .toSorted((a, b) => Math.abs(patchOf(a) - patch) - Math.abs(patchOf(b) - patch) || compareDotted(a.version, b.version))
  if (sameMinor.length > 0) return sameMinor[0].text
  const sorted = banners.toSorted((a, b) => compareDotted(a.version, b.version))
  return sorted.findLast((banner) => compareDotted(banner.version, version) < 0)?.text ?? sorted[0]?.text
}

function bannerPicker(rows: readonly ToolRow[]) {
  const nft = rows.filter((row) => row.tool === 'nft').map((row) => ({version: nftBannerVersion(row.output)!, text: row.output}))
  const iptables = rows
    .filter((row) => row.tool === 'iptables')
    .map((row) => ({...iptablesBanner(row.output)!, text: row.output}))
  return {
    nft: (version: string) => nearestBanner(nft, version),
    iptables: (version: string, backend: string) =>
      nearestBanner(
        iptables.filter((banner) => banner.backend === backend || (backend === 'legacy' && !banner.text.includes('('))),
        version,
      ) ?? nearestBanner(iptables, version),
  }
}

// --- one node's bundle --------------------------------------------------------------------------

type Mode = 'iptables' | 'ipvs' | 'nftables' | 'none'

interface NodeSpec {
  name: string
  /** Write a hostname section (default true). */
  hostname?: boolean
  root: boolean
  osRelease: string
  kernelRelease: string
  /** Captured kernel config text (with a `# source:` line); undefined = none on the node. */
  kernelConfig?: string
  moduleSuffix: string
  nftBanner?: string
  iptablesBanner?: string
  mode: Mode
  /** kube-proxy runs in a container (default), as a host binary, or inside k3s. */
  runtime?: 'container' | 'host' | 'k3s'
  skipKernelCheck?: boolean
  services: Record<string, string>
  serviceMethod: 'systemctl' | 'proc'
  /** Extra `ip -o addr` lines (besides eth0 and the IPVS dummy). */
  extraAddresses?: string[]
  ipv4: string
  ipv6?: string
  /** Metric values by name; a name absent here is not exported. */
  metrics?: Record<string, string>
  /** Counter/size seed, so nodes differ. */
  seed: number
  time?: string
}

function hash(text: string): number {
  let value = 2_166_136_261
  for (const char of text) value = Math.imul(value ^ char.codePointAt(0)!, 16_777_619) >>> 0
  return value
}

/** Kernel module path for a config option, as kbuild names it; undefined for options that are not modules. */
function modulePathFor(option: string, value: string): string | undefined {
  const fixed: Record<string, string> = {
    NF_TABLES: 'net/netfilter/nf_tables',
    NF_CONNTRACK: 'net/netfilter/nf_conntrack',
    NF_NAT: 'net/netfilter/nf_nat',
    NETFILTER_NETLINK: 'net/netfilter/nfnetlink',
    NETFILTER_NETLINK_ACCT: 'net/netfilter/nfnetlink_acct',
    NETFILTER_XT_MATCH_NFACCT: 'net/netfilter/xt_nfacct',
    NF_CONNTRACK_IPV4: 'net/ipv4/netfilter/nf_conntrack_ipv4',
    NF_NAT_IPV4: 'net/ipv4/netfilter/nf_nat_ipv4',
    IP_VS: 'net/netfilter/ipvs/ip_vs',
  }
  if (fixed[option]) return `kernel/${fixed[option]}`
  if (/^IP_VS_(RR|WRR|LC|WLC|SH|DH|MH|SED|NQ|LBLC|LBLCR|FO|OVF|TWOS)$/.test(option)) return `kernel/net/netfilter/ipvs/${option.toLowerCase()}`
  // NF_TABLES_IPV4 and friends were modules before 4.17 and are bools since; only =m is a module.
  if (/^NF_TABLES_(IPV4|IPV6|INET|NETDEV|ARP|BRIDGE)$/.test(option)) {
    if (value !== 'm') return undefined
    const family = option.slice('NF_TABLES_'.length).toLowerCase()
    const dir = {ipv4: 'ipv4', arp: 'ipv4', ipv6: 'ipv6', bridge: 'bridge'}[family] ?? 'netfilter'
    return `kernel/net/${dir}/netfilter/nf_tables_${family}`.replace('/net/netfilter/netfilter/', '/net/netfilter/')
  }

  if (option.startsWith('NFT_') && !/^NFT_(EXTHDR_DCCP|COMPAT_ARP|BRIDGE_META|BRIDGE_REJECT)$/.test(option)) {
    const dir = option.endsWith('_IPV4') ? 'ipv4/netfilter' : (option.endsWith('_IPV6') ? 'ipv6/netfilter' : 'netfilter')
    return `kernel/net/${dir}/${option.toLowerCase()}`
  }

  return undefined
}

/** modules.builtin and modules.dep paths for the netfilter options of a config. */
export function moduleListsFromConfig(configText: string, suffix: string): {builtin: string[]; available: string[]} {
  const options = configOptions(configText)
  const builtin: string[] = []
  const available: string[] = []
  for (const [option, value] of options) {
    if (value !== 'y' && value !== 'm') continue
    const paths = [modulePathFor(option, value)]
    // From 5.1 the nat chain type is nft_chain_nat.ko, built by CONFIG_NFT_NAT.
    if (option === 'NFT_NAT' && !options.has('NFT_CHAIN_NAT_IPV4')) paths.push('kernel/net/netfilter/nft_chain_nat')
    for (const path of paths) {
      if (!path) continue
      if (value === 'y') builtin.push(`${path}.ko`)
      else available.push(`${path}${suffix}`)
    }
  }

  return {builtin, available}
}

/** Which loaded module depends on which (for /proc/modules "used by"). */
const DEPENDS: Record<string, string[]> = {
  nf_tables: ['nfnetlink'],
  nft_compat: ['nf_tables', 'x_tables'],
  nft_counter: ['nf_tables'],
  nft_chain_nat: ['nf_tables', 'nf_nat'],
  nft_chain_nat_ipv4: ['nf_tables', 'nf_nat_ipv4'],
  nft_nat: ['nf_tables', 'nf_nat'],
  nft_ct: ['nf_tables', 'nf_conntrack'],
  nft_masq: ['nf_tables', 'nf_nat'],
  nft_numgen: ['nf_tables'],
  nft_fib: ['nf_tables'],
  nft_fib_ipv4: ['nft_fib'],
  nft_fib_ipv6: ['nft_fib'],
  nft_reject: ['nf_tables'],
  nft_reject_ipv4: ['nft_reject'],
  nft_reject_ipv6: ['nft_reject'],
  nf_nat: ['nf_conntrack'],
  nf_nat_ipv4: ['nf_nat'],
  nf_conntrack: ['nf_defrag_ipv4', 'nf_defrag_ipv6', 'libcrc32c'],
  nf_conntrack_ipv4: ['nf_conntrack', 'nf_defrag_ipv4'],
  ip_vs: ['nf_conntrack', 'libcrc32c'],
  ip_vs_rr: ['ip_vs'],
  ip_vs_sh: ['ip_vs'],
  ip_set_hash_ip: ['ip_set'],
  ip_set_hash_net: ['ip_set'],
  ip_set_bitmap_port: ['ip_set'],
  xt_set: ['ip_set', 'x_tables'],
  xt_conntrack: ['nf_conntrack', 'x_tables'],
  xt_MASQUERADE: ['nf_nat', 'x_tables'],
  xt_nat: ['nf_nat', 'x_tables'],
  xt_addrtype: ['x_tables'],
  xt_comment: ['x_tables'],
  xt_mark: ['x_tables'],
  xt_statistic: ['x_tables'],
  xt_nfacct: ['nfnetlink_acct', 'x_tables'],
  nfnetlink_acct: ['nfnetlink'],
  ip_tables: ['x_tables'],
  iptable_filter: ['ip_tables'],
  iptable_nat: ['ip_tables', 'nf_nat'],
  iptable_mangle: ['ip_tables'],
  br_netfilter: ['bridge'],
  bridge: ['stp', 'llc'],
  stp: ['llc'],
}

function loadedModules(spec: NodeSpec, backend: string, available: ReadonlySet<string> | undefined, modern: boolean): string[] {
  const wanted = ['overlay', 'br_netfilter', 'bridge', 'stp', 'llc', 'nfnetlink', 'nf_conntrack', 'nf_defrag_ipv4', 'nf_defrag_ipv6', 'libcrc32c', 'nf_nat', 'x_tables', 'xt_conntrack', 'xt_MASQUERADE', 'xt_nat', 'xt_addrtype', 'xt_comment', 'xt_mark']
  if (!modern) wanted.push('nf_conntrack_ipv4', 'nf_nat_ipv4')
  if (spec.mode === 'iptables') wanted.push('xt_statistic', 'nfnetlink_acct', 'xt_nfacct')
  if (spec.mode === 'ipvs') wanted.push('ip_vs', 'ip_vs_rr', 'ip_vs_sh', 'ip_set', 'ip_set_hash_ip', 'ip_set_hash_net', 'ip_set_bitmap_port', 'xt_set')
  if (backend === 'nf_tables' || spec.mode === 'nftables') wanted.push('nf_tables', 'nft_compat', 'nft_counter', modern ? 'nft_chain_nat' : 'nft_chain_nat_ipv4')
  else wanted.push('ip_tables', 'iptable_filter', 'iptable_nat', 'iptable_mangle')
  if (spec.mode === 'nftables') {
    wanted.push('nft_ct', 'nft_nat', 'nft_masq', 'nft_numgen', 'nft_fib', 'nft_fib_ipv4', 'nft_fib_ipv6', 'nft_reject', 'nft_reject_ipv4', 'nft_reject_ipv6')
  }

  // Netfilter modules load only if the kernel builds them as modules; the rest are generic.
  const netfilter = /^(nf_|nft_|ip_vs|nfnetlink_acct|xt_nfacct)/
  return [...new Set(wanted)].filter((name) => !available || !netfilter.test(name) || available.has(name))
}

function procModules(names: readonly string[], root: boolean): string {
  const loaded = new Set(names)
  return names
    .map((name) => {
      const users = names.filter((other) => (DEPENDS[other] ?? []).includes(name) && loaded.has(other)).toSorted()
      const size = 4096 * (3 + (hash(name) % 20))
      const page = (0xC_00_00 + (hash(`${name}@`) % 0x3F_FF)).toString(16)
      const address = root ? `0xffffffff${page}000` : '0x0000000000000000'
      const refs = users.length + (hash(name) % 3)
      return `${name} ${size} ${refs} ${users.length > 0 ? `${users.join(',')},` : '-'} Live ${address}`
    })
    .join('\n')
}

const hex = (ip: string, port: number) =>
  `${ip
    .split('.')
    .map((octet) => Number(octet).toString(16).toUpperCase().padStart(2, '0'))
    .join('')}:${port.toString(16).toUpperCase().padStart(4, '0')}`

const SERVICE_IPS: Array<[proto: string, ip: string, port: number, backends: Array<[string, number]>]> = [
  ['TCP', '10.96.0.1', 443, [['10.0.1.10', 6443], ['10.0.1.11', 6443], ['10.0.1.12', 6443]]],
  ['TCP', '10.96.0.10', 53, [['10.244.0.2', 53], ['10.244.0.3', 53]]],
  ['UDP', '10.96.0.10', 53, [['10.244.0.2', 53], ['10.244.0.3', 53]]],
  ['TCP', '10.96.0.10', 9153, [['10.244.0.2', 9153], ['10.244.0.3', 9153]]],
  ['TCP', '10.106.194.12', 80, [['10.244.1.17', 8080], ['10.244.2.9', 8080]]],
  ['TCP', '10.111.42.200', 443, [['10.244.1.23', 8443]]],
]

function procIpVs(spec: NodeSpec): string {
  const lines = ['IP Virtual Server version 1.2.1 (size=4096)', 'Prot LocalAddress:Port Scheduler Flags', '  -> RemoteAddress:Port Forward Weight ActiveConn InActConn']
  const count = 3 + (spec.seed % SERVICE_IPS.length)
  for (const [index, [proto, ip, port, backends]] of SERVICE_IPS.slice(0, count).entries()) {
    const scheduler = index === 4 && spec.seed % 4 === 1 ? 'sh' : 'rr'
    lines.push(`${proto}  ${hex(ip, port)} ${scheduler} `)
    for (const [backend, backendPort] of backends) {
      lines.push(`  -> ${hex(backend, backendPort)}      Masq    1      ${(spec.seed + backendPort) % 7}          ${(spec.seed * 3 + backendPort) % 11}`)
    }
  }

  const nodePort = 30_000 + (spec.seed % 2768)
  lines.push(`TCP  ${hex(spec.ipv4.split('/', 1)[0], nodePort)} rr `, `  -> ${hex('10.244.1.17', 8080)}      Masq    1      0          0`)
  return lines.join('\n')
}

function kubeIpvs0Addresses(spec: NodeSpec): string[] {
  const count = 3 + (spec.seed % SERVICE_IPS.length)
  const ips = [...new Set(SERVICE_IPS.slice(0, count).map(([, ip]) => ip))]
  return ips.map((ip) => String.raw`7: kube-ipvs0    inet ${ip}/32 scope global kube-ipvs0\       valid_lft forever preferred_lft forever`)
}

interface NftTable {
  header: string
  chains: Array<[name: string, base?: string]>
}

function nftTables(spec: NodeSpec, backend: string, forwardDrop: boolean): NftTable[] {
  const tables: NftTable[] = []
  if (backend === 'nf_tables') {
    for (const family of ['ip', 'ip6']) {
      tables.push(
        {header: `table ${family} mangle`, chains: [['KUBE-IPTABLES-HINT'], ['KUBE-KUBELET-CANARY']]},
        {
          header: `table ${family} filter`,
          chains: [
            ['INPUT', `type filter hook input priority filter; policy accept;`],
            // Docker sets the IPv4 FORWARD policy to DROP.
            ['FORWARD', `type filter hook forward priority filter; policy ${forwardDrop && family === 'ip' ? 'drop' : 'accept'};`],
            ['OUTPUT', 'type filter hook output priority filter; policy accept;'],
            ['KUBE-FIREWALL'],
            ['KUBE-KUBELET-CANARY'],
          ],
        },
        {
          header: `table ${family} nat`,
          chains: [
            ['PREROUTING', 'type nat hook prerouting priority dstnat; policy accept;'],
            ['POSTROUTING', 'type nat hook postrouting priority srcnat; policy accept;'],
            ['OUTPUT', 'type nat hook output priority dstnat; policy accept;'],
            ['KUBE-KUBELET-CANARY'],
          ],
        },
      )
    }
  }

  if (spec.mode === 'nftables') {
    for (const family of ['ip', 'ip6']) {
      tables.push({
        header: `table ${family} kube-proxy`,
        chains: [
          ['filter-prerouting', 'type filter hook prerouting priority dstnat - 10; policy accept;'],
          ['filter-input', 'type filter hook input priority -110; policy accept;'],
          ['filter-forward', 'type filter hook forward priority -110; policy accept;'],
          ['filter-output', 'type filter hook output priority dstnat - 10; policy accept;'],
          ['nat-prerouting', 'type nat hook prerouting priority dstnat; policy accept;'],
          ['nat-output', 'type nat hook output priority dstnat; policy accept;'],
          ['nat-postrouting', 'type nat hook postrouting priority srcnat; policy accept;'],
          ['services'],
          ['masquerading'],
        ],
      })
    }
  }

  if (spec.services.firewalld === 'active') {
    tables.push({
      header: 'table inet firewalld',
      chains: [
        ['filter_INPUT', 'type filter hook input priority filter + 10; policy accept;'],
        ['filter_FORWARD', 'type filter hook forward priority filter + 10; policy accept;'],
        ['filter_OUTPUT', 'type filter hook output priority filter + 10; policy accept;'],
        ['filter_IN_public'],
      ],
    })
  }

  if (spec.services.nftables === 'active') {
    tables.push({
      header: 'table inet filter',
      chains: [
        ['input', 'type filter hook input priority filter; policy drop;'],
        ['forward', 'type filter hook forward priority filter; policy drop;'],
        ['output', 'type filter hook output priority filter; policy accept;'],
      ],
    })
  }

  return tables
}

function broadcastOf(address: string, prefix: number): string {
  const value = address.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0)
  const hostBits = 2 ** (32 - prefix)
  const last = Math.floor(value / hostBits) * hostBits + hostBits - 1
  return [24, 16, 8, 0].map((shift) => Math.floor(last / 2 ** shift) % 256).join('.')
}

/**
 * The kube-proxy-like ruleset `nft -c` checks, as [module it needs, the line that fails without it],
 * in the order kube-proxy's rules use them: nft reports the first line the kernel cannot take.
 */
const NFT_CHECK_LINES: ReadonlyArray<[module: string, line: string]> = [
  ['nft_ct', 'ct state invalid drop'],
  ['nft_nat', 'dnat to 10.244.1.17:8080'],
  ['nft_masq', 'masquerade fully-random'],
  ['nft_reject', 'reject'],
  ['nft_fib_ipv4', 'fib daddr type local'],
  ['nft_fib_ipv6', 'fib daddr type local'],
  ['nft_numgen', 'numgen random mod 2 vmap { 0 : goto endpoint-a, 1 : goto endpoint-b }'],
]

/**
 * The first ruleset line `nft -c` rejects on a kernel with this config: one whose module the config
 * does not build (before 5.2 masquerade in an ip table also needs nft_masq_ipv4, when the config
 * has that option). Without a config the node is taken to have every feature.
 */
function nftCheckFailure(configText: string | undefined, modules: ReadonlySet<string>): string | undefined {
  if (!configText) return undefined
  const options = configOptions(configText)
  const needs = (module: string) => (module === 'nft_masq' && options.has('NFT_MASQ_IPV4') ? ['nft_masq', 'nft_masq_ipv4'] : [module])
  return NFT_CHECK_LINES.find(([module]) => !needs(module).every((name) => modules.has(name)))?.[1]
}

/** The bundle text for one node. */
function buildBundleText(spec: NodeSpec): string {
  const sections: Array<[string, string]> = []
  const unavailable: string[] = []
  const add = (name: string, text: string) => sections.push([name, text])
  const deny = (name: string, reason: string, detail: string) => unavailable.push(`${name} ${reason} ${detail}`)

  const kernelVersion = kernelVersionOf(spec.kernelRelease)
  const modern = compareDotted(kernelVersion, '5.1') >= 0
  const iptables = spec.iptablesBanner ? iptablesBanner(spec.iptablesBanner) : undefined
  const backend = iptables?.backend ?? 'legacy'
  const forwardDrop = spec.services.docker === 'active' || spec.services.docker === 'running'

  add('collector', `version=0.1.0\nuid=${spec.root ? 0 : 1000}\ntime=${spec.time ?? `2026-08-24T09:${String(spec.seed % 60).padStart(2, '0')}:17Z`}\nwhere=host`)
  if (spec.hostname !== false) add('hostname', spec.name)
  add('machine-id', `machine-id=${spec.seed.toString(16).padStart(32, '0')}`)
  add('kernel-release', spec.kernelRelease)
  add('os-release', spec.osRelease.replace(/\n+$/, ''))

  if (spec.nftBanner) add('nft-version', spec.nftBanner)
  else deny('nft-version', 'not-installed', 'nft is not in PATH')
  deny('kube-proxy-nft-version', 'not-present', "the collector ran on the host: the nft in kube-proxy's image is read in its pod (kpx-check cluster --node-probe exec)")
  if (spec.iptablesBanner) add('iptables-version', spec.iptablesBanner)
  else deny('iptables-version', 'not-installed', 'iptables is not in PATH')

  // Kernel evidence.
  let builtin: string[] = []
  let available: string[] = []
  if (spec.kernelConfig) {
    add('kernel-config', spec.kernelConfig.replace(/^# source: .*$/m, (line) => line.replace(/config-[^/\s]+$/, `config-${spec.kernelRelease}`)).trimEnd())
    ;({builtin, available} = moduleListsFromConfig(spec.kernelConfig, spec.moduleSuffix))
    add('modules-builtin', builtin.join('\n'))
    add('modules-available', available.join('\n'))
  } else {
    deny('kernel-config', 'not-present', `neither /proc/config.gz nor /boot/config-${spec.kernelRelease} exists`)
    deny('modules-builtin', 'not-present', `/lib/modules/${spec.kernelRelease}/modules.builtin does not exist`)
    deny('modules-available', 'not-present', `/lib/modules/${spec.kernelRelease}/modules.dep does not exist`)
  }

  const availableNames = spec.kernelConfig ? new Set(available.map((path) => moduleOf(path))) : undefined
  const loaded = loadedModules(spec, backend, availableNames, modern)
  add('modules', procModules(loaded, spec.root))

  // nft -c of a kube-proxy-like ruleset: fails on the first line the kernel lacks a module for.
  const failing = nftCheckFailure(spec.kernelConfig, new Set([...loaded, ...builtin.map((path) => moduleOf(path)), ...(availableNames ?? [])]))
  if (!spec.nftBanner) deny('nft-check', 'not-installed', 'nft is not in PATH')
  else if (spec.root) {
    add(
      'nft-check',
      failing
        ? `exit=1\n/dev/stdin:14:3-${failing.length + 2}: Error: Could not process rule: No such file or directory\n\t\t${failing}\n\t\t${'^'.repeat(failing.length)}`
        : 'exit=0',
    )
  }
  else {deny('nft-check', 'permission-denied', 'nft -c needs root (CAP_NET_ADMIN)')}

  if (spec.mode === 'ipvs') {
    add('ipvs', procIpVs(spec))
    add('kube-ipvs0', kubeIpvs0Addresses(spec).join('\n'))
  } else {
    deny('ipvs', 'not-present', '/proc/net/ip_vs does not exist (ip_vs is not loaded)')
    deny('kube-ipvs0', 'not-present', 'Device "kube-ipvs0" does not exist.')
  }

  const sysctl = [`net.ipv4.conf.all.route_localnet = ${spec.mode === 'iptables' ? 1 : 0}`, `net.netfilter.nf_conntrack_tcp_be_liberal = ${spec.seed % 13 === 5 ? 1 : 0}`]
  if (spec.mode === 'ipvs') sysctl.push(`net.ipv4.vs.conn_reuse_mode = ${compareDotted(kernelVersion, '5.9') >= 0 ? 1 : 0}`)
  add('sysctl', sysctl.join('\n'))

  add('services', [`# method: ${spec.serviceMethod}`, ...Object.entries(spec.services).map(([name, state]) => `${name} ${state}`)].join('\n'))

  if (!spec.iptablesBanner) {
    deny('iptables-policies', 'not-installed', 'iptables is not in PATH')
    deny('iptables-rules', 'not-installed', 'iptables-save is not in PATH')
  } else if (spec.root) {
    add('iptables-policies', ['-P INPUT ACCEPT', `-P FORWARD ${forwardDrop ? 'DROP' : 'ACCEPT'}`, '-P OUTPUT ACCEPT'].join('\n'))
    const kube = spec.mode === 'iptables' ? 180 + (spec.seed % 400) : (spec.mode === 'ipvs' ? 38 + (spec.seed % 9) : 6)
    const total = kube + 12 + (spec.seed % 30) + (forwardDrop ? 24 : 0)
    const lines: string[] = []
    const version = iptables?.version ?? '1.4.21'
    const debianLike = /^(ID=|ID_LIKE=).*\b(debian|ubuntu)\b/m.test(spec.osRelease)
    const hasLegacySave = backend === 'legacy' || debianLike
    const hasNftSave = compareDotted(version, '1.8') >= 0 && (backend === 'nf_tables' || debianLike)
    // kube-proxy's Service chains (svc=): iptables and IPVS mode keep KUBE-SERVICES and the rest; nftables mode none.
    const service = spec.mode === 'iptables' ? kube - 24 : (spec.mode === 'ipvs' ? 12 : 0)
    if (hasLegacySave) lines.push('legacy6 svc=0', backend === 'legacy' ? `legacy total=${total} kube=${kube} svc=${service}` : `legacy total=${spec.seed % 5 === 0 ? 14 : 0} kube=${spec.seed % 5 === 0 ? 9 : 0} svc=0`)
    if (hasNftSave) lines.push('nft6 svc=0', backend === 'nf_tables' ? `nft total=${total} kube=${kube} svc=${service}` : 'nft total=0 kube=0 svc=0')
    add('iptables-rules', lines.join('\n'))
  } else {
    deny('iptables-policies', 'permission-denied', 'iptables -S needs root')
    deny('iptables-rules', 'permission-denied', 'iptables-save needs root')
  }

  if (!spec.nftBanner) {
    deny('nft-tables', 'not-installed', 'nft is not in PATH')
    deny('nft-chains', 'not-installed', 'nft is not in PATH')
  } else if (spec.root) {
    const tables = nftTables(spec, backend, forwardDrop)
    add('nft-tables', tables.map((table) => table.header).join('\n'))
    const chains: string[] = []
    for (const table of tables) {
      chains.push(`${table.header} {`)
      // kube-proxy's tables hold its sets and maps, which the collector keeps beside the chains.
      if (table.header.endsWith(' kube-proxy')) chains.push('\tset cluster-ips {', '\tmap service-ips {')
      for (const [name, base] of table.chains) {
        chains.push(`\tchain ${name} {`)
        if (base) chains.push(`\t\t${base}`)
      }
    }

    add('nft-chains', chains.join('\n'))
  } else {
    deny('nft-tables', 'permission-denied', 'nft list tables needs root')
    deny('nft-chains', 'permission-denied', 'nft list ruleset needs root')
  }

  const [address, prefix] = spec.ipv4.split('/')
  const broadcast = broadcastOf(address, Number(prefix))
  const addresses = [String.raw`2: eth0    inet ${address}/${prefix} brd ${broadcast} scope global dynamic eth0\       valid_lft ${3000 + (spec.seed % 600)}sec preferred_lft ${3000 + (spec.seed % 600)}sec`]
  if (spec.ipv6) addresses.push(String.raw`2: eth0    inet6 ${spec.ipv6} scope global dynamic mngtmpaddr noprefixroute \       valid_lft 86398sec preferred_lft 14398sec`)
  addresses.push(...(spec.extraAddresses ?? []))
  if (forwardDrop) addresses.push(String.raw`3: docker0    inet 172.17.0.1/16 brd 172.17.255.255 scope global docker0\       valid_lft forever preferred_lft forever`)
  if (spec.mode === 'ipvs') addresses.push(...kubeIpvs0Addresses(spec))
  add('addresses', addresses.join('\n'))

  if (spec.mode === 'none') {
    deny('kube-proxy-mode', 'unreachable', 'connection to 127.0.0.1:10249 refused')
    deny('kube-proxy-metrics', 'unreachable', 'connection to 127.0.0.1:10249 refused')
    deny('kube-proxy-healthz', 'unreachable', 'connection to 127.0.0.1:10256 refused')
    add('kube-proxy-process', '')
  } else {
    add('kube-proxy-mode', spec.mode)
    add(
      'kube-proxy-metrics',
      Object.entries(spec.metrics ?? {})
        .flatMap(([name, value]) => [`# HELP ${name} ${METRIC_HELP[name] ?? '[ALPHA]'}`, `# TYPE ${name} counter`, `${name} ${value}`])
        .join('\n'),
    )
    add('kube-proxy-healthz', healthzAnswer(spec))
    const runtime = spec.runtime ?? 'container'
    const process =
      runtime === 'k3s'
        ? `pid=${1100 + (spec.seed % 800)} exe=k3s-agent container=no args=agent --kube-proxy-arg=proxy-mode=${spec.mode}`
        : `pid=${2000 + (spec.seed % 7000)} exe=kube-proxy container=${runtime === 'container' ? 'yes' : 'no'} args=--config=/var/lib/kube-proxy/config.conf --hostname-override=${spec.name}`
    add('kube-proxy-process', `${process}\nskip-kernel-check=${spec.root ? (spec.skipKernelCheck ? 'set' : 'unset') : 'unreadable'}`)
  }

  addSwitchHazardSections(spec, add, deny)
  if (unavailable.length > 0) add('unavailable', unavailable.join('\n'))
  return ['# kpx-check node facts v1', ...sections.flatMap(([name, text]) => [`### ${name}`, ...(text === '' ? [] : [text])]), '### end', ''].join('\n')
}

const METRIC_HELP: Record<string, string> = {
  kubeproxy_iptables_ct_state_invalid_dropped_packets_total: '[ALPHA] packets dropped by iptables to work around conntrack problems',
  kubeproxy_iptables_localhost_nodeports_accepted_packets_total: '[ALPHA] Number of packets accepted on nodeports of loopback interface',
  kubeproxy_sync_proxy_rules_nftables_sync_failures_total: '[ALPHA] SyncProxyRules nftables transaction failures',
}

// --- the corpus -------------------------------------------------------------------------------

interface CorpusBundle {
  /** Path of the written bundle. */
  file: string
  /** Node name the bundle yields (hostname section, or the file name without `.facts`). */
  name: string
  kernelRelease: string
  osId: string
  /** os-release VERSION_ID; empty when the file has none. */
  versionId: string
}

function moduleSuffix(os: OsInfo, kernelVersion: string): string {
  if (os.id === 'ubuntu') return compareDotted(kernelVersion, '6.2') >= 0 ? '.ko.zst' : '.ko'
  if (os.id === 'debian') return Number(os.major ?? 12) >= 13 ? '.ko.xz' : '.ko'
  if (os.id === 'amzn') return Number(os.major ?? 2) >= 2022 ? '.ko.xz' : '.ko'
  if (['rhel', 'centos', 'rocky', 'almalinux', 'ol', 'miraclelinux', 'rhcos', 'fedora', 'alinux', 'tencentos', 'euleros', 'hce', 'kylin', 'openEuler'].includes(os.id)) return '.ko.xz'
  return '.ko'
}

/**
 * Writes at least 300 bundles (`<name>.facts`) into `dir` and says what each holds. Every
 * os-release fixture is used at least three times, with different kernels of its distro where the
 * corpus has them, kube-proxy modes (iptables, ipvs, nftables, none), privileges and host services.
 */
export function writeCorpusBundles(dir: string): CorpusBundle[] {
  mkdirSync(dir, {recursive: true})
  const rows = kernelRows()
  const documented = documentedKernels()
  const configs = kernelConfigs()
  const banners = bannerPicker(toolRows())
  const written: CorpusBundle[] = []
  let index = 0

  for (const {stem, text} of osReleaseFiles()) {
    const os = osInfo(stem, text)
    const kernels = kernelsFor(os, rows, documented)
    if (kernels.length === 0) throw new Error(`no kernel pairs with os-release ${stem}`)
    const count = Math.max(3, Math.min(kernels.length, 5))
    for (let round = 0; round < count; round++) {
      index++
      const seed = hash(`${stem}#${round}`) % 100_000
      const kernelRelease = kernels[round % kernels.length]
      const kernelVersion = kernelVersionOf(kernelRelease)
      const tools = shippedTools(os, kernelRelease)
      const elLike = DISTROS[os.id]?.el || os.id === 'rhcos' || os.id === 'fedora'
      const systemd = !['bottlerocket', 'k3os', 'rancheros', 'coreos'].includes(os.id)

      let mode: Mode = (['iptables', 'ipvs', 'iptables', 'nftables', 'iptables', 'ipvs', 'nftables', 'none'] as const)[index % 8]
      let skipKernelCheck = false
      if (mode === 'nftables' && compareDotted(kernelVersion, '5.13') < 0) {
        if (index % 16 === 3) skipKernelCheck = true
        else mode = 'iptables'
      }

      const services: Record<string, string> = systemd
        ? {
            firewalld: elLike && index % 4 === 1 ? 'active' : (elLike ? 'inactive' : 'inactive'),
            ufw: os.id === 'ubuntu' && index % 5 === 2 ? 'active' : 'inactive',
            nftables: os.id === 'debian' && index % 7 === 3 ? 'active' : 'inactive',
            docker: index % 6 === 0 ? 'active' : 'inactive',
            keepalived: mode === 'ipvs' && index % 9 === 1 ? 'active' : 'inactive',
          }
        : {firewalld: 'absent', ufw: 'absent', nftables: 'absent', docker: index % 6 === 0 ? 'running' : 'absent', keepalived: 'absent'}

      const third = 1 + (index % 250)
      const extraAddresses: string[] = []
      if (index % 10 === 4) extraAddresses.push(String.raw`3: eth1    inet 192.168.${10 + (index % 20)}.${third}/24 brd 192.168.${10 + (index % 20)}.255 scope global eth1\       valid_lft forever preferred_lft forever`)
      if (services.keepalived === 'active') extraAddresses.push(String.raw`2: eth0    inet 10.0.${index % 200}.250/32 scope global eth0\       valid_lft forever preferred_lft forever`)
      if (index % 7 === 2) extraAddresses.push(String.raw`5: flannel.1    inet 10.244.${third}.0/32 scope global flannel.1\       valid_lft forever preferred_lft forever`, String.raw`6: cni0    inet 10.244.${third}.1/24 brd 10.244.${third}.255 scope global cni0\       valid_lft forever preferred_lft forever`)

      const metrics: Record<string, string> = {}
      if (mode === 'iptables') {
        metrics.kubeproxy_iptables_ct_state_invalid_dropped_packets_total = index % 5 === 1 ? (index % 10 === 1 ? '1.5e+06' : String(seed % 5000)) : '0'
        if (index % 3 !== 0) metrics.kubeproxy_iptables_localhost_nodeports_accepted_packets_total = index % 11 === 4 ? String(seed % 900) : '0'
      } else if (mode === 'nftables') {
        metrics.kubeproxy_sync_proxy_rules_nftables_sync_failures_total = index % 9 === 6 ? String(1 + (seed % 40)) : '0'
      }

      const fqdn = index % 5 === 0 ? '.k8s.example.internal' : ''
      const name = `node-${String(index).padStart(3, '0')}${fqdn}`
      const config = configFor(kernelRelease, configs)
      const iptablesBanner = tools.iptables ? banners.iptables(tools.iptables, tools.backend) : undefined
      const spec: NodeSpec = {
        name,
        hostname: index % 37 !== 36,
        root: index % 3 !== 2,
        osRelease: text,
        kernelRelease,
        ...(config ? {kernelConfig: config.text} : {}),
        moduleSuffix: moduleSuffix(os, kernelVersion),
        ...(tools.nft ? {nftBanner: banners.nft(tools.nft)} : {}),
        ...(iptablesBanner ? {iptablesBanner} : {}),
        mode,
        runtime: os.id === 'k3os' ? 'k3s' : (index % 11 === 7 ? 'host' : 'container'),
        skipKernelCheck,
        services,
        serviceMethod: systemd ? 'systemctl' : 'proc',
        extraAddresses,
        ipv4: `10.${index % 3}.${Math.floor(index / 250)}.${third}/${index % 4 === 0 ? 20 : 24}`,
        ...(index % 6 === 3 ? {ipv6: `2001:db8:${(index % 4096).toString(16)}::${third.toString(16)}/64`} : {}),
        metrics,
        seed,
      }

      const file = join(dir, `${name}.facts`)
      writeFileSync(file, buildBundleText(spec))
      written.push({file, name, kernelRelease, osId: os.id, versionId: os.versionId})
    }
  }

  return written
}

/** A healthy kube-proxy's /healthz answer (the JSON of pkg/proxy/healthcheck/proxy_health.go), per IP family the node has. */
function healthzAnswer(spec: NodeSpec): string {
  const synced = {lastUpdated: '2026-12-06T06:35:21.048400Z', healthy: true}
  const status = spec.ipv6 ? {IPv4: synced, IPv6: synced} : {IPv4: synced}
  return JSON.stringify({lastUpdated: '2026-12-06T06:35:35.102118Z', currentTime: '2026-12-06T06:35:35.102118Z', nodeEligible: true, healthy: true, status})
}

/**
 * The sections the collector prints after kube-proxy-process, as it would on a host like this one where
 * nothing of the field reports applies: nft with JSON, no flush ruleset, no other IPVS balancer, every
 * module a rollback needs loadable, iptables-nft reading every table, no KUBE-* ipset (root only).
 */
function addSwitchHazardSections(spec: NodeSpec, add: (name: string, text: string) => void, deny: (name: string, reason: string, detail: string) => void): void {
  add('nft-json', spec.nftBanner ? 'path json=yes' : 'path json=unknown not-installed')
  add('ruleset-flush', 'nftables-service disabled')
  add('ipvs-balancers', '')
  add('rollback-kernel', ['ip_tables module', 'iptable_nat module', 'nft_compat module', `ip_vs ${spec.mode === 'ipvs' ? 'loaded' : 'module'}`].join('\n'))
  add('iptables-nft-incompatible', '')
  if (!spec.root) deny('iptables-nft-incompatible', 'permission-denied', 'iptables-nft-save needs root')
  add('ipsets', '')
  if (!spec.root) deny('ipsets', 'permission-denied', 'exit=1 ipset v7.17: Kernel error received: Operation not permitted')
}
