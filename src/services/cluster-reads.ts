import {writeFile} from 'node:fs/promises'

import {checkConnection, collectResource, emptySnapshot, LISTED_RESOURCES} from '../sources/cluster/collect.js'
import {type ConnectOptions, KubeClient} from '../sources/cluster/kube-client.js'
import {objectName, type Resource} from '../sources/cluster/resources.js'
import type {ClusterSnapshot, KubeObject} from '../sources/cluster/snapshot.js'
import {forEachConcurrently} from '../util/pool.js'
import {runSilently, type StepRunner} from './progress.js'

/** How to reach the API server (--kubeconfig, --context, --request-timeout, --api-concurrency). */
export type ConnectionOptions = Omit<ConnectOptions, 'signal'>

/** A resource as `kubectl get` takes it: Kubernetes' own (core, apps, *.k8s.io) by name, others with their API group. */
const kubectlName = (resource: Resource) => (resource.apiGroup.includes('.') && !resource.apiGroup.endsWith('.k8s.io') ? `${resource.resource}.${resource.apiGroup}` : resource.resource)

/**
 * Reads the cluster into a snapshot, with a task list on stderr; aborting `signal` stops the reads
 * with its reason. The lists are asked for with the version, not after it: a round trip sooner.
 * Should the version fail (a wrong address, certificate or token), they stop, and its error is the one
 * raised, as if they had waited.
 */
export async function collectLive(connection: ConnectionOptions, progress: StepRunner = runSilently, signal?: AbortSignal): Promise<ClusterSnapshot> {
  const refused = new AbortController()
  const readSignal = signal ? AbortSignal.any([signal, refused.signal]) : refused.signal
  const state: {client?: KubeClient; snapshot?: ClusterSnapshot; lists?: Promise<ClusterSnapshot['resources']>; read: number; showRead: () => void} = {read: 0, showRead() {}}
  try {
    await progress(
      [
        {
          title: 'Connect to the API server',
          async task(context, task) {
            context.client = await KubeClient.connect({...connection, signal: readSignal})
            const versionRead = checkConnection(context.client) // asked first: the lists wait for none of its sockets
            context.lists = readLists(context.client, connection.concurrency, () => {
              context.read++
              context.showRead()
            })
            context.lists.catch(() => {}) // awaited by the next step, or here if the version fails
            let version: KubeObject
            try {
              version = await versionRead
            } catch (error) {
              refused.abort(error)
              await context.lists.catch(() => {})
              throw error
            }

            context.snapshot = {...emptySnapshot(context.client), resources: {version: {status: 'ok', items: [version]}}}
            task.title = `Connected to ${context.client.server} (${String(version.gitVersion ?? '?')}, context ${context.client.context})`
          },
        },
        {
          title: `Read ${[...new Set(LISTED_RESOURCES.map((resource) => kubectlName(resource)))].join(', ')}`,
          async task(context, task) {
            context.showRead = () => (task.output = `${context.read}/${LISTED_RESOURCES.length} read`)
            context.showRead()
            const resources = await context.lists!
            Object.assign(context.snapshot!.resources, resources)
            // A resource that could not be read counts once; one read by name, once for each object.
            const refusedReads = Object.values(resources).reduce((total, outcome) => total + (outcome.status === 'ok' ? (outcome.unreadable?.length ?? 0) : 1), 0)
            task.title = `Read ${LISTED_RESOURCES.length} resource kinds`
            if (refusedReads > 0) task.fellShort(`${refusedReads} could not be read, see the report`)
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

/** Every listed resource, `concurrency` at a time; `listed` is told of each one read. */
async function readLists(client: KubeClient, concurrency: number, listed: () => void): Promise<ClusterSnapshot['resources']> {
  const resources: ClusterSnapshot['resources'] = {}
  await forEachConcurrently(LISTED_RESOURCES, concurrency, async (resource) => {
    resources[resource.name] = await collectResource(client, resource)
    listed()
  })
  return resources
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
