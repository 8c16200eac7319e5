import type {ChildProcess} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before} from 'node:test'

import {startKubeProxyStandIn} from './kube-proxy-stand-in.js'

/**
 * What a test file of node probes by exec or pod shares: a kube-proxy stand-in running on this machine
 * for the collector to find, and a temporary folder (`dir`, once its tests start), both gone after them.
 */
export function useProbeTestSetting(prefix: string): {dir: string} {
  const setting = {dir: ''}
  let kubeProxy: ChildProcess | undefined
  before(async () => {
    setting.dir = mkdtempSync(join(tmpdir(), prefix))
    kubeProxy = await startKubeProxyStandIn()
  })
  after(() => {
    kubeProxy?.kill('SIGKILL')
    if (setting.dir) rmSync(setting.dir, {recursive: true, force: true})
  })
  return setting
}
