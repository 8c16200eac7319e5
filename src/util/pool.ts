/** Runs `work` on every item, at most `limit` at a time; the first failure rejects. */
export async function forEachConcurrently<Item>(items: readonly Item[], limit: number, work: (item: Item) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) await work(items[next++])
  }

  await Promise.all(Array.from({length: Math.min(limit, items.length)}, worker))
}
