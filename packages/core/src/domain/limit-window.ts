/**
 * A fixed limit window as the domain sees it: its period, and the state a request left it in (what
 * a refusal reports to the client).
 * @module
 */

export type WindowPeriod = 'minute' | 'hour';

export interface WindowState {
  readonly name: string;
  readonly subject: string;
  readonly period: WindowPeriod;
  readonly limit: number;
  /** Remaining after this call (0 when this window refused it). */
  readonly remaining: number;
  /** Epoch ms at which the counted window started; identifies it for a refund. */
  readonly windowStartMs: number;
  /** Unix timestamp (seconds) at which the window ends. */
  readonly resetAt: number;
  /** True when this window alone would refuse the request. */
  readonly exhausted: boolean;
}
