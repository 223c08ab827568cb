/** The queue: queued and running runs, per account. */
import { LoadedView } from '../ui/loaded-view.js';
import { useAsync } from '../ui/use-async.js';
import type { AdminRun } from '@runload/client';
import { useOperatorSession } from './operator-context.js';

interface AccountLoad {
  readonly accountId: string;
  readonly queued: number;
  readonly running: number;
}

function perAccount(runs: readonly AdminRun[]): AccountLoad[] {
  const loads = new Map<string, { queued: number; running: number }>();
  for (const run of runs) {
    const load = loads.get(run.account_id) ?? { queued: 0, running: 0 };
    if (run.status === 'queued') load.queued += 1;
    else load.running += 1;
    loads.set(run.account_id, load);
  }
  return [...loads].map(([accountId, load]) => ({ accountId, ...load })).sort((a, b) => b.queued + b.running - (a.queued + a.running));
}

export function QueuePage() {
  const { admin } = useOperatorSession();
  const { loaded, reload } = useAsync(async (signal) => {
    const [queued, running] = await Promise.all([admin.listRuns({ status: 'queued', limit: 100, signal }), admin.listRuns({ status: 'running', limit: 100, signal })]);
    return perAccount([...queued.runs, ...running.runs]);
  }, []);
  return (
    <section>
      <h1>Queue</h1>
      <button type="button" class="secondary" onClick={reload}>
        Refresh
      </button>
      <LoadedView loaded={loaded}>
        {(loads) =>
          loads.length === 0 ? (
            <p>Nothing queued or running.</p>
          ) : (
            <div class="table-scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Account</th>
                    <th scope="col">Queued</th>
                    <th scope="col">Running</th>
                  </tr>
                </thead>
                <tbody>
                  {loads.map((load) => (
                    <tr key={load.accountId}>
                      <th scope="row">{load.accountId}</th>
                      <td>{load.queued}</td>
                      <td>{load.running}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </LoadedView>
    </section>
  );
}
