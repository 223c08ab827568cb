/** The operator's admin API client, for every page of the operator's console. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { AdminApi } from './admin-api.js';

export const AdminApiContext = createContext<AdminApi | null>(null);

export function useAdminApi(): AdminApi {
  const api = useContext(AdminApiContext);
  if (!api) throw new Error('useAdminApi outside the operator console');
  return api;
}
