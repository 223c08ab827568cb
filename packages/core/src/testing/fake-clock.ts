import type { Clock } from '../ports/clock.js';

/** A clock that only moves when told to. */
export class FakeClock implements Clock {
  private current: number;

  constructor(start: Date | number = Date.UTC(2026, 0, 1, 0, 0, 0)) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }

  nowMs(): number {
    return this.current;
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(at: Date | number): void {
    this.current = typeof at === 'number' ? at : at.getTime();
  }
}
