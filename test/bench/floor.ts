/**
 * The floor for `kpx-check cluster`, run by cluster.ts in a worker thread so that it does not share
 * an event loop with the API server: reads what the command reads (every page of each list in
 * RESOURCES, each named object), 4 resources at a time as the client does, and JSON.parses each
 * body whole; nothing else. Its pages are sized as the client sizes pages it parses whole
 * (nextPageLimit, about 2 MB); the client asks for larger pages of EndpointSlices, whose endpoints
 * it counts without parsing them. Posts back a FloorResult.
 */
import {Agent, request} from 'node:https'
import {parentPort, workerData} from 'node:worker_threads'

import {nextPageLimit} from '../../src/sources/cluster/kube-client.js'
import {type Resource, RESOURCES} from '../../src/sources/cluster/resources.js'

export interface FloorInput {
  url: string
  ca: string
  token: string
}

export interface FloorResult {
  wallMs: number
  requests: number
  items: number
}

const CONCURRENCY = 4

const {url, ca, token} = (workerData ?? {}) as FloorInput
const agent = new Agent({keepAlive: true, ca, maxSockets: CONCURRENCY})
let requests = 0
let items = 0

function getJson(path: string): Promise<{page: {items?: unknown[]; metadata?: {continue?: string}}; jsonLength: number}> {
  requests++
  return new Promise((resolve, reject) => {
    const outgoing = request(new URL(path, url), {agent, headers: {Authorization: `Bearer ${token}`, Accept: 'application/json'}}, (response) => {
      // Appending decoded strings and parsing once beats Buffer.concat + toString by about 15%.
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({page: JSON.parse(text), jsonLength: text.length}))
    })
    outgoing.on('error', reject)
    outgoing.end()
  })
}

async function read(resource: Resource): Promise<void> {
  if (resource.kind === 'get') {
    for (const object of resource.objects) await getJson(object.path)
    return
  }

  let next = ''
  let [jsonLength, listed] = [0, 0]
  do {
    const query = new URLSearchParams({limit: String(nextPageLimit({received: jsonLength, parsed: jsonLength}, listed))})
    if (resource.labelSelector) query.set('labelSelector', resource.labelSelector)
    if (next) query.set('continue', next)
    const {page, jsonLength: pageLength} = await getJson(`${resource.path}?${query}`)
    jsonLength += pageLength
    listed += page.items?.length ?? 0
    next = page.metadata?.continue ?? ''
  } while (next)
  items += listed
}

/** Reads everything RESOURCES lists, 4 resources at a time. */
async function readAll(): Promise<FloorResult> {
  const started = performance.now()
  const queue = [...RESOURCES]
  await Promise.all(
    Array.from({length: CONCURRENCY}, async () => {
      for (let resource = queue.shift(); resource; resource = queue.shift()) await read(resource)
    }),
  )
  agent.destroy()
  return {wallMs: performance.now() - started, requests, items}
}

// Loaded outside a worker (`npm test` loads every file under dist/test), it does nothing.
if (parentPort) parentPort.postMessage(await readAll())
