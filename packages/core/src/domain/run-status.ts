/** The statuses a run passes through (their order and moves are `run.ts`'s state machine). */
export const RUN_STATUSES = ['queued', 'running', 'canceling', 'succeeded', 'failed', 'canceled', 'expired'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
