/**
 * CI (`.ci/run`) installs every tool the tests use and runs them as root, so there a test that
 * cannot run is a broken setup, not a machine without the tool: it fails, saying why, instead of
 * skipping. On a developer machine it is skipped with the same reason.
 */
import assert from 'node:assert/strict'

function refuseInCi(reason: string): void {
  assert.ok(!process.env.CI, `${reason}; under CI every test must run (see .ci/run)`)
}

/** Skips the running test, or fails it under CI. */
export function skipOutsideCi(t: {skip: (message: string) => void}, reason: string): void {
  refuseInCi(reason)
  t.skip(reason)
}

/** A suite's `skip` option: the reason it cannot run here (undefined: it can); under CI the file fails to load with it. */
export function skipSuiteOutsideCi(reason: string | undefined): string | undefined {
  if (reason) refuseInCi(reason)
  return reason
}
