/** Async iteration helpers for the checker. */

/** Pulls items from an async iterable with at most `limit` handlers running at once. */
export async function forEachConcurrently<T>(
  items: AsyncIterable<T>,
  limit: number,
  handle: (item: T) => Promise<void>,
): Promise<void> {
  const iterator = items[Symbol.asyncIterator]();
  const worker = async () => {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) await handle(next.value);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

/** One item as an async iterable. */
export async function* single<T>(item: T): AsyncGenerator<T> {
  yield item;
}
