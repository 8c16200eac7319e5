/**
 * Whether what goes to a stream is coloured, for stdout (the text report) and stderr (progress) alike:
 * NO_COLOR (no-color.org) turns colour off, FORCE_COLOR=0 (or false) too, any other FORCE_COLOR turns it
 * on, and otherwise a terminal gets colour and a pipe or a file does not.
 */
export function colorWanted(stream: {isTTY?: boolean}, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR) return false
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false'
  return Boolean(stream.isTTY)
}

/** SGR sequences (colour, bold) only: the cursor movements of a live display stay. */
// eslint-disable-next-line no-control-regex -- matching the escape character is the point
const SGR = /\u001B\[[\d;]*m/g

/**
 * stderr for listr2 without colour. listr2 colours through colorette, which looks at stdout, not
 * stderr, and takes any FORCE_COLOR, even 0, for yes: its colour is taken out here instead.
 */
export function uncoloredStderr(): NodeJS.WriteStream {
  const stderr = process.stderr
  return {
    get columns() {
      return stderr.columns
    },
    get rows() {
      return stderr.rows
    },
    write: (chunk: string | Uint8Array, ...rest: unknown[]) => (stderr.write as (...args: unknown[]) => boolean)(String(chunk).replaceAll(SGR, ''), ...rest),
  } as unknown as NodeJS.WriteStream
}
