/**
 * Notifications across instances over Redis pub/sub: work reasons on `channel`, run changes on
 * `channel:runs`. Both go through one publishing and one subscribed connection, so another
 * instance hears this one's messages in the order they were sent. A local notify or announce
 * reaches local subscribers at once, whether or not Redis is up; who caused a notification is
 * told to them only (it names something of this instance).
 * @module
 */
import type { Redis } from 'ioredis';
import { decodeRunChange, encodeRunChange, type RunChange, type WorkSignal } from '@runload/core';

export class RedisWorkSignal implements WorkSignal {
  private readonly listeners = new Set<(reason: string, from?: string) => void>();
  private readonly changeListeners = new Set<(change: RunChange) => void>();
  private readonly origin = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  private readonly changesChannel: string;
  /** Resolves once Redis confirmed both subscriptions. */
  private readonly subscribed: Promise<void>;

  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly channel = 'runload:work',
  ) {
    this.changesChannel = `${channel}:runs`;
    // Subscribed once the connection is ready: a client without an offline queue refuses a command
    // sent before (the subscription would be lost for good), and again at each reconnection.
    this.subscribed = new Promise<void>((resolve) => {
      const subscribe = () => void this.subscriber.subscribe(this.channel, this.changesChannel).then(() => resolve(), () => undefined);
      this.subscriber.on('ready', subscribe);
      if (this.subscriber.status === 'ready') subscribe();
    });
    this.subscriber.on('message', (ch: string, message: string) => {
      if (ch !== this.channel && ch !== this.changesChannel) return;
      const cut = message.indexOf('|');
      const origin = cut < 0 ? '' : message.slice(0, cut);
      if (origin === this.origin) return;
      const body = cut < 0 ? message : message.slice(cut + 1);
      if (ch === this.channel) {
        this.deliver(this.listeners, body || 'remote');
        return;
      }
      if (this.changeListeners.size === 0) return; // no stream open here: not even decoded
      const change = decodeRunChange(body);
      if (change) this.deliver(this.changeListeners, change);
    });
  }

  /** Resolves once this instance hears the others (its subscriptions are confirmed). */
  ready(): Promise<void> {
    return this.subscribed;
  }

  notify(reason: string, from?: string): void {
    this.deliver(this.listeners, reason, from);
    // Other instances learn of it when Redis is up; a lost message only delays them until their next sweep.
    void this.publisher.publish(this.channel, `${this.origin}|${reason}`).catch(() => undefined);
  }

  subscribe(listener: (reason: string, from?: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  announce(change: RunChange): void {
    this.deliver(this.changeListeners, change);
    // A lost change is found by the streams' periodic re-read of their runs.
    void this.publisher.publish(this.changesChannel, `${this.origin}|${encodeRunChange(change)}`).catch(() => undefined);
  }

  subscribeChanges(listener: (change: RunChange) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private deliver<A extends unknown[]>(listeners: Set<(...args: A) => void>, ...args: A): void {
    for (const l of [...listeners]) {
      try {
        l(...args);
      } catch {
        // One listener's failure must not keep the others from hearing of it.
      }
    }
  }
}
