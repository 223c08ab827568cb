/**
 * A run's page: its status, queue position and progress, followed live from the event stream
 * (polling when there is none); the latest preview while it runs; then its outputs, or its error.
 * "Cancel" while it is queued or running; its answer is shown too, unless the stream told of a
 * later status first.
 * @module
 */
import { useEffect, useReducer, useState } from 'preact/hooks';
import { isTerminal, type Run } from '@runload/client';
import { describeError } from '../api.js';
import { useAccountSession } from '../ui/session-context.js';
import { ProgressBar } from '../ui/progress-bar.js';
import { formatSeconds, formatTime } from '../ui/format.js';
import { LOADING, nextFollowed } from './followed-run.js';
import { OutputMedia } from './output-media.js';
import { usePreview } from './use-preview.js';

export function RunPage(props: { runId: string }) {
  const { client } = useAccountSession();
  const [followed, follow] = useReducer(nextFollowed, LOADING);
  const [action, setAction] = useState<string | null>(null);
  // Counts the stream's preview events: each asks for the latest preview image again.
  const [previews, setPreviews] = useState(0);
  // The stream's records and Cancel's answer alike: an older one never replaces a newer (followed-run.ts).
  const show = (run: Run) => follow({ type: 'record', run });

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    (async () => {
      const run = await client.getRun(props.runId, signal);
      show(run);
      if (!isTerminal(run)) show(await client.waitForRun(props.runId, { onUpdate: show, onPreview: () => setPreviews((n) => n + 1), signal }));
    })().catch((error: unknown) => signal.aborted || follow({ type: 'failed', message: describeError(error) }));
    return () => controller.abort();
  }, [props.runId]);

  const running = followed.state === 'known' && followed.run.status === 'running';
  const preview = usePreview(client, props.runId, previews, running);

  if (followed.state === 'loading') return <p aria-busy="true">Loading…</p>;
  if (followed.state === 'failed') return <p role="alert">{followed.message}</p>;
  const { run } = followed;
  const cancellable = run.status === 'queued' || run.status === 'running';
  const cancel = async () => {
    setAction(null);
    try {
      show(await client.cancelRun(run.run_id));
    } catch (error) {
      setAction(describeError(error));
    }
  };

  return (
    <section>
      <h1>Run {run.run_id}</h1>
      <dl class="facts">
        <dt>Status</dt>
        <dd data-testid="run-status">{run.status}</dd>
        {run.queue_position !== null ? (
          <>
            <dt>Queue position</dt>
            <dd>{run.queue_position}</dd>
          </>
        ) : null}
        <dt>Created</dt>
        <dd>{formatTime(run.created_at)}</dd>
        <dt>GPU time</dt>
        <dd>{formatSeconds(run.metrics.gpu_seconds)}</dd>
      </dl>
      {run.status === 'running' || run.status === 'canceling' ? (
        <ProgressBar label="Progress" value={run.progress?.value ?? 0} max={run.progress?.max ?? 1} />
      ) : null}
      {cancellable ? (
        <button type="button" class="secondary" onClick={() => void cancel()}>
          Cancel
        </button>
      ) : null}
      {action ? <p role="alert">{action}</p> : null}
      {running && preview ? (
        <figure>
          <img class="preview" src={preview} alt="Latest preview" />
          <figcaption>Latest preview</figcaption>
        </figure>
      ) : null}
      {run.error ? (
        <div role="alert">
          <strong>{run.error.code}</strong>: {run.error.message}
        </div>
      ) : null}
      {run.outputs.length > 0 ? (
        <>
          <h2>Outputs</h2>
          <div class="outputs">
            {run.outputs.map((output) => (
              <OutputMedia key={output.asset_id} output={output} />
            ))}
          </div>
        </>
      ) : null}
    </section>
  );
}
