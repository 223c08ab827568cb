import type { Timers } from '../ports/timers.js';

/** The event loop's timers (unref'd: they never keep the process alive). */
export class SystemTimers implements Timers {
  every(intervalMs: number, task: () => Promise<unknown> | void): () => void {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      // The task reports its own failures; a rejection here must not become an unhandled one.
      void Promise.resolve()
        .then(task)
        .catch(() => undefined)
        .finally(() => {
          running = false;
        });
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  after(delayMs: number, task: () => Promise<unknown> | void): () => void {
    const timer = setTimeout(() => {
      void Promise.resolve()
        .then(task)
        .catch(() => undefined);
    }, delayMs);
    timer.unref();
    return () => clearTimeout(timer);
  }
}
