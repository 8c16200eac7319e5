import type {FactSet} from '../facts/fact-set.js'

export interface NodeDescription {
  name: string
  kernelRelease: string | null
  os: {id: string | null; versionId: string | null; prettyName: string | null}
  nftVersion: string | null
}

/** The identity lines of a node in the report. */
export function describeNode(facts: FactSet): NodeDescription {
  const text = (path: string): string | null => {
    const value = facts.get(path)
    return typeof value === 'string' ? value : null
  }

  return {
    name: text('node.name') ?? '',
    kernelRelease: text('kernel.release'),
    os: {id: text('os.id'), versionId: text('os.versionId'), prettyName: text('os.prettyName')},
    nftVersion: text('nft.version'),
  }
}
