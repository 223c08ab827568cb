/** The operator's console (an admin token): Pool, Queue, Accounts and Usage; each action needs its scope. */
import { useMemo } from 'preact/hooks';
import { useRoute } from '../router.js';
import { Shell } from '../ui/shell.js';
import { AccountsPage } from './accounts-page.js';
import { RunloadAdminClient, RunloadError } from '@runload/client';
import { OperatorSessionContext } from './operator-context.js';
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
    await adminClient(secret).listTiers();
  } catch (error) {
    if (RunloadError.is(error) && error.status === 403) return;
    throw error;
  }
}

/** Same origin: the console is served by the runload it manages. */
function adminClient(token: string): RunloadAdminClient {
  return new RunloadAdminClient({ baseUrl: location.origin, adminToken: token });
}

export function OperatorConsole(props: { secret: string; onSignOut: () => void }) {
  const session = useMemo(() => ({ admin: adminClient(props.secret) }), [props.secret]);
  const path = useRoute();
  return (
    <OperatorSessionContext.Provider value={session}>
      <Shell title="runload operator" sections={SECTIONS} path={path} onSignOut={props.onSignOut}>
        <OperatorView path={path} />
      </Shell>
    </OperatorSessionContext.Provider>
  );
}

function OperatorView(props: { path: string }) {
  if (props.path === '/queue') return <QueuePage />;
  if (props.path === '/accounts') return <AccountsPage />;
  if (props.path === '/usage') return <UsagePage />;
  return <PoolPage />;
}
