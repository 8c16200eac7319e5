/** `--facts`: facts bundles from files, folders of them, or standard input; each is one node. */
import {readdir, stat} from 'node:fs/promises'
import {basename, extname, join, resolve} from 'node:path'

import {BundleError} from '../../facts/bundle.js'
import {UsageError} from '../../util/errors.js'
import {MAX_FILE_BYTES, quotingNothingOf, readStandardInput, readUserFileSync} from '../../util/user-file.js'
import {bundledNode, type ProbedNode} from './node-probes.js'

/**
 * The nodes of every bundle named, in order: `-` is standard input, a folder gives its files sorted.
 * A file named twice (itself and in its folder) is read once.
 */
export async function readFactsBundles(paths: readonly string[], readStdin: () => Promise<string> = () => readStandardInput('--facts', MAX_FILE_BYTES.bundle)): Promise<ProbedNode[]> {
  const files: string[] = []
  const nodes: ProbedNode[] = []
  for (const path of paths) {
    if (path === '-') {
      nodes.push(nodeOfFile('standard input', 'stdin', await readStdin()))
      continue
    }

    const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`--facts ${path}: ${error.code === 'ENOENT' ? 'no such file or folder' : error.message}`, [
        'Pass a bundle file, a folder of bundles, or - for standard input.',
      ])
    })
    if (info.isDirectory()) {
      const entries = await readdir(path, {withFileTypes: true})
      const bundles = entries.filter((entry) => entry.isFile() && !entry.name.startsWith('.')).map((entry) => join(path, entry.name))
      if (bundles.length === 0) throw new UsageError(`--facts ${path}: the folder holds no bundle files`)
      files.push(...bundles.toSorted())
    } else {
      files.push(path)
    }
  }

  const seen = new Set<string>()
  const distinct = files.filter((file) => !seen.has(resolve(file)) && seen.add(resolve(file)))
  const texts = distinct.map((file) => readUserFileSync('--facts', file, {maxBytes: MAX_FILE_BYTES.bundle})!)
  return [...nodes, ...distinct.map((file, index) => nodeOfFile(file, basename(file, extname(file)), texts[index]))]
}

function nodeOfFile(origin: string, fallbackName: string, text: string): ProbedNode {
  try {
    return bundledNode({source: 'facts', origin, fallbackName}, text)
  } catch (error) {
    if (!(error instanceof BundleError)) throw error
    throw quotingNothingOf(text, new UsageError(`${origin}:${error.line}: not a kpx-check facts bundle: ${error.message}`, [
      'Write bundles with the collector: kpx-check collect | ssh NODE sh > NODE.facts',
      'Or see docs/bundle-format.md.',
    ]), (quoted) => quoted.startsWith('### ') || quoted.startsWith('# kpx-check'))
  }
}
