/**
 * Timers, behind a port so that tests move time themselves (with the fake clock) instead
 * of sleeping, and production uses the event loop's.
 * @module
 */
export interface Timers {
  /**
   * Calls `task` every `intervalMs` until the returned function is called. A tick is skipped while
   * the task's previous call has not finished, so a slow task never runs twice at once. Timers
   * never keep the process alive on their own.
   */
  every(intervalMs: number, task: () => Promise<unknown> | void): () => void;
  /**
   * Calls `task` once, `delayMs` from now, unless the returned function is called first. Like
   * {@link every}, it never keeps the process alive on its own.
   */
  after(delayMs: number, task: () => Promise<unknown> | void): () => void;
}

export const TIMERS = Symbol.for('runload.core.Timers');
