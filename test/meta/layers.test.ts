/**
 * The layers of src/, as docs/dev/architecture.md draws them: each folder may import only
 * from itself and the folders before it, and no import cycle exists among files or among folders.
 * Static, type-only, re-export and dynamic imports all count.
 */
import assert from 'node:assert/strict'
import {dirname} from 'node:path'
import {describe, it} from 'node:test'

import {importGraph, RELATIVE_IMPORT} from '../helpers/imports.js'

const LAYERS = ['contract', 'util', 'facts', 'sources', 'derive', 'engine', 'planner', 'report', 'services', 'cli', 'commands', 'build'] as const

/** The layer a file belongs to: its first folder under src/. */
function layerOf(file: string): string {
  return file.split('/', 2)[1]
}

/** Strongly connected components with more than one member, or a member that imports itself (Tarjan). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (node: string) => {
    index.set(node, counter)
    low.set(node, counter++)
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!))
      }
    }

    if (low.get(node) !== index.get(node)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.toSorted())
  }

  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return found
}

describe('layers of src/', () => {
  const graph = importGraph('src')

  it('every file lives in a layer folder', () => {
    const strays = [...graph.keys()].filter((file) => !(LAYERS as readonly string[]).includes(layerOf(file)))
    assert.deepEqual(strays, [], `files outside ${LAYERS.join(', ')}`)
  })

  it('every import resolves to a file of src/', () => {
    const broken = [...graph].flatMap(([file, targets]) => targets.filter((target) => !graph.has(target)).map((target) => `${file} → ${target}`))
    assert.deepEqual(broken, [])
  })

  it('no import cycle among files', () => {
    assert.deepEqual(cycles(graph), [])
  })

  it('each layer imports only from itself and the layers before it', () => {
    const order = new Map(LAYERS.map((layer, position) => [layer as string, position]))
    const wrongWay = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => order.get(layerOf(target))! > order.get(layerOf(file))!).map((target) => `${file} → ${target}`),
    )
    assert.deepEqual(wrongWay, [], `order: ${LAYERS.join(' → ')}`)
  })

  it('renderers import only the contract and utilities: printing a report loads no rule engine and no planner', () => {
    const beyond = [...graph].flatMap(([file, targets]) =>
      layerOf(file) === 'report' ? targets.filter((target) => !['contract', 'util', 'report'].includes(layerOf(target))).map((target) => `${file} → ${target}`) : [],
    )
    assert.deepEqual(beyond, [])
  })

  it('sources return data: no file of sources/ imports derive/, where every fact is derived (the node deriver is derive/node/)', () => {
    const deriving = [...graph].flatMap(([file, targets]) =>
      layerOf(file) === 'sources' ? targets.filter((target) => layerOf(target) === 'derive' || target.startsWith('src/facts/node-facts')).map((target) => `${file} → ${target}`) : [],
    )
    assert.deepEqual(deriving, [])
    assert.ok(graph.has('src/derive/node/node-facts.ts'), 'the node deriver is in derive/node/')
  })

  it('no import cycle among folders', () => {
    const folders = new Map<string, Set<string>>()
    for (const [file, targets] of graph) {
      const from = dirname(file)
      const edges = folders.get(from) ?? new Set<string>()
      folders.set(from, edges)
      for (const target of targets) if (dirname(target) !== from) edges.add(dirname(target))
    }

    assert.deepEqual(cycles(new Map([...folders].map(([folder, edges]) => [folder, [...edges]]))), [])
  })

  it('finds the cycles and wrong-way imports it is there to find', () => {
    assert.deepEqual(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['d']], ['e', ['a']]])), [['a', 'b', 'c'], ['d']])
    const sample = "import type {A} from './a.js'\nexport {B} from '../b.js'\nconst c = await import('./c/d.js')\nimport './side.js'\n"
    assert.deepEqual([...sample.matchAll(RELATIVE_IMPORT)].map((match) => match[1] ?? match[2]), ['./a.js', '../b.js', './c/d.js', './side.js'])
  })
})
