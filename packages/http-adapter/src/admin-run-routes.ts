/** Runs of every account, for support (scope `accounts`): list, read, cancel. */
import { AdminRunQuery } from '@runload/api-schema';
import type { Static } from '@sinclair/typebox';
import { CoreError, type RunloadApi } from '@runload/core';
import { adminId } from './admin-request.js';
import type { AdminRoute } from './admin-route.js';
import { presentAdminRun } from './admin-presenters.js';
import { pageLimit, readQuery } from './validate-request.js';

const runNotFound = (id: string) => new CoreError('RUN_NOT_FOUND', `Run ${id} not found`);

export function runAdminRoutes(api: RunloadApi): AdminRoute[] {
  return [
    {
      method: 'GET',
      path: '/runs',
      scope: 'accounts',
      handler: async (ctx) => {
        const query = readQuery<Static<typeof AdminRunQuery>>(AdminRunQuery, ctx.event.url.searchParams);
        const limit = pageLimit(query.limit);
        const page = await api.supportRuns.list({
          cursor: query.cursor ?? null,
          ...(limit !== undefined ? { limit } : {}),
          ...(query.account_id !== undefined ? { accountId: query.account_id } : {}),
          ...(query.status !== undefined ? { status: query.status } : {}),
        });
        return { status: 200, body: { runs: page.runs.map((r) => presentAdminRun(r, null)), next_cursor: page.nextCursor } };
      },
    },
    {
      method: 'GET',
      path: '/runs/:id',
      scope: 'accounts',
      handler: async (ctx) => {
        const view = await api.supportRuns.get(adminId(ctx, runNotFound));
        return { status: 200, body: presentAdminRun(view.run, view.queuePosition) };
      },
    },
    {
      method: 'POST',
      path: '/runs/:id/cancel',
      scope: 'accounts',
      handler: async (ctx) => ({ status: 200, body: presentAdminRun(await api.supportRuns.cancel(adminId(ctx, runNotFound), ctx.author), null) }),
    },
  ];
}
