/**
 * Work notifications across instances over Redis pub/sub. A local notify reaches local
 * subscribers at once, whether or not Redis is up.
 * @module
 */
import type { Redis } from 'ioredis';
import type { WorkSignal } from '@runload/core';

export class RedisWorkSignal implements WorkSignal {
  private readonly listeners = new Set<(reason: string) => void>();
  private readonly origin = `${process.pid}-${Math.random().toString(36).slice(2)}`;

  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly channel = 'runload:work',
  ) {
    void this.subscriber.subscribe(channel).catch(() => undefined);
    this.subscriber.on('message', (ch: string, message: string) => {
      if (ch !== this.channel) return;
      const [origin, reason] = message.split('|', 2);
      if (origin !== this.origin) this.deliver(reason ?? 'remote');
    });
  }

  notify(reason: string): void {
    this.deliver(reason);
    // Other instances learn of it when Redis is up; a lost message only delays them until their next sweep.
    void this.publisher.publish(this.channel, `${this.origin}|${reason}`).catch(() => undefined);
  }

  subscribe(listener: (reason: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private deliver(reason: string): void {
    for (const l of [...this.listeners]) {
      try {
        l(reason);
      } catch {
        // One listener's failure must not keep the others from hearing of work.
      }
    }
  }
}
