import {jsonVisible} from './printable.js'

/**
 * Writes a value as JSON in pieces: a 5,000-node report holds tens of thousands of findings, and
 * one string of all of it would take hundreds of megabytes on top of the report itself. `pretty`
 * lays it out as JSON.stringify(value, null, 2) would; else it is one line, a fifth smaller.
 */
export function writeJson(value: unknown, write: (chunk: string) => void, layout: {pretty: boolean}): void {
  writeValue(value, 0, {pretty: layout.pretty, write, written: [], keys: []})
  write('\n')
}

/** The size of the pieces writeJsonUtf8 hands over. */
const PIECE_BYTES = 1 << 20

/** Chunks this long that come again are handed over as the bytes encoded the second time; shorter ones are encoded each time. */
const LONG_CHUNK = 1024

/**
 * writeJson's text as UTF-8: the chunks encoded straight into pieces of about a megabyte (joining them into
 * strings and then encoding those took more CPU than making the JSON: a 5,000-node report is 40 MB in 240,000
 * chunks), except a long chunk met again, whose bytes are handed over as they are. The checks nodes alike share
 * are 34 of such a report's 40 MB: writing them into fresh memory 5,000 times took as long as making the JSON.
 * `write` may keep what it is given (a pipe is written asynchronously): no byte handed over is written again.
 */
export function writeJsonUtf8(value: unknown, write: (piece: Uint8Array) => void, layout: {pretty: boolean}): void {
  let piece = Buffer.allocUnsafe(PIECE_BYTES)
  // What of the piece is written (used) and what of that is handed over already (start).
  let used = 0
  let start = 0
  const handOver = () => {
    if (used > start) write(piece.subarray(start, used))
    start = used
  }

  // Long chunks seen once (undefined), or twice and more (their bytes).
  const longChunks = new Map<string, Buffer | undefined>()
  writeJson(
    value,
    (chunk) => {
      if (chunk.length >= LONG_CHUNK) {
        let bytes = longChunks.get(chunk)
        if (!bytes && longChunks.has(chunk)) longChunks.set(chunk, (bytes = Buffer.from(chunk)))
        else if (!bytes) longChunks.set(chunk, undefined)
        if (bytes) {
          handOver()
          write(bytes)
          return
        }
      }

      // UTF-8 takes at most three bytes for each UTF-16 code unit.
      if (used + chunk.length * 3 > piece.length) {
        handOver()
        piece = Buffer.allocUnsafe(Math.max(PIECE_BYTES, chunk.length * 3))
        used = 0
        start = 0
      }

      used += piece.write(chunk, used)
    },
    layout,
  )
  handOver()
}

/** The whole JSON text of a value, as writeJson writes it. */
export function jsonText(value: unknown, layout: {pretty: boolean}): string {
  const pieces: string[] = []
  writeJson(value, (piece) => pieces.push(piece), layout)
  return pieces.join('')
}

/**
 * Objects down to this depth are taken apart (the report, its lists, their items); below it each
 * piece is small enough to stringify whole, and one met again (the checks that nodes alike share)
 * is written from the text made the first time.
 */
const TAKEN_APART = 2

/** Where writeValue writes, and what it made already: objects' texts and keys' texts, by depth. */
interface Writer {
  pretty: boolean
  write: (chunk: string) => void
  written: Array<WeakMap<object, string>>
  /** A key as it opens an object (`"name":`) and as it follows another (`,"name":`). */
  keys: Array<Map<string, {first: string; next: string}>>
}

function writeValue(value: unknown, depth: number, writer: Writer): void {
  const {pretty, write} = writer
  const newline = pretty ? `\n${'  '.repeat(depth)}` : ''
  if (Array.isArray(value) && value.length > 0) {
    const inner = pretty ? `${newline}  ` : ''
    write('[')
    let first = true
    for (const item of value) {
      write(first ? inner : `,${inner}`)
      first = false
      writeValue(item, depth + 1, writer)
    }

    write(`${newline}]`)
  } else if (value !== null && typeof value === 'object' && !Array.isArray(value) && depth <= TAKEN_APART) {
    // Plain loops, and each key's text made once: a 5,000-node report has 60,000 fields here.
    const keys = (writer.keys[depth] ??= new Map())
    write('{')
    let empty = true
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key]
      if (item === undefined) continue
      let text = keys.get(key)
      if (!text) {
        const first = `${pretty ? `${newline}  ` : ''}${stringified(key)}:${pretty ? ' ' : ''}`
        keys.set(key, (text = {first, next: `,${first}`}))
      }

      write(empty ? text.first : text.next)
      empty = false
      writeValue(item, depth + 1, writer)
    }

    write(empty ? '}' : `${newline}}`)
  } else if (value !== null && typeof value === 'object') {
    // By depth too: the pretty text is indented for where it stands.
    const atDepth = (writer.written[depth] ??= new WeakMap())
    let text = atDepth.get(value)
    if (text === undefined) atDepth.set(value, (text = pretty ? stringified(value, 2).replaceAll('\n', newline) : stringified(value)))
    write(text)
  } else {
    write(stringified(value))
  }
}

/**
 * JSON.stringify, with controls and invisible characters from a cluster or a node written as escapes (printable.ts).
 * Escaped where each text is made, so that a text written many times (the checks nodes alike share) is looked at once.
 */
function stringified(value: unknown, indent?: number): string {
  // JSON.stringify gives undefined for undefined and functions, whatever its type says.
  const text = JSON.stringify(value, null, indent) as string | undefined
  return text === undefined ? 'null' : jsonVisible(text)
}
