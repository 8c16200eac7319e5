/**
 * `npm run bench`: how fast and how lean `kpx-check node --facts DIR --json` is on fleets of
 * bundles. Each size runs the real CLI in a child process; wall time is measured around it and
 * peak RSS read from /proc/<pid>/status (VmHWM) while it runs. Figures go to stdout as a table;
 * the ones recorded in docs/dev/benchmarks.md came from this script.
 */
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {writeCorpusBundles} from '../helpers/corpus.js'
import {RUN_JS} from '../helpers/paths.js'
import {measure, type Measurement, median} from './measure.js'

const FLEET_SIZES = [300, 1000, 5000]
const RUNS = 3

/** Copies the corpus bundles under new hostnames until the folder holds `size` nodes. */
function writeFleet(size: number): string {
  const corpusDir = mkdtempSync(join(tmpdir(), 'kpx-bench-corpus-'))
  const fleetDir = mkdtempSync(join(tmpdir(), 'kpx-bench-fleet-'))
  writeCorpusBundles(corpusDir)
  const bundles = readdirSync(corpusDir).toSorted().map((file) => readFileSync(join(corpusDir, file), 'utf8'))
  for (let index = 0; index < size; index++) {
    const name = `bench-node-${String(index).padStart(5, '0')}`
    const text = bundles[index % bundles.length].replace(/^### hostname\n.*$/m, `### hostname\n${name}`)
    writeFileSync(join(fleetDir, `${name}.facts`), text)
  }

  rmSync(corpusDir, {recursive: true, force: true})
  return fleetDir
}

console.log(`kpx-check node --facts DIR --json; median of ${RUNS} runs; Node ${process.version}`)
console.log('nodes  wall ms  ms/node  peak RSS MB')
for (const size of FLEET_SIZES) {
  const dir = writeFleet(size)
  const runs: Measurement[] = []
  for (let run = 0; run < RUNS; run++) runs.push(await measure(process.execPath, [RUN_JS, 'node', '--facts', dir, '--json']))
  rmSync(dir, {recursive: true, force: true})
  const wall = median(runs.map((run) => run.wallMs))
  const rss = Math.max(...runs.map((run) => run.peakRssMb))
  console.log(`${String(size).padStart(5)}  ${wall.toFixed(0).padStart(7)}  ${(wall / size).toFixed(2).padStart(7)}  ${rss.toFixed(0).padStart(11)}`)
}
