/**
 * The execution backend pool (ComfyUI servers). This port carries what the public API needs
 * to accept runs; dispatch itself is driven by the dispatcher.
 * @module
 */

export interface BackendHealth {
  readonly id: string;
  readonly url: string;
  readonly healthy: boolean;
  readonly detail?: string;
}

export interface ExecutorHealth {
  /** True when at least one backend can take work. */
  readonly available: boolean;
  readonly backends: readonly BackendHealth[];
}

export interface Executor {
  /** The pool's current reachability; cheap (served from the last probe). */
  health(): Promise<ExecutorHealth>;
}

export const EXECUTOR = Symbol.for('runload.core.Executor');
