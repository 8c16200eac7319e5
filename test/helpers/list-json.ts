/** What ItemArrayCounter('endpoints', 'endpointCount') should make of a list: each item's `endpoints` array as its length, the rest as it was. */
export function countedList(list: {items?: unknown}): unknown {
  if (!Array.isArray(list.items)) return list
  const items = (list.items as Array<Record<string, unknown>>).map(({endpoints, ...rest}) =>
    Array.isArray(endpoints) ? {...rest, endpointCount: endpoints.length} : {...rest, ...(endpoints === undefined ? {} : {endpoints})},
  )
  return {...list, items}
}
