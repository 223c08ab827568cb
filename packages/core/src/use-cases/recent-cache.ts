/**
 * Values read recently, trusted for a short time without asking again; concurrent reads of one
 * key share one lookup. Under load, a key expiring would otherwise send every request in flight
 * to the database at once.
 * @module
 */
import type { Clock } from '../ports/clock.js';

export class RecentCache<V> {
  private readonly entries = new Map<string, { readonly value: Promise<V>; readonly until: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /**
   * The value of `key`: a recent one, one being looked up, or a new lookup.
   * @param keep whether a looked-up value may be kept (a failed lookup is never kept)
   */
  get(key: string, lookup: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<V> {
    const now = this.clock.nowMs();
    const recent = this.entries.get(key);
    if (recent && recent.until > now) return recent.value;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const entry = { value: lookup(), until: now + this.ttlMs };
    this.entries.set(key, entry);
    const forget = () => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    };
    entry.value.then((value) => (keep(value) ? undefined : forget()), forget);
    return entry.value;
  }

  /** Forgets `key` (this process changed it). */
  delete(key: string): void {
    this.entries.delete(key);
  }
}
