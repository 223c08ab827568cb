/** The account's apps, newest first; each opens its form. */
import { useAccountSession } from '../ui/session-context.js';
import { LoadedView } from '../ui/loaded-view.js';
import { useAsync } from '../ui/use-async.js';
import { formatTime } from '../ui/format.js';

export function AppsPage() {
  const { client } = useAccountSession();
  const { loaded } = useAsync((signal) => client.listApps({ limit: 100, signal }), []);
  return (
    <section>
      <h1>Apps</h1>
      <LoadedView loaded={loaded}>
        {({ apps }) =>
          apps.length === 0 ? (
            <p>No app is published yet.</p>
          ) : (
            <ul class="cards">
              {apps.map((app) => (
                <li key={app.app_version_id}>
                  <a href={`#/apps/${app.app_version_id}`}>{app.name}</a>
                  <small> published {formatTime(app.created_at)}</small>
                </li>
              ))}
            </ul>
          )
        }
      </LoadedView>
    </section>
  );
}
