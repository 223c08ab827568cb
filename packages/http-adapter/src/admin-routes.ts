/**
 * Every route of the admin API, as one table: each entry names its method, path (under
 * `/api/v1/admin`), scope and handler. Add a group of routes as one spread line.
 * @module
 */
import type { RunloadApi } from '@runload/core';
import type { AdminRoute } from './admin-route.js';
import { tierAdminRoutes } from './admin-tier-routes.js';
import { accountAdminRoutes } from './admin-account-routes.js';
import { appAdminRoutes } from './admin-app-routes.js';
import { runAdminRoutes } from './admin-run-routes.js';
import { usageAdminRoutes } from './admin-usage-routes.js';
import { backendAdminRoutes } from './admin-backend-routes.js';

export function adminRouteTable(api: RunloadApi): AdminRoute[] {
  return [
    ...tierAdminRoutes(api),
    ...accountAdminRoutes(api),
    ...appAdminRoutes(api),
    ...runAdminRoutes(api),
    ...usageAdminRoutes(api),
    ...backendAdminRoutes(api),
  ];
}
