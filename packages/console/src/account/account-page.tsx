/** The account: its tier, its limits, and the GPU quota used this month as a bar. */
import { useAccountSession } from '../ui/session-context.js';
import { LoadedView } from '../ui/loaded-view.js';
import { ProgressBar } from '../ui/progress-bar.js';
import { useAsync } from '../ui/use-async.js';
import { formatTime } from '../ui/format.js';

const LIMIT_NAMES: Record<string, string> = {
  general_per_minute: 'Requests per minute',
  runs_per_minute: 'Runs per minute',
  runs_per_hour: 'Runs per hour',
  gpu_seconds_per_month: 'GPU seconds per month',
};

export function AccountPage() {
  const { client } = useAccountSession();
  const { loaded } = useAsync((signal) => client.getAccount(signal), []);
  return (
    <section>
      <h1>Account</h1>
      <LoadedView loaded={loaded}>
        {(account) => (
          <>
            <dl class="facts">
              <dt>Name</dt>
              <dd>{account.name}</dd>
              <dt>Tier</dt>
              <dd>{account.tier}</dd>
            </dl>
            <h2>GPU quota</h2>
            <ProgressBar label="GPU seconds used" value={account.gpu_seconds_used} max={account.gpu_seconds_quota} />
            <p>
              {Math.round(account.gpu_seconds_used)} of {account.gpu_seconds_quota} GPU seconds used; resets {formatTime(account.quota_resets_at)}.
            </p>
            <h2>Limits</h2>
            <table>
              <tbody>
                {Object.entries(account.limits).map(([name, value]) => (
                  <tr key={name}>
                    <th scope="row">{LIMIT_NAMES[name] ?? name}</th>
                    <td>{String(value)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </LoadedView>
    </section>
  );
}
