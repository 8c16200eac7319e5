/** Markdown read back as GitHub reads it: micromark's GFM parser, to an mdast tree (which also autolinks as GitHub does). */
import type {Nodes, Root} from 'mdast'
import {fromMarkdown} from 'mdast-util-from-markdown'
import {gfmFromMarkdown} from 'mdast-util-gfm'
import {gfm} from 'micromark-extension-gfm'

export function parseMarkdown(markdown: string): Root {
  return fromMarkdown(markdown, {extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()]})
}

/** The node and everything under it, in document order. */
export function* nodesOf(node: Nodes): Generator<Nodes> {
  yield node
  if ('children' in node) for (const child of node.children) yield* nodesOf(child)
}

/** The text a node shows a reader, code included. */
export function shown(node: Nodes): string {
  if ('value' in node) return node.value
  return 'children' in node ? node.children.map((child) => shown(child)).join('') : ''
}
