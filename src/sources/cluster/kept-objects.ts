import type {ResourceName} from './resources.js'
import type {KubeObject} from './snapshot.js'

/**
 * The Kubernetes objects the derivers read, typed with the fields trim.ts keeps and nothing else.
 *
 * Written here rather than taken from client-node's V1Node, V1Service, …: those declare every field
 * of the API, present and well typed (`status.nodeInfo.kernelVersion: string`), and neither holds.
 * A trimmed object has only the fields below, and what a field holds is checked by nobody before a
 * deriver reads it: a live API server's answer is not trusted, and a `--snapshot` file is checked
 * only for objects with metadata (snapshot-file.ts). So these types say what is kept and what it is
 * worth: each value read is `unknown` until the deriver checks it (a wrong type makes the fact that
 * needs it unknown, never a crash), each object field is optional and may be null, so that it is
 * read with `?.` (which on any other JSON value, a string or a number, yields undefined and never
 * throws), and each list is read through `listed`, which takes only an array. Any KubeObject may be
 * viewed as one of these (`as`): the view claims nothing a check has not yet to make.
 */
type Unchecked<T> = T extends ReadonlyArray<infer E> ? UncheckedList<E> : T extends object ? {readonly [K in keyof T]?: null | Unchecked<T[K]>} : unknown

declare const element: unique symbol

/** A list field, which may be anything until `listed` finds it is an array; its elements are `E`s, unchecked. */
interface UncheckedList<E> {
  readonly [element]?: E
}

/** The elements of a list field, each unchecked: none when it is not an array. */
export function listed<E>(list: null | UncheckedList<E> | undefined): ReadonlyArray<null | Unchecked<E> | undefined> {
  return Array.isArray(list) ? list : []
}

interface Container {
  name: string
  image: string
  /** Of command and args, only the flags read-fields.ts declares, as `--name=value`. */
  args: string[]
  /** Only the pings it runs, as one `sh -c` line (read-fields.ts pingFields; its exec probes keep theirs so). */
  command: string[]
  env: Array<{name: string; value: string}>
}

interface PodSpec {
  containers: Container[]
  initContainers: Container[]
}

interface LoadBalancerStatus {
  loadBalancer: {ingress: Array<{hostname: string; ip: string}>}
}

interface KeptShapes {
  version: {gitVersion: string}
  nodes: {
    spec: {providerID: string}
    status: {
      addresses: Array<{address: string; type: string}>
      nodeInfo: {kernelVersion: string; kubeletVersion: string; machineID: string; operatingSystem: string; osImage: string; systemUUID: string}
    }
  }
  /** Of its node selector, only whether it runs on Windows nodes alone. */
  daemonSets: {spec: {template: {spec: PodSpec & {nodeSelector: {'kubernetes.io/os': string}}}}}
  /** A static pod, and the node it runs on. */
  kubeProxyPods: {spec: PodSpec & {nodeName: string}}
  configMaps: {data: Record<string, string>}
  services: {
    spec: {clusterIP: string; clusterIPs: string[]; externalIPs: string[]; healthCheckNodePort: number; ports: Array<{name: string}>; type: string}
    status: LoadBalancerStatus
  }
  /** Its endpoints counted as it is read, never parsed (resources.ts countOnly). */
  endpointSlices: {endpointCount: number}
  ingresses: {status: LoadBalancerStatus}
  prometheusRules: {spec: {groups: Array<{rules: Array<{alert: string; expr: string; record: string}>}>}}
  felixConfigurations: {spec: {nftablesMode: string}}
  calicoInstallations: {spec: {calicoNetwork: {linuxDataplane: string}}}
}

/** Each resource's objects, as the derivers read them. Workloads read for their pings alone are read by read-fields.ts. */
export type KeptObject<R extends ResourceName> = KubeObject & (R extends keyof KeptShapes ? Unchecked<KeptShapes[R]> : unknown)

export type KeptNode = KeptObject<'nodes'>
export type KeptService = KeptObject<'services'>
export type KeptContainer = Unchecked<Container>
/** A DaemonSet or a static pod: an object whose pod spec is its template's, or its own. */
export type KeptPodHolder = KubeObject & Unchecked<{spec: PodSpec & {template: {spec: PodSpec}}}>
