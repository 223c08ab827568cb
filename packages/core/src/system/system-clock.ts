import type { Clock } from '../ports/clock.js';

/** The wall clock. */
export class SystemClock implements Clock {
  nowMs(): number {
    return Date.now();
  }

  now(): Date {
    return new Date();
  }
}
