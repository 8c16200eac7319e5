/**
 * Host patterns as ssh_config(5) PATTERNS and known_hosts use them: `*` and `?` wildcards, case
 * ignored; a name matches a list when one pattern matches and no negated (`!`) pattern does.
 */
export function hostPatternMatcher(patterns: string[]): (name: string) => boolean {
  const compiled = patterns.map((pattern) => ({negated: pattern.startsWith('!'), glob: globToRegExp(pattern.replace(/^!/, ''))}))
  return (name) => {
    if (compiled.some(({negated, glob}) => negated && glob.test(name))) return false
    return compiled.some(({negated, glob}) => !negated && glob.test(name))
  }
}

function globToRegExp(glob: string): RegExp {
  const body = glob.replaceAll(/[.+^${}()|[\]\\]/g, String.raw`\$&`).replaceAll('*', '.*').replaceAll('?', '.')
  return new RegExp(`^${body}$`, 'i')
}
