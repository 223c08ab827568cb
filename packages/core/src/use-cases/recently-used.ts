/**
 * A map of at most `limit` entries that forgets the least recently used first: a Map whose order
 * is the order of last use (an entry read or written is moved to the end).
 * @module
 */
export class RecentlyUsed<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly limit: number) {}

  /** The value of `key`, now the most recently used; undefined when not remembered. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) this.remember(key, value);
    return value;
  }

  /** The value of `key` without counting as a use. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Remembers `value` as the most recently used, forgetting the least recently used past the limit. */
  set(key: K, value: V): void {
    this.remember(key, value);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as K);
  }

  private remember(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
  }
}
