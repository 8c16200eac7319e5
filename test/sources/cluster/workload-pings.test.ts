/**
 * The pings read from a container's command line and exec probes: which tools send ICMP echo, which words
 * are the hosts (an option's value is not), and where one command ends. Expectations written by hand.
 */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {containerPings, workloadPings} from '../../../src/sources/cluster/read-fields.js'

/** The pings of a container running `sh -c LINE`, as `tool target…` each. */
const pingsOf = (line: string) => containerPings({name: 'app', command: ['sh', '-c', line]}).map((ping) => [ping.tool, ...ping.targets].join(' '))

describe('pings in a command line', () => {
  it('a ClusterIP, a Service name and a Service variable are hosts; option values and counts are not', () => {
    assert.deepEqual(pingsOf('ping -c 3 10.233.0.3'), ['ping 10.233.0.3'])
    assert.deepEqual(pingsOf('until ping -c1 -W 1 redis.billing.svc.cluster.local; do sleep 1; done'), ['ping redis.billing.svc.cluster.local'])
    assert.deepEqual(pingsOf('ping -I eth0 -w 5 $(REDIS_SERVICE_HOST)'), ['ping $(REDIS_SERVICE_HOST)'])
    assert.deepEqual(pingsOf('ping -c 1 ${DB_SERVICE_HOST} > /dev/null'), ['ping ${DB_SERVICE_HOST}'])
  })

  it('ping6, fping with several hosts, and a tool by its path', () => {
    assert.deepEqual(pingsOf('/bin/ping6 -c 2 fd00:10:96::a'), ['ping6 fd00:10:96::a'])
    assert.deepEqual(pingsOf('fping -c 1 cache.shop web'), ['fping cache.shop web'])
  })

  it('a command ends at ;, &&, || and |: what follows is not a host', () => {
    assert.deepEqual(pingsOf('ping -c 1 cart && wget -q -O- http://cart:8080/healthz'), ['ping cart'])
    assert.deepEqual(pingsOf('ping -c 1 cart|grep -q ttl'), ['ping cart'])
  })

  it('tools that do not send ICMP echo, and words that only contain "ping", are not pings', () => {
    assert.deepEqual(pingsOf('arping -c 1 10.233.0.3; hping3 -S -p 80 10.233.0.3'), [])
    assert.deepEqual(pingsOf('curl -fsS http://pinger:8080/ping'), [])
    assert.deepEqual(pingsOf('ping'), [])
  })

  it('exec probes are read with their place; httpGet probes have no command', () => {
    const pings = containerPings({
      name: 'worker',
      livenessProbe: {exec: {command: ['ping', '-c', '1', 'billing-api']}},
      readinessProbe: {httpGet: {path: '/ping', port: 8080}},
    })
    assert.deepEqual(pings, [{container: 'worker', place: 'livenessProbe', tool: 'ping', targets: ['billing-api']}])
  })
})

describe('pings in a workload', () => {
  const template = (spec: object) => ({spec: {template: {spec}}})

  it('containers and init containers, and a CronJob\'s job template', () => {
    const init = {name: 'wait', command: ['sh', '-c', 'until ping -c 1 postgres; do sleep 2; done']}
    assert.deepEqual(workloadPings(template({containers: [{name: 'app'}], initContainers: [init]})).map((ping) => ping.container), ['wait'])
    const cronJob = {spec: {jobTemplate: {spec: {template: {spec: {containers: [{name: 'canary', command: ['ping', '-c', '3', '10.233.0.3']}]}}}}}}
    assert.deepEqual(workloadPings(cronJob).map((ping) => ping.targets), [['10.233.0.3']])
  })

  it('a Job a CronJob created is not read: its CronJob is', () => {
    const job = {metadata: {ownerReferences: [{kind: 'CronJob', name: 'dns-canary'}]}, ...template({containers: [{name: 'canary', command: ['ping', '10.233.0.3']}]})}
    assert.deepEqual(workloadPings(job), [])
  })
})
