import type { NamedLocks } from '../ports/named-locks.js';

/** Locks of one process: enough where one process serves the storage (SQLite, embedding). */
export class InProcessNamedLocks implements NamedLocks {
  /** Per name, the tail of its chain of holders. */
  private readonly tails = new Map<string, Promise<void>>();

  async withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(name) ?? Promise.resolve();
    let release: () => void = () => undefined;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = before.then(() => mine);
    this.tails.set(name, tail);
    await before;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(name) === tail) this.tails.delete(name);
    }
  }
}
