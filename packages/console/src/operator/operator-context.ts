/** The operator's typed admin client, for every page of the operator's console. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { RunloadAdminClient } from '@runload/client';

export interface OperatorSession {
  readonly admin: RunloadAdminClient;
}

export const OperatorSessionContext = createContext<OperatorSession | null>(null);

export function useOperatorSession(): OperatorSession {
  const session = useContext(OperatorSessionContext);
  if (!session) throw new Error('useOperatorSession outside the operator console');
  return session;
}
