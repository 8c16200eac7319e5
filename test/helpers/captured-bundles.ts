/**
 * The collector bundles of the real kube-proxy 1.36.2 captures (test/fixtures/kube-proxy-1.36.2), and
 * states derived from them by changing named sections only: what a test changes is written in the
 * test, beside what it expects (test/fixtures/SOURCES.md says the same).
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {loadScenario, type Scenario} from './apiserver-scenario.js'
import {FIXTURES_DIR} from './corpus.js'

export const CAPTURES_DIR = join(FIXTURES_DIR, 'kube-proxy-1.36.2')

/** What a kubelet reports of a machine: its kernel, and its OS as os-release's PRETTY_NAME. */
interface Machine {
  kernelVersion: string
  osImage: string
}

/** The machine the kube-proxy 1.36.2 captures were taken on. */
const CAPTURED_MACHINE: Machine = {kernelVersion: '6.18.44-fc-v1272', osImage: 'Debian GNU/Linux 12 (bookworm)'}

/**
 * A scenario of test/fixtures/clusters whose Linux Nodes report `machine`, with the kernel `kernels` gives a
 * node instead where it gives one. A bundle that contradicts its live Node is not used, so Nodes given bundles
 * of one machine must report that machine.
 */
export function nodesOfMachine(name: string, machine: Machine, kernels: Record<string, string> = {}): Scenario {
  const scenario = loadScenario(name)
  for (const node of scenario.objects['/api/v1/nodes'] as Array<{metadata: {name: string}; status: {nodeInfo: Record<string, string>}}>) {
    if (node.status.nodeInfo.operatingSystem === 'linux') Object.assign(node.status.nodeInfo, {...machine, kernelVersion: kernels[node.metadata.name] ?? machine.kernelVersion})
  }

  return scenario
}

/** A scenario whose Linux Nodes are the captured machine (nodesOfMachine), for tests given the captured bundles. */
export function nodesOfCapturedMachine(name: string, kernels: Record<string, string> = {}): Scenario {
  return nodesOfMachine(name, CAPTURED_MACHINE, kernels)
}

/** A captured bundle's text: `iptables` (kube-proxy running in iptables mode) or `nftables` (switched, running, syncing). */
export function capturedBundle(state: 'iptables' | 'nftables'): string {
  return readFileSync(join(CAPTURES_DIR, `bundle-${state}.facts`), 'utf8')
}

/** The `kubeproxy_` lines of a capture's whole /metrics answer whose family is one of `families`. */
export function capturedMetrics(capture: string, families: readonly string[]): string {
  return readFileSync(join(CAPTURES_DIR, capture, 'metrics'), 'utf8')
    .split('\n')
    .filter((line) => families.some((family) => line.startsWith(`${family}{`) || line.startsWith(`${family} `)))
    .join('\n')
}

export interface SectionChanges {
  /** Section name → its new text; null drops the section (not collected). */
  sections?: Record<string, null | string>
  /** Section name → `reason detail`, as the collector lists a section it could not read (its text is dropped). */
  unavailable?: Record<string, string>
}

/** `bundle` with the named sections replaced, dropped or listed unavailable; every other line as captured. */
export function withSections(bundle: string, changes: SectionChanges): string {
  const parts = bundle.split(/^(?=### )/m)
  const unavailable = Object.entries(changes.unavailable ?? {}).map(([name, why]) => `${name} ${why}`)
  const out: string[] = []
  for (const part of parts) {
    const name = /^### (\S+)/.exec(part)?.[1]
    if (name === undefined) {
      out.push(part)
      continue
    }

    if (name === 'unavailable') {
      // A section the bundle lacks (one the collector added after the capture) goes before the unavailable list.
      for (const [added, text] of Object.entries(changes.sections ?? {})) {
        if (text !== null && !bundle.includes(`### ${added}\n`)) out.push(`### ${added}\n${text}${text === '' || text.endsWith('\n') ? '' : '\n'}`)
      }

      out.push(part + unavailable.map((line) => `${line}\n`).join(''))
      continue
    }

    const replaced = changes.sections?.[name]
    if (replaced === null || changes.unavailable?.[name] !== undefined) continue
    out.push(replaced === undefined ? part : `### ${name}\n${replaced}${replaced === '' || replaced.endsWith('\n') ? '' : '\n'}`)
  }

  return out.join('')
}
