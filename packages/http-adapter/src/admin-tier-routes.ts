/** `GET /api/v1/admin/tiers`: the tiers accounts may be on, with their limits. */
import type { RunloadApi } from '@runload/core';
import type { AdminRoute } from './admin-route.js';

export function tierAdminRoutes(api: RunloadApi): AdminRoute[] {
  return [
    {
      method: 'GET',
      path: '/tiers',
      scope: 'accounts',
      handler: async () => ({
        status: 200,
        body: { tiers: Object.entries(api.limits.tiers).map(([name, limits]) => ({ name, ...limits })) },
      }),
    },
  ];
}
