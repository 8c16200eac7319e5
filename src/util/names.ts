/** The first `shown` names, then how many more: a sample that stays one short line however many there are. */
export function someNames(names: readonly string[], shown = 3): string {
  return names.length > shown ? `${names.slice(0, shown).join(', ')} and ${names.length - shown} more` : names.join(', ')
}
