/** A large cluster for the benchmarks: 5,000 Nodes, 30,000 Services, 3,000 EndpointSlices of 100 endpoints. */
import type {KubeObject} from '../../src/sources/cluster/snapshot.js'
import {loadScenario, type Scenario} from '../helpers/apiserver-scenario.js'

interface ClusterSize {
  nodes: number
  services: number
  /** One slice for each of the first `slices` Services. */
  slices: number
  endpointsPerSlice: number
}

export const BENCH_SIZE: ClusterSize = {nodes: 5000, services: 30_000, slices: 3000, endpointsPerSlice: 100}
const NAMESPACES = 300

const padded = (value: number, width: number) => String(value).padStart(width, '0')
/** The n-th address of 10.<first>.0.0/16 and up, skipping nothing: enough for 300,000 pods. */
const address = (first: number, n: number) => `10.${first + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`

/** The scenario's first node, renamed 5,000 times (its name, hostname, DNS names and IP move together). */
function nodes(template: KubeObject, count: number): KubeObject[] {
  const {uid: _uid, ...metadata} = template.metadata as Record<string, unknown>
  const text = JSON.stringify({...template, metadata})
  return Array.from({length: count}, (_, index) => {
    const ip = address(0, 4096 + index)
    return JSON.parse(text.replaceAll('10-0-10-170', ip.replaceAll('.', '-')).replaceAll('10.0.10.170', ip)) as KubeObject
  })
}

function services(count: number): KubeObject[] {
  return Array.from({length: count}, (_, index) => {
    const name = `svc-${padded(index, 5)}`
    const type = index % 50 === 0 ? 'LoadBalancer' : (index % 10 === 5 ? 'NodePort' : 'ClusterIP')
    const clusterIP = `172.20.${(index >> 8) & 255}.${index & 255}`
    return {
      metadata: {name, namespace: `team-${padded(index % NAMESPACES, 3)}`, labels: {app: name}},
      spec: {
        clusterIP,
        clusterIPs: [clusterIP],
        internalTrafficPolicy: 'Cluster',
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        ports: [{name: 'http', port: 80, protocol: 'TCP', targetPort: 8080, ...(type !== 'ClusterIP' && {nodePort: 30_000 + (index % 2768)})}],
        selector: {app: name},
        sessionAffinity: 'None',
        type,
      },
      status: {loadBalancer: type === 'LoadBalancer' ? {ingress: [{hostname: `a${padded(index, 31)}-1234567890.us-east-1.elb.amazonaws.com`}]} : {}},
    }
  })
}

/** One slice for each of the first Services, its endpoints spread over the nodes. */
function endpointSlices(size: ClusterSize, serviceObjects: KubeObject[], nodeNames: string[]): KubeObject[] {
  return serviceObjects.slice(0, size.slices).map((service, sliceIndex) => {
    const {name, namespace} = service.metadata!
    return {
      metadata: {
        name: `${name}-x7k2p`,
        namespace,
        generateName: `${name}-`,
        labels: {'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io', 'kubernetes.io/service-name': name!},
      },
      addressType: 'IPv4',
      endpoints: Array.from({length: size.endpointsPerSlice}, (_, endpointIndex) => {
        const n = sliceIndex * size.endpointsPerSlice + endpointIndex
        return {
          addresses: [address(64, n)],
          conditions: {ready: true, serving: true, terminating: false},
          nodeName: nodeNames[(n * 7919) % nodeNames.length],
          targetRef: {kind: 'Pod', name: `${name}-6d9f7c8b5-${padded(endpointIndex, 5)}`, namespace},
          zone: ['us-east-1a', 'us-east-1b', 'us-east-1c'][n % 3],
        }
      }),
      ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
    }
  })
}

/** The benchmark's cluster (or one of another size), built on the eks-old-vpc-cni scenario's kube-proxy, CNI and ConfigMaps. */
export function benchCluster(size = BENCH_SIZE): Scenario {
  const eks = loadScenario('eks-old-vpc-cni')
  const nodeObjects = nodes(eks.objects['/api/v1/nodes'][0], size.nodes)
  const serviceObjects = services(size.services)
  return {
    version: eks.version,
    objects: {
      ...eks.objects,
      '/api/v1/nodes': nodeObjects,
      '/api/v1/services': serviceObjects,
      '/apis/discovery.k8s.io/v1/endpointslices': endpointSlices(
        size,
        serviceObjects,
        nodeObjects.map((node) => node.metadata!.name!),
      ),
    },
  }
}

/** The bench cluster with a running kube-proxy pod (the EKS DaemonSet's) on each of its nodes. */
export function clusterWithKubeProxyPods() {
  const scenario = benchCluster()
  const [template] = scenario.objects['/api/v1/pods']
  const pods = scenario.objects['/api/v1/nodes'].map((node, index): KubeObject => {
    const address = ((node as {status?: {addresses?: Array<{address: string; type: string}>}}).status?.addresses ?? []).find((entry) => entry.type === 'InternalIP')?.address
    const pod = structuredClone(template) as KubeObject & {spec: Record<string, unknown>; status: Record<string, unknown>}
    return {...pod, metadata: {...pod.metadata, name: `kube-proxy-${String(index).padStart(5, '0')}`}, spec: {...pod.spec, nodeName: node.metadata!.name}, status: {...pod.status, hostIP: address, podIP: address}}
  })
  return {...scenario, objects: {...scenario.objects, '/api/v1/pods': pods}}
}
