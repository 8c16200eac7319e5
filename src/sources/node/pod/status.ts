/**
 * What a probe pod's status says, read from the Pod as the API server lists it: finished (with its
 * exit code), failed for good (and why, as a ProbeFailure), or not yet; and why the API server refused
 * to create one. Pure: no request is made here.
 */
import type {ApiError} from '../../cluster/kube-client.js'
import type {ProbeFailure} from '../../probe.js'
import {quoteMessage as quote} from '../node-probes.js'
import {PROBE_CONTAINER} from './manifest.js'

/** What a probe pod's status says, from the list the run polls. */
export interface PodStatus {
  metadata?: {name?: string; labels?: Record<string, string>; annotations?: Record<string, string>; creationTimestamp?: string}
  spec?: {activeDeadlineSeconds?: number}
  status?: {
    phase?: string
    reason?: string
    message?: string
    conditions?: Array<{type?: string; status?: string; reason?: string; message?: string}>
    containerStatuses?: Array<{
      name?: string
      state?: {waiting?: {reason?: string; message?: string}; terminated?: {exitCode?: number; reason?: string; message?: string}}
    }>
  }
}

/** Why the API server refused to create a probe pod, by its own message: Pod Security, GKE Autopilot, an OpenShift SCC, RBAC, another webhook. */
export function createRefusal(error: ApiError): ProbeFailure {
  const detail = quote(error.message)
  if (detail.includes('violates PodSecurity')) return {class: 'pod-security', detail}
  if (detail.includes('GKE Warden rejected')) return {class: 'autopilot', detail}
  if (detail.includes('unable to validate against any security context constraint')) return {class: 'scc', detail}
  if (detail.includes('admission webhook')) return {class: 'admission', detail}
  if (error.code === 403) return {class: 'pod-forbidden', detail}
  return {class: 'pod', detail}
}

/** A probe pod that finished: its container's exit code (its log holds the bundle), or why it did not run the collector to its end. */
export type Finished = {exitCode: number; kind: 'done'} | {failure: ProbeFailure; kind: 'failed'}

/** A probe pod failed for good: why. */
export const failed = (failure: ProbeFailure): Finished => ({kind: 'failed', failure})
/** Why a probe pod failed whose image the node has not and cannot pull. */
const NO_IMAGE = "the node cannot get kube-proxy's image (imagePullPolicy IfNotPresent)"
/** Waiting reasons of a container whose image will not come: the kubelet gives up (or backs off) pulling it. */
const IMAGE_GIVEN_UP = new Set(['ErrImageNeverPull', 'ImagePullBackOff', 'InvalidImageName'])
/** Waiting reasons of a container that the runtime could not set up. */
const CONTAINER_GIVEN_UP = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError'])

/** A status's reason and message, quoted. */
function detail(reason?: string, message?: string): string {
  return quote([reason, message].filter(Boolean).join(': '))
}

/** What a probe pod's status says: finished, failed for good, or (undefined) not yet. */
export function podOutcome(pod: PodStatus): Finished | undefined {
  const status = pod.status ?? {}
  const container = status.containerStatuses?.find((candidate) => candidate.name === PROBE_CONTAINER)
  const terminated = container?.state?.terminated
  const waiting = container?.state?.waiting
  if (status.phase === 'Failed' && status.reason === 'DeadlineExceeded') {
    return failed({class: 'deadline', detail: `the probe pod ran past its activeDeadlineSeconds (${pod.spec?.activeDeadlineSeconds ?? '?'}s, --timeout): ${detail(status.reason, status.message)}`})
  }

  if (terminated && (status.phase === 'Succeeded' || status.phase === 'Failed')) {
    // A runtime that could not start the command (StartError, ContainerCannotRun) reports it here, exit code 128.
    if (terminated.reason !== 'Completed' && terminated.reason !== 'Error' && /\/bin\/sh/.test(terminated.message ?? '')) {
      return failed({class: 'no-shell', detail: `the kube-proxy image has no /bin/sh: ${detail(terminated.reason, terminated.message)}`})
    }

    return {kind: 'done', exitCode: terminated.exitCode ?? 1}
  }

  if (status.phase === 'Failed') return failed({class: 'unschedulable', detail: `the node's kubelet refused the probe pod: ${detail(status.reason, status.message)}`})
  if (waiting?.reason && IMAGE_GIVEN_UP.has(waiting.reason)) return failed({class: 'image', detail: `${NO_IMAGE}: ${detail(waiting.reason, waiting.message)}`})
  if (waiting?.reason && CONTAINER_GIVEN_UP.has(waiting.reason)) return failed({class: 'container', detail: `the probe container could not be made: ${detail(waiting.reason, waiting.message)}`})
  return undefined
}

/** Why a probe pod had not finished when kpx-check stopped waiting for it. */
export function stillWaiting(pod: PodStatus | undefined, seconds: number): ProbeFailure {
  const status = pod?.status ?? {}
  const scheduled = status.conditions?.find((condition) => condition.type === 'PodScheduled' && condition.status === 'False')
  const waiting = status.containerStatuses?.find((candidate) => candidate.name === PROBE_CONTAINER)?.state?.waiting
  if (status.phase === 'Running') return {class: 'timeout', detail: `the probe pod was still running after ${seconds}s (--timeout, and its kubelet did not stop it)`}
  const why = scheduled ? `${scheduled.reason ?? 'Unschedulable'}: ${scheduled.message ?? ''}` : (waiting?.reason ? `${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}` : 'the node\'s kubelet never started it (NotReady, or gone?)')
  if (waiting?.reason === 'ErrImagePull') return {class: 'image', detail: `${NO_IMAGE}: ${quote(why)}`}
  return {class: 'unschedulable', detail: `the probe pod stayed Pending for ${seconds}s: ${quote(why)}`}
}
