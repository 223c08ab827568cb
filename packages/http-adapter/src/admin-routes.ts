/**
 * Every route of the admin API, as one table: each entry names its method, path (under
 * `/api/v1/admin`), scope and handler. Add a group of routes as one spread line.
 * @module
 */
import type { RunloadApi } from '@runload/core';
import type { AdminRoute } from './admin-route.js';
import { tierAdminRoutes } from './admin-tier-routes.js';
import { backendAdminRoutes } from './admin-backend-routes.js';

export function adminRouteTable(api: RunloadApi): AdminRoute[] {
  return [
    ...tierAdminRoutes(api),
    ...backendAdminRoutes(api),
  ];
}
