/** The operator's typed admin client and the pool's calls, for every page of the operator's console. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { RunloadAdminClient } from '@runload/client';
import type { PoolApi } from './pool-api.js';

export interface OperatorSession {
  readonly admin: RunloadAdminClient;
  readonly pool: PoolApi;
}

export const OperatorSessionContext = createContext<OperatorSession | null>(null);

export function useOperatorSession(): OperatorSession {
  const session = useContext(OperatorSessionContext);
  if (!session) throw new Error('useOperatorSession outside the operator console');
  return session;
}
