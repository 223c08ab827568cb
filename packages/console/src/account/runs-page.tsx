/** The account's runs, newest first, ten to a page, with their status and a thumbnail of the first image output. */
import { useState } from 'preact/hooks';
import { useAccountSession } from '../ui/session-context.js';
import { LoadedView } from '../ui/loaded-view.js';
import { useAsync } from '../ui/use-async.js';
import { formatTime, shortId } from '../ui/format.js';
import { RunThumbnail } from './output-media.js';

const PAGE_SIZE = 10;

export function RunsPage() {
  const { client } = useAccountSession();
  // The cursors of the pages before this one, so "Previous page" goes back without another query string.
  const [cursors, setCursors] = useState<readonly (string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const { loaded } = useAsync((signal) => client.listRuns({ limit: PAGE_SIZE, cursor, signal }), [cursor]);
  return (
    <section>
      <h1>Runs</h1>
      <LoadedView loaded={loaded}>
        {({ runs, next_cursor }) => (
          <>
            {runs.length === 0 ? <p>No run yet.</p> : null}
            <ul class="runs">
              {runs.map((run) => (
                <li key={run.run_id}>
                  <RunThumbnail run={run} />
                  <div>
                    <a href={`#/runs/${run.run_id}`}>Run {shortId(run.run_id)}</a>
                    <div>
                      <mark class={`status status-${run.status}`}>{run.status}</mark> <small>{formatTime(run.created_at)}</small>
                    </div>
                  </div>
                </li>
              ))}
            </ul>
            <nav aria-label="Pages of runs" class="pager">
              <button type="button" class="secondary" disabled={cursors.length === 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
                Previous page
              </button>
              <span>Page {cursors.length}</span>
              <button type="button" class="secondary" disabled={!next_cursor} onClick={() => next_cursor && setCursors((c) => [...c, next_cursor])}>
                Next page
              </button>
            </nav>
          </>
        )}
      </LoadedView>
    </section>
  );
}
