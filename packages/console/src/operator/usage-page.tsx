/** A month's GPU seconds per account: a bar chart, the table, and the CSV a billing import reads. */
import { useState } from 'preact/hooks';
import { describeError } from '../api.js';
import { LoadedView } from '../ui/loaded-view.js';
import { useAsync } from '../ui/use-async.js';
import { useOperatorSession } from './operator-context.js';
import { UsageChart } from './usage-chart.js';

/** `YYYY-MM` of the current month, in UTC as the quota months are. */
export function thisMonth(now = new Date()): string {
  return now.toISOString().slice(0, 7);
}

export function UsagePage() {
  const { admin } = useOperatorSession();
  const [month, setMonth] = useState(thisMonth);
  const { loaded } = useAsync((signal) => admin.usage(month, { limit: 100, signal }), [month]);
  const [failure, setFailure] = useState<string | null>(null);
  const download = async () => {
    setFailure(null);
    try {
      const { csv } = await admin.usageCsv(month, { limit: 100 });
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `runload-usage-${month}.csv`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (error) {
      setFailure(describeError(error));
    }
  };
  return (
    <section>
      <h1>Usage</h1>
      <label for="usage-month">Month</label>
      <input id="usage-month" type="month" value={month} onChange={(e) => e.currentTarget.value && setMonth(e.currentTarget.value)} />
      <button type="button" class="secondary" onClick={() => void download()}>
        Download CSV
      </button>
      {failure ? <p role="alert">{failure}</p> : null}
      <LoadedView loaded={loaded}>
        {(usage) =>
          usage.accounts.length === 0 ? (
            <p>No usage in {usage.month}.</p>
          ) : (
            <>
              <UsageChart usage={usage} />
              <div class="table-scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Account</th>
                      <th scope="col">Tier</th>
                      <th scope="col">GPU seconds</th>
                      <th scope="col">Succeeded</th>
                      <th scope="col">Failed</th>
                    </tr>
                  </thead>
                  <tbody>
                    {usage.accounts.map((row) => (
                      <tr key={row.account_id}>
                        <th scope="row">{row.name}</th>
                        <td>{row.tier}</td>
                        <td>{Math.round(row.gpu_seconds * 10) / 10}</td>
                        <td>{row.runs.succeeded}</td>
                        <td>{row.runs.failed}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )
        }
      </LoadedView>
    </section>
  );
}
