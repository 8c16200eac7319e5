/**
 * Reading a list's JSON without building what is only counted. The EndpointSlices of a large
 * cluster are mostly their endpoints (300,000 endpoints are 70 MB of JSON) and the checks need
 * only how many there are; decoding that text, joining it and parsing it would build millions of
 * objects only for the garbage collector. ItemArrayCounter reads the body's bytes as they arrive
 * and keeps everything but each item's array under `field`, which becomes `"<as>":<its length>`;
 * JSON.parse then reads the small rest. UTF-8 keeps every byte of the JSON syntax (quotes,
 * brackets, commas, colons, backslashes) out of multi-byte characters, so bytes suffice.
 */

const QUOTE = 0x22
const BACKSLASH = 0x5C
const COLON = 0x3A
const COMMA = 0x2C
const SPACE = 0x20
const OPEN_ARRAY = 0x5B
const CLOSE_ARRAY = 0x5D
const OPEN_OBJECT = 0x7B
const CLOSE_OBJECT = 0x7D

/** Depths of a list: the list object is 1, its `items` array 2, each item 3. */
const ITEM_DEPTH = 3

/** Where the scan is, between two bytes that are not whitespace. */
type Expecting = 'colon' | 'value' | 'other'

export class ItemArrayCounter {
  /** Bytes received, counted or kept. */
  received = 0
  private readonly kept: Buffer[] = []
  private keptLength = 0
  /** Strings longer than the names that matter are not kept. */
  private readonly longestName: number
  private depth = 0
  private inString = false
  private escaped = false
  /** The string being read, when it may be a key that matters (depth ≤ 3); undefined past their length. */
  private text: number[] | undefined
  private lastString = ''
  private lastKey = ''
  private expecting: Expecting = 'other'
  private inItems = false
  /** Where the last string started in the kept bytes: a counted field's key is dropped from there. */
  private stringStart = 0
  /** The array being counted: its depth within itself, commas at its top, whether it has a value. */
  private counting: undefined | {depth: number; commas: number; empty: boolean}
  /** Where the chunk being written has its next backslash (-1: none); looked for once a chunk, and again past each. */
  private nextBackslash = -1

  constructor(
    private readonly field: string,
    private readonly as: string,
  ) {
    this.longestName = Math.max(field.length, 'items'.length)
  }

  write(chunk: Buffer): void {
    this.received += chunk.length
    this.nextBackslash = chunk.indexOf(BACKSLASH)
    let keepFrom = 0
    for (let index = 0; index < chunk.length; index++) {
      if (this.counting) {
        const closed = this.countUntilClosed(chunk, index)
        if (closed === -1) return // the rest of the chunk is inside the counted array
        this.keep(Buffer.from(`"${this.as}":${this.counting.commas + (this.counting.empty ? 0 : 1)}`))
        this.counting = undefined
        keepFrom = closed + 1
        index = closed
        continue
      }

      const code = chunk[index]
      if (this.inString) {
        if (this.escaped) this.escaped = false
        else if (code === BACKSLASH) {
          this.escaped = true
          this.text = undefined // no name that matters is written with escapes
        } else if (code === QUOTE) this.endString()
        else if (this.text) {
          if (this.text.length < this.longestName) this.text.push(code)
          else this.text = undefined
        }

        continue
      }

      if (code <= SPACE) continue
      if (code === QUOTE) {
        this.inString = true
        this.text = this.depth <= ITEM_DEPTH ? [] : undefined
        this.stringStart = this.keptLength + index - keepFrom
        this.expecting = 'other'
        continue
      }

      if (this.expecting === 'colon' && code === COLON) {
        this.lastKey = this.lastString
        this.expecting = 'value'
        continue
      }

      if (this.expecting === 'value' && code === OPEN_ARRAY && this.inItems && this.depth === ITEM_DEPTH && this.lastKey === this.field) {
        // The key, its colon and the array go; "<as>":<length> comes in their place.
        this.keep(chunk.subarray(keepFrom, index))
        this.truncate(this.stringStart)
        this.counting = {depth: 1, commas: 0, empty: true}
        keepFrom = index + 1
        this.expecting = 'other'
        continue
      }

      this.expecting = 'other'
      if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
        if (this.depth === 1 && code === OPEN_ARRAY && this.lastKey === 'items') this.inItems = true
        this.depth++
      } else if ((code === CLOSE_ARRAY || code === CLOSE_OBJECT) && --this.depth < 2) this.inItems = false
    }

    this.keep(chunk.subarray(keepFrom))
  }

  /** The text received, the counted arrays replaced. Text that was not JSON stays so (a body cut inside a counted array too). */
  end(): string {
    return Buffer.concat(this.kept, this.keptLength).toString('utf8')
  }

  private endString(): void {
    this.inString = false
    this.lastString = this.text ? String.fromCodePoint(...this.text) : ''
    this.text = undefined
    this.expecting = 'colon'
  }

  /**
   * Reads the counted array from `from` on: the index of its closing bracket, or -1 if the chunk
   * ends first. Most of a large list's bytes pass here, so its state lives in locals meanwhile.
   */
  private countUntilClosed(chunk: Buffer, from: number): number {
    const counting = this.counting!
    let {depth, commas, empty} = counting
    let inString = this.inString
    let escaped = this.escaped
    let nextBackslash = this.nextBackslash
    let closed = -1
    let index = from
    const {length} = chunk
    scan: while (index < length) {
      if (inString) {
        if (escaped) {
          escaped = false
          index++
        }

        // Strings are most of these bytes, and short. Escapes are rare: up to the next backslash a
        // string ends at its first quote, and a loop that looks for nothing else reads it fastest.
        if (nextBackslash !== -1 && nextBackslash < index) nextBackslash = chunk.indexOf(BACKSLASH, index)
        for (;;) {
          const stop = nextBackslash === -1 ? length : nextBackslash
          while (index < stop && chunk[index] !== QUOTE) index++
          if (index < stop) {
            index++ // past the closing quote
            break
          }

          if (stop === length) break scan // the chunk ends inside the string
          // The backslash and the byte it escapes, which may be in the next chunk.
          index = stop + 2
          nextBackslash = chunk.indexOf(BACKSLASH, index)
          if (index > length) {
            escaped = true
            break scan
          }
        }

        inString = false
        continue
      }

      const code = chunk[index++]
      if (code <= SPACE) continue
      if (depth === 1 && code !== COMMA && code !== CLOSE_ARRAY) empty = false
      if (code === QUOTE) inString = true
      else if (code === OPEN_ARRAY || code === OPEN_OBJECT) depth++
      else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
        if (--depth === 0) {
          closed = index - 1
          break
        }
      } else if (code === COMMA && depth === 1) commas++
    }

    Object.assign(counting, {depth, commas, empty})
    this.inString = inString
    this.escaped = escaped
    this.nextBackslash = nextBackslash
    return closed
  }

  private keep(bytes: Buffer): void {
    if (bytes.length === 0) return
    this.kept.push(bytes)
    this.keptLength += bytes.length
  }

  /** Drops the kept bytes from `length` on. */
  private truncate(length: number): void {
    while (this.keptLength > length) {
      const last = this.kept.at(-1)!
      const excess = this.keptLength - length
      if (last.length <= excess) {
        this.kept.pop()
        this.keptLength -= last.length
      } else {
        this.kept[this.kept.length - 1] = last.subarray(0, last.length - excess)
        this.keptLength = length
      }
    }
  }
}
