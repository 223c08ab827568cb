import type { StreamSlots } from '../ports/stream-slots.js';

export class InMemoryStreamSlots implements StreamSlots {
  private readonly held = new Map<string, { accountId: string; until: number }>();

  async acquire(accountId: string, holder: string, max: number, now: Date, until: Date): Promise<boolean> {
    let n = 0;
    for (const h of this.held.values()) if (h.accountId === accountId && h.until > now.getTime()) n += 1;
    if (n >= max) return false;
    this.held.set(holder, { accountId, until: until.getTime() });
    return true;
  }

  async renew(holders: readonly string[], until: Date): Promise<void> {
    for (const id of holders) {
      const h = this.held.get(id);
      if (h) h.until = until.getTime();
    }
  }

  async release(holder: string): Promise<void> {
    this.held.delete(holder);
  }
}
