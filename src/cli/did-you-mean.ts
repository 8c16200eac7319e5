/** The word a typo was most likely meant to be: of a command (command-not-found.ts) or of a flag (flag-errors.ts). */

/** Longer than any command or flag: what is typed beyond this is not a typo of one, and is not compared. */
const MAX_COMPARED_LENGTH = 64

/** Levenshtein distance (insertions, deletions, substitutions), one row at a time. */
function editDistance(from: string, to: string): number {
  let previous = Array.from({length: to.length + 1}, (_, index) => index)
  for (let i = 1; i <= from.length; i++) {
    const current = [i]
    for (let j = 1; j <= to.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (from[i - 1] === to[j - 1] ? 0 : 1))
    }

    previous = current
  }

  return previous[to.length]
}

/** The candidate `typed` is most likely a typo of: at most half its letters off, else none. */
export function closestWord(typed: string, candidates: readonly string[]): string | undefined {
  if (typed.length > MAX_COMPARED_LENGTH) return undefined
  const ranked = candidates.map((candidate) => ({candidate, distance: editDistance(typed, candidate)})).toSorted((a, b) => a.distance - b.distance)
  const best = ranked[0]
  return best && best.distance <= Math.ceil(typed.length / 2) ? best.candidate : undefined
}
