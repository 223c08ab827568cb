/** The time source. Inject it everywhere instead of calling `Date.now()`. */
export interface Clock {
  /** Current time in epoch milliseconds. */
  nowMs(): number;
  /** Current time as a Date. */
  now(): Date;
}

export const CLOCK = Symbol.for('runload.core.Clock');
