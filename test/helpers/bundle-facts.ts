import {deriveNodeFacts} from '../../src/derive/node/node-facts.js'
import {parseBundle} from '../../src/facts/bundle.js'
import type {FactSet} from '../../src/facts/fact-set.js'

/** A bundle's node facts, as a run derives them from a file: named by its hostname section, else by `fallbackName` (the file's name). */
export function bundleFacts(text: string, fallbackName = 'node'): FactSet {
  return deriveNodeFacts(parseBundle(text), {fallbackName})
}
