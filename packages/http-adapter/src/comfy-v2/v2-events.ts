/**
 * `GET /api/v2/jobs/{id}/events`: the run's records told as the v2's events. On connect the
 * current `status`, the latest `progress` and the outputs so far; then a `status` for each change
 * of status or queue position, a `progress` for each new snapshot, an `output` as each output is
 * stored, a `preview` with the latest preview image (base64, at most every 500 ms), and `log` lines when the job starts and when it fails. A new status comes first, but the
 * terminal `status`, which ends the stream, comes after the outputs. Events carry no `id`: the job's record is the state to resume from.
 * @module
 */
import type { PreviewInfo, Principal, RetentionConfig, RunloadApi, RunView, Workflow } from '@runload/core';
import type { StreamFrames } from '../run-events-route.js';
import { presentV2Output, presentV2Progress } from './v2-presenters.js';

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * One writer per stream: it remembers what it told, and tells only what changed. The run's
 * workflow (its version's, which progress names nodes from) is read first.
 * @throws CoreError RUN_NOT_FOUND when the caller has no such run
 */
export async function v2EventFrames(api: RunloadApi, principal: Principal, runId: string, origin: string): Promise<StreamFrames> {
  const workflow = await api.runWorkflows.of((await api.getRun.execute(principal, runId)).run);
  return {
    record: v2RecordFrames(workflow, origin, api.limits.retention),
    // The v2 sends the image itself; the store keeps the latest, so this may be a newer one.
    preview: async (info: PreviewInfo) => {
      const preview = await api.runPreviews.latest(principal, info.runId);
      return frame('preview', { node_id: preview.nodeId ?? '', content_type: preview.contentType, data_base64: Buffer.from(preview.bytes).toString('base64') });
    },
  };
}

function v2RecordFrames(workflow: Workflow, origin: string, retention: RetentionConfig): StreamFrames['record'] {
  let status: string | null = null;
  let queuePosition: number | null = null;
  let progress = '';
  let outputsSent = 0;
  return (view: RunView, last: boolean) => {
    const { run } = view;
    let text = '';
    const position = run.status === 'queued' ? view.queuePosition : null;
    const statusChanged = run.status !== status || position !== queuePosition;
    const statusFrame = statusChanged ? frame('status', { status: run.status, queue_position: position }) : '';
    // A new state is told first; the terminal one last, after the outputs it brought.
    if (!last) text += statusFrame;
    if (run.status === 'running' && status !== 'running' && status !== null) text += frame('log', { level: 'info', message: 'The job started' });
    const snapshot = presentV2Progress(run, workflow);
    const progressText = JSON.stringify(snapshot);
    if (snapshot && progressText !== progress) text += frame('progress', snapshot);
    progress = progressText;
    for (const output of run.outputs.slice(outputsSent)) text += frame('output', presentV2Output(run, output, origin, retention));
    outputsSent = run.outputs.length;
    if (run.error && run.status === 'failed') text += frame('log', { level: 'error', message: `${run.error.code}: ${run.error.message}` });
    if (last) text += statusFrame;
    status = run.status;
    queuePosition = position;
    return text;
  };
}
