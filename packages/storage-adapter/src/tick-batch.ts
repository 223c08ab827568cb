/**
 * Gathers the calls made during one turn of the event loop and serves them with one statement.
 *
 * Under load, many requests are read off their sockets in the same turn; each wanting its own
 * round trip to the database is what bounds a Node service on SQLite or PostgreSQL. A batch is
 * sent at the end of the turn (setImmediate), so its statement is issued after every call in it
 * was made: batching adds no staleness, it only saves round trips. With one call in a turn, the
 * cost is one setImmediate.
 * @module
 */

export interface TickBatchOptions {
  /** The most items one statement carries (SQLite and PostgreSQL cap bound parameters). */
  readonly maxItems?: number;
  /**
   * When a batch of several fails, run each item alone, so one bad item (a duplicate key, say)
   * fails only its own caller. Meant for writes; reads fail together (a lost database fails all).
   */
  readonly isolateFailures?: boolean;
}

interface Waiting<T, R> {
  readonly item: T;
  readonly resolve: (value: R) => void;
  readonly reject: (error: unknown) => void;
}

export class TickBatch<T, R> {
  private waiting: Waiting<T, R>[] = [];
  private readonly maxItems: number;
  private readonly isolateFailures: boolean;

  /** @param execute serves a batch; its results are in the order of `items`. */
  constructor(
    private readonly execute: (items: readonly T[]) => Promise<readonly R[]>,
    options: TickBatchOptions = {},
  ) {
    this.maxItems = options.maxItems ?? 200;
    this.isolateFailures = options.isolateFailures ?? false;
  }

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => this.flush());
      this.waiting.push({ item, resolve, reject });
    });
  }

  private flush(): void {
    const all = this.waiting;
    this.waiting = [];
    for (let i = 0; i < all.length; i += this.maxItems) void this.serve(all.slice(i, i + this.maxItems));
  }

  private async serve(batch: Waiting<T, R>[]): Promise<void> {
    try {
      const results = await this.execute(batch.map((w) => w.item));
      batch.forEach((w, i) => w.resolve(results[i] as R));
    } catch (error) {
      if (!this.isolateFailures || batch.length === 1) {
        for (const w of batch) w.reject(error);
        return;
      }
      await Promise.all(batch.map((w) => this.serve([w])));
    }
  }
}
