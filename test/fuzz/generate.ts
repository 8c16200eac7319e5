/**
 * A small seeded generator of adversarial input: text built from the pieces that break parsers and
 * documents (blank and newline runs, controls, terminal escapes, NUL, bidi overrides, invalid UTF-8,
 * deep nesting, huge numbers, pipes, backticks, `$()`, very long lines). The same seed gives the same
 * inputs on every machine, so a failure is replayed by its seed.
 */

/** mulberry32: 32 bits of state, fast, and the same sequence everywhere; more than test inputs need. */
export class Random {
  #state: number

  constructor(seed: number) {
    this.#state = seed >>> 0
  }

  /** A number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6D_2B_79_F5) >>> 0
    let mixed = this.#state
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1)
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61)
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 32
  }

  /** An integer in [0, below). */
  below(below: number): number {
    return Math.floor(this.next() * below)
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]
  }

  /** A length up to `max`, as often short as long: each power of two below `max` is as likely. */
  length(max: number): number {
    return Math.floor(2 ** (this.next() * Math.log2(max + 1)))
  }
}

/** A generator of its own for each target, from the run's seed, so adding a target changes no other target's inputs. */
export function randomFor(seed: number, target: string): Random {
  let hash = seed >>> 0
  for (const char of target) hash = Math.imul(hash ^ char.codePointAt(0)!, 0x01_00_01_93) >>> 0
  return new Random(hash)
}

/** What untrusted text brings when it means harm, or only is strange. */
export const PIECES: readonly string[] = [
  ' ', '\n', '\t', '\r\n', '\r', '\u000B', '\u000C', '\u0000', '\u0007', '\u007F', '\u0085', '\u2028', '\u00A0',
  '\u001B[2J', '\u001B[31m', '\u001B]0;owned\u0007', '\u001B]8;;https://evil.example\u0007click\u001B]8;;\u0007', '\u009B31m', '\u001BP', '\u001B\\',
  '\u202E', '\u2066', '\u200B', '\uFEFF', '\uD800', '\uDFFF', '\uFFFE', '😀', 'é', '日本',
  '|', '`', '```', '````', '~~~', '\\', '$(touch PWN)', '`id`', '${IFS}', ';id', '&&', "'", '"',
  '<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '[x](javascript:alert(1))', '![i](https://evil.example/i.png)', '&#x202E;', '&lt;', ']]>', '<!--', '<![CDATA[',
  'https://evil.example', 'www.evil.example', 'ops@evil.example', '@team', '$x$', '# ', '### ', '> ', '- ', '1. ', '---', '*', '_', '~',
  '[', ']', '{', '}', '(', ')', ':', ',', '=', 'x=', '1.', '.', '-', '--', '0x', 'v1', 'v',
  '99999999999999999999999999999', '1e309', '-1', '-0', 'NaN', 'Infinity', '4.18.0-553.el8_10.x86_64', '1.0.1', '5.13',
  '# kpx-check node facts v1', '### kernel', 'table ip t {', 'chain c {', 'policy drop;', '-P INPUT DROP', 'net.ipv4.ip_forward = 1', 'ID=rhel', 'mode: ipvs',
]


/** `piece` repeated to `size` characters, then `breaker`: what a lazy or nested quantifier tries at every start. */
export function run(piece: string, breaker: string, size: number): string {
  return piece.repeat(Math.ceil(Math.max(size - breaker.length, 1) / piece.length)).slice(0, Math.max(size - breaker.length, 1)) + breaker
}

/** Runs of blanks and line breaks, which backtracking expressions retry at every length. */
export const BLANK_RUNS: readonly string[] = [' ', '\n', '\t', ' \n', '\n ', '\r\n', '\t\n']

/** Other runs that trip greedy and nested quantifiers. */
export const RUNS: readonly string[] = [...BLANK_RUNS, 'a', '1', '1.', '.', '-', '=', ':', '#', '"', '\\', 'x=', '### ', '0 ', '\u0000']

/** Pieces that end a run of blanks with something that is not blank. */
export const BREAKERS: readonly string[] = PIECES.filter((piece) => piece.trim() !== '')

/** Openings that nest, for inputs that go deep. */
const NESTING = ['[', '{"a":', '(', '((', '${', '<a>', '> ', '- ', '  ', '[![', '`', '"', "'"]

/**
 * One adversarial string of about `size` characters: a long run of one piece ended by another, a mix
 * of pieces, characters and numbers, deep nesting, one long line, or bytes that are not UTF-8 read as
 * UTF-8 (each bad sequence becomes U+FFFD).
 */
export function adversarialText(random: Random, size: number): string {
  switch (random.below(5)) {
    case 0: {
      return run(random.pick(PIECES), random.pick(PIECES), size)
    }

    case 1: {
      return random.pick(NESTING).repeat(Math.max(1, Math.floor(size / 2))).slice(0, Math.max(size, 1))
    }

    case 2: {
      return longLine(random, size)
    }

    case 3: {
      return invalidUtf8(random, size).toString('utf8')
    }

    default: {
      return mix(random, size)
    }
  }
}

/** Bytes, mostly not UTF-8: stray continuation bytes, overlong and truncated sequences, encoded surrogates. */
export function invalidUtf8(random: Random, size: number): Buffer {
  const sequences = [[0xFF], [0xFE], [0xC0, 0x80], [0xC3], [0xC3, 0x28], [0x80], [0xBF], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98], [0x22], [0x5C], [0x5B], [0x7B], [0x0A], [0x00]]
  const bytes = Buffer.alloc(Math.max(size, 1))
  for (let at = 0; at < bytes.length; ) {
    if (random.below(4) === 0) bytes[at++] = 0x20 + random.below(95)
    else for (const byte of random.pick(sequences)) if (at < bytes.length) bytes[at++] = byte
  }

  return bytes
}

/** One line of printable ASCII. */
function longLine(random: Random, size: number): string {
  const bytes = Buffer.alloc(size)
  for (let at = 0; at < size; at++) bytes[at] = 0x21 + random.below(94)
  return bytes.toString('latin1')
}

function mix(random: Random, size: number): string {
  const parts: string[] = []
  let length = 0
  while (length < size) {
    const part = mixPart(random)
    parts.push(part)
    length += part.length
  }

  return parts.join('').slice(0, Math.max(size, 1))
}

function mixPart(random: Random): string {
  switch (random.below(4)) {
    case 0: {
      return String(random.pick([0, -1, 2 ** 53, Number.MAX_VALUE, 1e-300, 0.1]) * (random.next() < 0.5 ? 1 : -1))
    }

    case 1: {
      // Any code point but a surrogate half (those are pieces of their own).
      const point = random.below(0x11_00_00 - 0x8_00)
      return String.fromCodePoint(point < 0xD8_00 ? point : point + 0x8_00)
    }

    case 2: {
      return random.pick(PIECES).repeat(1 + random.below(64))
    }

    default: {
      return random.pick(PIECES)
    }
  }
}
