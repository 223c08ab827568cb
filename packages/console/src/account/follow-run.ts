/**
 * Follows a run to its end with the typed client: every new state, and each `preview` event of
 * the stream (the client passes them to `onPreview` where it knows them; a server or a client
 * without previews simply sends none).
 * @module
 */
import type { Run, RunloadClient, WaitOptions } from '@runload/client';

export interface FollowHandlers {
  readonly onUpdate: (run: Run) => void;
  readonly onPreview: () => void;
  readonly signal: AbortSignal;
}

export function followRun(client: RunloadClient, runId: string, handlers: FollowHandlers): Promise<Run> {
  const options: WaitOptions & { onPreview: () => void } = handlers;
  return client.waitForRun(runId, options);
}
