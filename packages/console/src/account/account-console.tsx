/** The account's console: Apps, Runs and Account, and a run's page. */
import { useEffect, useMemo } from 'preact/hooks';
import { accountClient } from '../api.js';
import { match, useRoute } from '../router.js';
import { AssetUrls } from '../ui/asset-urls.js';
import { AccountSessionContext } from '../ui/session-context.js';
import { Shell } from '../ui/shell.js';
import { AccountPage } from './account-page.js';
import { AppPage } from './app-page.js';
import { AppsPage } from './apps-page.js';
import { RunPage } from './run-page.js';
import { RunsPage } from './runs-page.js';

const SECTIONS = [
  { path: '/apps', name: 'Apps' },
  { path: '/runs', name: 'Runs' },
  { path: '/account', name: 'Account' },
] as const;

export function AccountConsole(props: { secret: string; onSignOut: () => void }) {
  const session = useMemo(() => {
    const client = accountClient(props.secret);
    return { secret: props.secret, client, assets: new AssetUrls(client) };
  }, [props.secret]);
  useEffect(() => () => session.assets.clear(), [session]);
  const path = useRoute();
  return (
    <AccountSessionContext.Provider value={session}>
      <Shell title="runload" sections={SECTIONS} path={path} onSignOut={props.onSignOut}>
        <AccountView path={path} />
      </Shell>
    </AccountSessionContext.Provider>
  );
}

function AccountView(props: { path: string }) {
  const app = match(props.path, '/apps/');
  if (app?.[0]) return <AppPage appVersionId={app[0]} />;
  const run = match(props.path, '/runs/');
  if (run?.[0]) return <RunPage runId={run[0]} />;
  if (props.path === '/runs') return <RunsPage />;
  if (props.path === '/account') return <AccountPage />;
  return <AppsPage />;
}
