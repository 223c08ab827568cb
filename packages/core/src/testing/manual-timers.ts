import type { Timers } from '../ports/timers.js';
import type { FakeClock } from './fake-clock.js';

interface Interval {
  /** Null for a timer that fires once ({@link ManualTimers.after}). */
  readonly intervalMs: number | null;
  readonly task: () => Promise<unknown> | void;
  nextAtMs: number;
  running: boolean;
}

/**
 * Timers that fire only when the test moves time with {@link ManualTimers.advance}, which also
 * moves the fake clock and waits for the tasks it fired: a test drives every tick itself.
 */
export class ManualTimers implements Timers {
  private readonly intervals = new Set<Interval>();

  constructor(private readonly clock: FakeClock) {}

  every(intervalMs: number, task: () => Promise<unknown> | void): () => void {
    const interval: Interval = { intervalMs, task, nextAtMs: this.clock.nowMs() + intervalMs, running: false };
    this.intervals.add(interval);
    return () => this.intervals.delete(interval);
  }

  after(delayMs: number, task: () => Promise<unknown> | void): () => void {
    const once: Interval = { intervalMs: null, task, nextAtMs: this.clock.nowMs() + delayMs, running: false };
    this.intervals.add(once);
    return () => this.intervals.delete(once);
  }

  /** How many timers are set (a component that stopped leaves none). */
  pending(): number {
    return this.intervals.size;
  }

  /**
   * Moves the clock by `ms`, firing every tick due on the way in time order, and resolves once the
   * tasks fired have finished. A task that fails rejects the call.
   */
  async advance(ms: number): Promise<void> {
    const until = this.clock.nowMs() + ms;
    for (;;) {
      const due = [...this.intervals].filter((i) => i.nextAtMs <= until).sort((a, b) => a.nextAtMs - b.nextAtMs)[0];
      if (!due) break;
      if (due.nextAtMs > this.clock.nowMs()) this.clock.set(due.nextAtMs);
      if (due.intervalMs === null) this.intervals.delete(due);
      else due.nextAtMs += due.intervalMs;
      if (due.running) continue;
      due.running = true;
      try {
        await due.task();
      } finally {
        due.running = false;
      }
    }
    this.clock.set(until);
  }
}
