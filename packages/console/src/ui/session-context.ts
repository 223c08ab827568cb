/** The signed-in secret and the typed client built from it, for every page below the shell. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { RunloadClient } from '@runload/client';
import type { AssetUrls } from './asset-urls.js';

export interface AccountSession {
  readonly secret: string;
  readonly client: RunloadClient;
  readonly assets: AssetUrls;
}

export const AccountSessionContext = createContext<AccountSession | null>(null);

export function useAccountSession(): AccountSession {
  const session = useContext(AccountSessionContext);
  if (!session) throw new Error('useAccountSession outside the account console');
  return session;
}
