/**
 * The probe pod (see pod/run.ts) and what marks it: the labels the sweep and `kubectl delete -l` find,
 * the run and node it is for, the host files it mounts. Nothing from the cluster but the node's name and
 * kube-proxy's image goes into it.
 */
import {KUBE_PROXY_NAMESPACE} from '../kube-proxy-exec.js'

/** The labels every probe pod (and a probe namespace) carries: what the sweep and `kubectl delete -l` find. */
export const PROBE_LABELS = {'app.kubernetes.io/managed-by': 'kpx-check', 'app.kubernetes.io/name': 'kpx-check-probe'} as const
/** The label naming the run that made an object. */
export const RUN_LABEL = 'kpx-check.io/run'
/** The annotation naming the node a probe pod is for (a node name can be longer than a label value may be). */
const NODE_ANNOTATION = 'kpx-check.io/node'
export const PROBE_CONTAINER = 'probe'
/** The collector's mode in a probe pod, and the folder its host files are mounted under. */
const PROBE_COLLECTOR_MODE = 'probe-pod'
const HOST_MOUNT = '/host'
/** The Pod Security label a probe namespace gets: its pods need host namespaces, privilege and hostPath. */
export const PRIVILEGED_NAMESPACE_LABEL = {'pod-security.kubernetes.io/enforce': 'privileged'} as const

/** The API path of a namespace, which the pods' paths start with. */
export const namespacePath = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}`

/**
 * The host's files the collector reads, each mounted read-only. /proc and /sys are the host's already
 * (hostPID, hostNetwork, privileged). /etc/os-release is mounted on its own: it is often a symlink into
 * /usr/lib, which a mount of /etc alone would leave dangling.
 */
const HOST_PATHS = [
  {name: 'os-release', path: '/etc/os-release', mountPath: `${HOST_MOUNT}/os-release`},
  {name: 'etc', path: '/etc', mountPath: `${HOST_MOUNT}/etc`},
  {name: 'boot', path: '/boot', mountPath: '/boot'},
  {name: 'lib-modules', path: '/lib/modules', mountPath: '/lib/modules'},
] as const

/** The probe pod: see pod/run.ts's comment. */
export function probePodManifest(pod: {name: string; namespace: string; node: string; image: string; runId: string; timeoutSeconds: number; script: string}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name: pod.name, namespace: pod.namespace, labels: {...PROBE_LABELS, [RUN_LABEL]: pod.runId}, annotations: {[NODE_ANNOTATION]: pod.node}},
    spec: {
      nodeName: pod.node,
      hostNetwork: true,
      hostPID: true,
      restartPolicy: 'Never',
      activeDeadlineSeconds: pod.timeoutSeconds,
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      tolerations: [{operator: 'Exists'}],
      // The Priority admission plugin admits the system classes in kube-system only (GKE, and clusters that keep its default).
      ...(pod.namespace === KUBE_PROXY_NAMESPACE ? {priorityClassName: 'system-node-critical'} : {}),
      containers: [
        {
          name: PROBE_CONTAINER,
          image: pod.image,
          imagePullPolicy: 'IfNotPresent',
          // The log is the bundle: the collector's own stderr is dropped, as exec and SSH only classify it.
          command: ['/bin/sh', '-c', `exec 2>/dev/null\n${pod.script}`, 'kpx-check-collector', PROBE_COLLECTOR_MODE],
          securityContext: {privileged: true},
          volumeMounts: HOST_PATHS.map((mount) => ({name: mount.name, mountPath: mount.mountPath, readOnly: true})),
        },
      ],
      volumes: HOST_PATHS.map((mount) => ({name: mount.name, hostPath: {path: mount.path}})),
    },
  }
}
