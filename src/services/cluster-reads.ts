import {writeFile} from 'node:fs/promises'

import {checkConnection, collectResource, emptySnapshot, LISTED_RESOURCES} from '../sources/cluster/collect.js'
import {type ConnectOptions, KubeClient} from '../sources/cluster/kube-client.js'
import {objectName, type Resource} from '../sources/cluster/resources.js'
import type {ClusterSnapshot} from '../sources/cluster/snapshot.js'
import {forEachConcurrently} from '../util/pool.js'
import {runSilently, type StepRunner} from './progress.js'

/** How to reach the API server (--kubeconfig, --context, --request-timeout, --api-concurrency). */
export type ConnectionOptions = Omit<ConnectOptions, 'signal'>

/** A resource as `kubectl get` takes it: Kubernetes' own (core, apps, *.k8s.io) by name, others with their API group. */
const kubectlName = (resource: Resource) => (resource.apiGroup.includes('.') && !resource.apiGroup.endsWith('.k8s.io') ? `${resource.resource}.${resource.apiGroup}` : resource.resource)

/** Reads the cluster into a snapshot, with a task list on stderr; aborting `signal` stops the reads with its reason. */
export async function collectLive(connection: ConnectionOptions, progress: StepRunner = runSilently, signal?: AbortSignal): Promise<ClusterSnapshot> {
  const state: {client?: KubeClient; snapshot?: ClusterSnapshot} = {}
  try {
    await progress(
      [
        {
          title: 'Connect to the API server',
          async task(context, task) {
            context.client = await KubeClient.connect({...connection, signal})
            const version = await checkConnection(context.client)
            context.snapshot = {...emptySnapshot(context.client), resources: {version: {status: 'ok', items: [version]}}}
            task.title = `Connected to ${context.client.server} (${String(version.gitVersion ?? '?')}, context ${context.client.context})`
          },
        },
        {
          title: `Read ${[...new Set(LISTED_RESOURCES.map((resource) => kubectlName(resource)))].join(', ')}`,
          async task(context, task) {
            let done = 0
            await forEachConcurrently(LISTED_RESOURCES, connection.concurrency, async (resource) => {
              context.snapshot!.resources[resource.name] = await collectResource(context.client!, resource)
              task.output = `${++done}/${LISTED_RESOURCES.length} read`
            })
            // A resource that could not be read counts once; one read by name, once for each object.
            const refused = Object.values(context.snapshot!.resources).reduce((total, outcome) => total + (outcome.status === 'ok' ? (outcome.unreadable?.length ?? 0) : 1), 0)
            task.title = `Read ${LISTED_RESOURCES.length} resource kinds`
            if (refused > 0) task.fellShort(`${refused} could not be read, see the report`)
          },
        },
      ],
      state,
    )
  } finally {
    state.client?.close()
  }

  return state.snapshot!
}

/** What `kpx-check snapshot` wrote: the file, and what it holds of each resource (with the named objects it could not read). */
export interface SnapshotResult {
  file: string
  resources: Record<string, {count?: number; status: string; unreadable?: string[]}>
}

/** `kpx-check snapshot`: reads the cluster and writes the snapshot to `file`. */
export async function writeSnapshot(connection: ConnectionOptions, file: string, progress: StepRunner = runSilently): Promise<SnapshotResult> {
  const snapshot = await collectLive(connection, progress)
  await writeFile(file, `${JSON.stringify(snapshot, null, 1)}\n`)
  const resources = Object.fromEntries(
    Object.entries(snapshot.resources).map(([name, outcome]) => {
      if (outcome.status !== 'ok') return [name, {status: outcome.status}]
      const unreadable = (outcome.unreadable ?? []).map((object) => objectName(object))
      return [name, {status: 'ok', count: outcome.items.length, ...(unreadable.length > 0 ? {unreadable} : {})}]
    }),
  )
  return {file, resources}
}
