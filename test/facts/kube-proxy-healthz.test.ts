/**
 * kube-proxy's /healthz answer: the JSON its health server writes (kube-proxy 1.33+: healthy and a status per IP
 * family; before: lastUpdated, currentTime and nodeEligible only), and nothing else taken for it.
 */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {parseKubeProxyHealth} from '../../src/facts/parsers/kube-proxy-healthz.js'

const UNHEALTHY_IPV6 = '{"lastUpdated":"2026-12-06T06:35:21.084178Z","currentTime":"2026-12-06T06:37:35.102118Z","nodeEligible":true,"healthy":false,"status":{"IPv4":{"lastUpdated":"2026-12-06T06:37:21.0484Z","healthy":true},"IPv6":{"lastUpdated":"2026-12-06T06:35:21.084178Z","healthy":false}}}'

describe('parseKubeProxyHealth', () => {
  it('reads healthy, nodeEligible and each family of a 1.33+ answer', () => {
    assert.deepEqual(parseKubeProxyHealth(UNHEALTHY_IPV6), {healthy: false, nodeEligible: true, families: new Map([['IPv4', true], ['IPv6', false]])})
  })

  it('an older answer says neither healthy nor families', () => {
    const older = '{"lastUpdated": "2026-12-06 06:35:35.102118 +0000 UTC m=+15.002","currentTime": "2026-12-06 06:35:35.102118 +0000 UTC m=+15.002", "nodeEligible": true}'
    assert.deepEqual(parseKubeProxyHealth(older), {nodeEligible: true, families: new Map()})
  })

  it('what is not kube-proxy\'s answer is refused: not JSON, no currentTime, fields of other types, families it has not', () => {
    for (const text of ['ok', '[]', 'null', '{"healthy":true}', '{"currentTime":"x","healthy":"yes"}', '{"currentTime":"x","status":{"IPv5":{"healthy":true}}}', '{"currentTime":"x","status":{"IPv4":{}}}', '{"currentTime":"x","status":null}']) {
      assert.equal(parseKubeProxyHealth(text), undefined, text)
    }
  })
})
