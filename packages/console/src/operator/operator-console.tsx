/** The operator's console (an admin token): Pool, Queue, Accounts and Usage; each action needs its scope. */
import { useMemo } from 'preact/hooks';
import { useRoute } from '../router.js';
import { Shell } from '../ui/shell.js';
import { AccountsPage } from './accounts-page.js';
import { AdminApi, AdminError } from './admin-api.js';
import { AdminApiContext } from './operator-context.js';
import { PoolPage } from './pool-page.js';
import { QueuePage } from './queue-page.js';
import { UsagePage } from './usage-page.js';

const SECTIONS = [
  { path: '/pool', name: 'Pool' },
  { path: '/queue', name: 'Queue' },
  { path: '/accounts', name: 'Accounts' },
  { path: '/usage', name: 'Usage' },
] as const;

/** A token is good when the admin API does not refuse it as unknown (403 only says a scope is missing). */
export async function checkAdminToken(secret: string): Promise<void> {
  try {
    await new AdminApi(secret).tiers();
  } catch (error) {
    if (error instanceof AdminError && error.status === 403) return;
    throw error;
  }
}

export function OperatorConsole(props: { secret: string; onSignOut: () => void }) {
  const api = useMemo(() => new AdminApi(props.secret), [props.secret]);
  const path = useRoute();
  return (
    <AdminApiContext.Provider value={api}>
      <Shell title="runload operator" sections={SECTIONS} path={path} onSignOut={props.onSignOut}>
        <OperatorView path={path} />
      </Shell>
    </AdminApiContext.Provider>
  );
}

function OperatorView(props: { path: string }) {
  if (props.path === '/queue') return <QueuePage />;
  if (props.path === '/accounts') return <AccountsPage />;
  if (props.path === '/usage') return <UsagePage />;
  return <PoolPage />;
}
