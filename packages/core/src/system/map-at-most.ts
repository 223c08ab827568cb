/**
 * `work` on every item, at most `limit` at a time, the results in the items' order. Every item
 * started settles before the call does: after a failure no new item starts, and the first failure
 * is thrown once those in flight are done, so nothing goes on behind the caller's back.
 * @module
 */
export async function mapAtMost<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  const state: { next: number; failure: { error: unknown } | null } = { next: 0, failure: null };
  const worker = async () => {
    while (state.failure === null && state.next < items.length) {
      const index = state.next;
      state.next += 1;
      try {
        results[index] = await work(items[index] as T, index);
      } catch (error) {
        state.failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (state.failure) throw state.failure.error;
  return results;
}
