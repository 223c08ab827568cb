/** Apps (scope `apps`): publish, list and delete, with the checks and typing of `runload apps publish`. */
import { AdminAppQuery, PublishAppBody } from '@runload/api-schema';
import type { Static } from '@sinclair/typebox';
import { CoreError, type RunloadApi } from '@runload/core';
import { adminId, readAdminBody } from './admin-request.js';
import type { AdminRoute } from './admin-route.js';
import { presentAdminAppSummary, presentAdminAppVersion } from './admin-presenters.js';
import { pageLimit, readQuery } from './validate-request.js';

export function appAdminRoutes(api: RunloadApi): AdminRoute[] {
  return [
    {
      method: 'POST',
      path: '/apps',
      scope: 'apps',
      handler: async (ctx) => {
        const body = await readAdminBody<Static<typeof PublishAppBody>>(ctx, PublishAppBody);
        const version = await api.apps.publish(
          { name: body.name, workflow: body.workflow, ...(body.app_id !== undefined ? { appId: body.app_id } : {}), ...(body.expose !== undefined ? { expose: body.expose } : {}) },
          ctx.author,
        );
        return { status: 201, body: presentAdminAppVersion(version) };
      },
    },
    {
      method: 'GET',
      path: '/apps',
      scope: 'apps',
      handler: async (ctx) => {
        const query = readQuery<Static<typeof AdminAppQuery>>(AdminAppQuery, ctx.event.url.searchParams);
        const limit = pageLimit(query.limit);
        const page = await api.apps.listPage({ cursor: query.cursor ?? null, includeDeleted: query.include_deleted === 'true', ...(limit !== undefined ? { limit } : {}) });
        return { status: 200, body: { apps: page.versions.map(presentAdminAppSummary), next_cursor: page.nextCursor } };
      },
    },
    {
      method: 'DELETE',
      path: '/apps/:id',
      scope: 'apps',
      handler: async (ctx) => {
        await api.apps.delete(adminId(ctx, (id) => new CoreError('APP_VERSION_NOT_FOUND', `App version ${id} not found`)), ctx.author);
        return { status: 204 };
      },
    },
  ];
}
