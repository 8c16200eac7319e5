/**
 * A probe pod's status read without a server: the Pods below are as the API server lists them, with the
 * kubelet's and containerd's own reasons and messages for each end (see test/fixtures/SOURCES.md, "Probe
 * pod statuses"); the expected failures are written out by hand.
 */
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {ApiError} from '../../../../src/sources/cluster/kube-client.js'
import {createRefusal, podOutcome, type PodStatus, stillWaiting} from '../../../../src/sources/node/pod/status.js'

const IMAGE = 'registry.k8s.io/kube-proxy:v1.36.2'

/** A probe pod in `phase`, its probe container in `state`. */
function pod(phase: string, state?: NonNullable<NonNullable<PodStatus['status']>['containerStatuses']>[number]['state'], status: Partial<NonNullable<PodStatus['status']>> = {}): PodStatus {
  return {
    metadata: {name: 'kpx-check-probe-0a1b2c3d-5e6f708192'},
    spec: {activeDeadlineSeconds: 30},
    status: {phase, ...status, containerStatuses: state ? [{name: 'probe', state}] : []},
  }
}

describe('probe pod status', () => {
  it('a collector that ran to its end is done, with its exit code, whether the pod Succeeded or Failed', () => {
    assert.deepEqual(podOutcome(pod('Succeeded', {terminated: {exitCode: 0, reason: 'Completed'}})), {kind: 'done', exitCode: 0})
    assert.deepEqual(podOutcome(pod('Failed', {terminated: {exitCode: 2, reason: 'Error'}})), {kind: 'done', exitCode: 2})
  })

  it('a pod still pending or running is not finished', () => {
    assert.equal(podOutcome(pod('Pending', {waiting: {reason: 'ContainerCreating'}})), undefined)
    assert.equal(podOutcome(pod('Running', {})), undefined)
    assert.equal(podOutcome({}), undefined)
  })

  it('past its activeDeadlineSeconds: deadline, with the kubelet\'s reason', () => {
    const outcome = podOutcome(pod('Failed', {terminated: {exitCode: 137, reason: 'Error'}}, {reason: 'DeadlineExceeded', message: 'Pod was active on the node longer than the specified deadline'}))
    assert.deepEqual(outcome, {
      kind: 'failed',
      failure: {class: 'deadline', detail: 'the probe pod ran past its activeDeadlineSeconds (30s, --timeout): DeadlineExceeded: Pod was active on the node longer than the specified deadline'},
    })
  })

  it('an image without /bin/sh: the runtime could not start the command, no-shell', () => {
    const message = 'failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/bin/sh": stat /bin/sh: no such file or directory: unknown'
    assert.deepEqual(podOutcome(pod('Failed', {terminated: {exitCode: 128, reason: 'StartError', message}})), {
      kind: 'failed',
      failure: {class: 'no-shell', detail: `the kube-proxy image has no /bin/sh: StartError: ${message}`},
    })
  })

  it('refused by the kubelet before any container: unschedulable, with its reason', () => {
    const message = 'Pod was rejected: Node didn\'t have enough resource: pods, requested: 1, used: 110, capacity: 110'
    assert.deepEqual(podOutcome(pod('Failed', undefined, {reason: 'OutOfpods', message})), {
      kind: 'failed',
      failure: {class: 'unschedulable', detail: `the node's kubelet refused the probe pod: OutOfpods: ${message}`},
    })
  })

  it('an image the node has not and will not pull, or a container the runtime cannot make, fails for good while Pending', () => {
    const never = `Container image "${IMAGE}" is not present with pull policy of Never`
    assert.deepEqual(podOutcome(pod('Pending', {waiting: {reason: 'ErrImageNeverPull', message: never}})), {
      kind: 'failed',
      failure: {class: 'image', detail: `the node cannot get kube-proxy's image (imagePullPolicy IfNotPresent): ErrImageNeverPull: ${never}`},
    })
    assert.deepEqual(podOutcome(pod('Pending', {waiting: {reason: 'ImagePullBackOff', message: `Back-off pulling image "${IMAGE}"`}})), {
      kind: 'failed',
      failure: {class: 'image', detail: `the node cannot get kube-proxy's image (imagePullPolicy IfNotPresent): ImagePullBackOff: Back-off pulling image "${IMAGE}"`},
    })
    assert.deepEqual(podOutcome(pod('Pending', {waiting: {reason: 'CreateContainerConfigError', message: 'services have not yet been read at least once, cannot construct envvars'}})), {
      kind: 'failed',
      failure: {class: 'container', detail: 'the probe container could not be made: CreateContainerConfigError: services have not yet been read at least once, cannot construct envvars'},
    })
  })

  it('when kpx-check stops waiting: why the pod had not finished', () => {
    assert.deepEqual(stillWaiting(pod('Running', {}), 40), {class: 'timeout', detail: 'the probe pod was still running after 40s (--timeout, and its kubelet did not stop it)'})
    assert.deepEqual(stillWaiting(pod('Pending', {waiting: {reason: 'ErrImagePull', message: 'rpc error: code = NotFound'}}), 40), {
      class: 'image',
      detail: "the node cannot get kube-proxy's image (imagePullPolicy IfNotPresent): ErrImagePull: rpc error: code = NotFound",
    })
    assert.deepEqual(stillWaiting(pod('Pending'), 40), {class: 'unschedulable', detail: "the probe pod stayed Pending for 40s: the node's kubelet never started it (NotReady, or gone?)"})
    assert.deepEqual(stillWaiting(undefined, 40), {class: 'unschedulable', detail: "the probe pod stayed Pending for 40s: the node's kubelet never started it (NotReady, or gone?)"})
  })

  it('why the API server refused to create the pod, by its message, else by its code', () => {
    const podSecurity = 'pods "kpx-check-probe-0a1b2c3d-5e6f708192" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true, hostPID=true), privileged (container "probe" must not set securityContext.privileged=true)'
    assert.deepEqual(createRefusal(new ApiError(403, podSecurity)), {class: 'pod-security', detail: podSecurity})
    const rbac = 'pods is forbidden: User "ci" cannot create resource "pods" in API group "" in the namespace "kube-system"'
    assert.deepEqual(createRefusal(new ApiError(403, rbac)), {class: 'pod-forbidden', detail: rbac})
    assert.deepEqual(createRefusal(new ApiError(422, 'Pod "x" is invalid:\n  spec.nodeName: Invalid value')), {class: 'pod', detail: 'Pod "x" is invalid: spec.nodeName: Invalid value'})
  })
})
