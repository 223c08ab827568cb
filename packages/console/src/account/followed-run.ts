/**
 * What a run's page knows of its run, and the one function that moves it. Two sources tell of the
 * run, the event stream (or its poll) and the answer to Cancel, on separate connections: their
 * records may arrive in either order. A run's status never moves back, so a record with an earlier
 * status than the one shown is older news and is dropped. Otherwise a late "canceling" answer
 * would hide the "canceled" the stream had already shown, for good: the stream ends with it.
 * @module
 */
import type { Run, RunStatus } from '@runload/client';

export type Followed = { readonly state: 'loading' } | { readonly state: 'failed'; readonly message: string } | { readonly state: 'known'; readonly run: Run };

export type FollowedEvent = { readonly type: 'record'; readonly run: Run } | { readonly type: 'failed'; readonly message: string };

export const LOADING: Followed = { state: 'loading' };

/** How far along its life a run is at each status (as the server orders them; a terminal one ends it). */
const STAGE: Record<RunStatus, number> = { queued: 0, running: 1, canceling: 2, succeeded: 3, failed: 3, canceled: 3, expired: 3 };

export function nextFollowed(current: Followed, event: FollowedEvent): Followed {
  if (event.type === 'failed') return { state: 'failed', message: event.message };
  const { run } = event;
  if (current.state === 'known' && current.run.run_id === run.run_id && STAGE[run.status] < STAGE[current.run.status]) return current;
  return { state: 'known', run };
}
