/**
 * `npm run bench`, SSH part: `kpx-check node --inventory FILE --json` on 200 SSH targets
 * (127.0.0.1…127.0.0.200, one test sshd per 16 addresses, test/helpers/sshd.ts) against the
 * OpenSSH client running the same collector on the same targets with `xargs -P` at the same
 * concurrency. Both first run once untimed, to check that every target answers and to warm the
 * caches; then each is timed RUNS times, alternating. Target: kpx-check within 1.3× OpenSSH's
 * wall time. Needs root and openssh-server, as the SSH tests do.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {Report} from '../../src/contract/report.js'
import {DEFAULT_CONCURRENCY} from '../../src/sources/ssh/options.js'
import {COLLECTOR_SCRIPT} from '../../src/util/paths.js'
import {RUN_JS} from '../helpers/paths.js'
import {sshdUnavailable, startSshd, TEST_USER} from '../helpers/sshd.js'
import {measure, type Measurement, median} from './measure.js'

const TARGETS = 200
const RUNS = 3
const CONCURRENCY = DEFAULT_CONCURRENCY

const unavailable = sshdUnavailable()
if (unavailable) {
  console.log(`SSH benchmark skipped: it ${unavailable}`)
  process.exit(0)
}

const sshd = await startSshd({addresses: TARGETS})
const work = mkdtempSync(join(tmpdir(), 'kpx-bench-ssh-'))
try {
  const hosts = join(work, 'hosts')
  writeFileSync(hosts, sshd.addresses.map((address) => `${TEST_USER}@${address}:${sshd.port}\n`).join(''))
  const kpxCheck = [RUN_JS, 'node', '--inventory', hosts, '--identity', sshd.clientKey, '--known-hosts', sshd.knownHosts, '--ssh-config', 'none', '--concurrency', String(CONCURRENCY), '--json']
  const outputs = join(work, 'out')
  // The OpenSSH side: one ssh per target, the collector on its standard input, its bundle to a file.
  const ssh = `ssh -F none -o BatchMode=yes -o IdentitiesOnly=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=${sshd.knownHosts} -i ${sshd.clientKey} -p ${sshd.port}`
  const openssh = ['-P', String(CONCURRENCY), '-a', join(work, 'addresses'), '-I{}', 'sh', '-c', `${ssh} ${TEST_USER}@"$1" sh -s < ${COLLECTOR_SCRIPT} > ${outputs}/"$1"`, 'sh', '{}']
  writeFileSync(join(work, 'addresses'), sshd.addresses.join('\n'))
  mkdirSync(outputs)

  const report = JSON.parse(execFileSync(process.execPath, kpxCheck, {encoding: 'utf8', maxBuffer: 1 << 30})) as Report
  const unreached = report.nodes.filter((node) => !node.reachable)
  if (report.nodes.length !== TARGETS || unreached.length > 0) throw new Error(`kpx-check reached ${TARGETS - unreached.length} of ${TARGETS}: ${unreached[0]?.reason}`)
  const check = spawnSync('xargs', openssh, {stdio: ['ignore', 'ignore', 'inherit']})
  const bundles = readdirSync(outputs).filter((file) => readFileSync(join(outputs, file), 'utf8').startsWith('# kpx-check node facts v1'))
  if (check.status !== 0 || bundles.length !== TARGETS) throw new Error(`OpenSSH brought back ${bundles.length} of ${TARGETS} bundles (xargs exited ${check.status})`)

  const timed: Record<'kpx' | 'openssh', Measurement[]> = {kpx: [], openssh: []}
  for (let run = 0; run < RUNS; run++) {
    timed.kpx.push(await measure(process.execPath, kpxCheck))
    timed.openssh.push(await measure('xargs', openssh))
  }

  const version = spawnSync('ssh', ['-V'], {encoding: 'utf8'}).stderr.trim()
  const wall = (runs: Measurement[]) => median(runs.map((one) => one.wallMs)) / 1000
  console.log(`${TARGETS} SSH targets on loopback, ${CONCURRENCY} at a time; median of ${RUNS} runs; Node ${process.version}, ${version}`)
  console.log('command                                                        wall s  peak RSS MB')
  console.log(`kpx-check node --inventory FILE --concurrency ${CONCURRENCY} --json        ${wall(timed.kpx).toFixed(1).padStart(6)}  ${Math.max(...timed.kpx.map((one) => one.peakRssMb)).toFixed(0).padStart(11)}`)
  console.log(`xargs -P ${CONCURRENCY} -a FILE ssh … sh -s < collect.sh > OUT             ${wall(timed.openssh).toFixed(1).padStart(6)}            -`)
  console.log(`kpx-check / OpenSSH: ${(wall(timed.kpx) / wall(timed.openssh)).toFixed(2)} (target ≤ 1.30)`)
} finally {
  rmSync(work, {recursive: true, force: true})
  await sshd.stop()
}
