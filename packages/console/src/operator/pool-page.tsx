/** The pool: every backend with its state and load, and Drain or Activate for each. */
import { useState } from 'preact/hooks';
import { describeError } from '../api.js';
import { LoadedView } from '../ui/loaded-view.js';
import { useAsync } from '../ui/use-async.js';
import { formatSeconds } from '../ui/format.js';
import type { Backend } from '@runload/client';
import { useOperatorSession } from './operator-context.js';

export function PoolPage() {
  const { admin } = useOperatorSession();
  const { loaded, reload } = useAsync((signal) => admin.pool(signal), []);
  const [failure, setFailure] = useState<string | null>(null);
  const act = async (backend: Backend, state: 'active' | 'draining') => {
    setFailure(null);
    try {
      await admin.changeBackend(backend.backend_id, { state });
      reload();
    } catch (error) {
      setFailure(describeError(error));
    }
  };
  return (
    <section>
      <h1>Pool</h1>
      <button type="button" class="secondary" onClick={reload}>
        Refresh
      </button>
      {failure ? <p role="alert">{failure}</p> : null}
      <LoadedView loaded={loaded}>
        {(pool) => (
          <>
            <p>
              {pool.queued} queued, {pool.running} running; waiting for capacity {pool.waiting_for_capacity}, for a capable backend {pool.waiting_for_capability}.
            </p>
            {pool.backends.length === 0 ? <p>No backend.</p> : null}
            <div class="cards">
              {pool.backends.map((backend) => (
                <article key={backend.backend_id} aria-label={`Backend ${backend.url}`}>
                  <header>
                    <strong>{backend.url}</strong> <mark data-testid="backend-state">{backend.state}</mark>
                  </header>
                  <dl class="facts">
                    <dt>Reachable</dt>
                    <dd>{backend.reachable === null ? 'not probed yet' : backend.reachable ? 'yes' : 'no'}</dd>
                    <dt>Held / depth</dt>
                    <dd>
                      {backend.held} / {backend.depth ?? 'default'}
                    </dd>
                    <dt>Labels</dt>
                    <dd>{Object.entries(backend.labels).map(([k, v]) => `${k}=${v}`).join(', ') || '—'}</dd>
                    <dt>ComfyUI</dt>
                    <dd>{backend.comfyui_version ?? '—'}</dd>
                    <dt>Warm app versions</dt>
                    <dd>{backend.warm_app_versions.length}</dd>
                    <dt>Runs executed</dt>
                    <dd>{backend.runs_executed}</dd>
                    <dt>GPU time</dt>
                    <dd>{formatSeconds(backend.gpu_seconds)}</dd>
                  </dl>
                  {backend.state === 'active' ? (
                    <button type="button" class="secondary" aria-label={`Drain ${backend.url}`} onClick={() => void act(backend, 'draining')}>
                      Drain
                    </button>
                  ) : (
                    <button type="button" aria-label={`Activate ${backend.url}`} onClick={() => void act(backend, 'active')}>
                      Activate
                    </button>
                  )}
                </article>
              ))}
            </div>
          </>
        )}
      </LoadedView>
    </section>
  );
}
