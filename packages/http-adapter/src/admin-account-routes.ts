/** Accounts and their API keys (scope `accounts`): what a billing site does when someone subscribes, changes plan or stops paying. */
import { CreateAccountBody, CreateKeyBody, UpdateAccountBody, AdminAccountQuery } from '@runload/api-schema';
import type { Static } from '@sinclair/typebox';
import { CoreError, type RunloadApi } from '@runload/core';
import { adminId, readAdminBody } from './admin-request.js';
import type { AdminRoute } from './admin-route.js';
import { presentAccountDetail, presentAdminAccount, presentAdminKey, presentIssuedKey } from './admin-presenters.js';
import { pageLimit, readQuery } from './validate-request.js';

const accountNotFound = (id: string) => new CoreError('ACCOUNT_NOT_FOUND', `Account ${id} not found`);

export function accountAdminRoutes(api: RunloadApi): AdminRoute[] {
  return [
    {
      method: 'POST',
      path: '/accounts',
      scope: 'accounts',
      handler: async (ctx) => {
        const body = await readAdminBody<Static<typeof CreateAccountBody>>(ctx, CreateAccountBody);
        return { status: 201, body: presentAdminAccount(await api.accounts.create(body.name, body.tier, ctx.author)) };
      },
    },
    {
      method: 'GET',
      path: '/accounts',
      scope: 'accounts',
      handler: async (ctx) => {
        const query = readQuery<Static<typeof AdminAccountQuery>>(AdminAccountQuery, ctx.event.url.searchParams);
        const limit = pageLimit(query.limit);
        const page = await api.accounts.listPage({
          cursor: query.cursor ?? null,
          ...(limit !== undefined ? { limit } : {}),
          ...(query.tier !== undefined ? { tier: query.tier } : {}),
          ...(query.status !== undefined ? { status: query.status } : {}),
        });
        return { status: 200, body: { accounts: page.accounts.map(presentAdminAccount), next_cursor: page.nextCursor } };
      },
    },
    {
      method: 'GET',
      path: '/accounts/:id',
      scope: 'accounts',
      handler: async (ctx) => ({ status: 200, body: presentAccountDetail(await api.accounts.detail(adminId(ctx, accountNotFound))) }),
    },
    {
      method: 'PATCH',
      path: '/accounts/:id',
      scope: 'accounts',
      handler: async (ctx) => {
        const id = adminId(ctx, accountNotFound);
        const body = await readAdminBody<Static<typeof UpdateAccountBody>>(ctx, UpdateAccountBody);
        return { status: 200, body: presentAdminAccount(await api.accounts.update(id, body, ctx.author)) };
      },
    },
    {
      method: 'POST',
      path: '/accounts/:id/keys',
      scope: 'accounts',
      handler: async (ctx) => {
        const id = adminId(ctx, accountNotFound);
        // An empty body names no key.
        const hasBody = ctx.event.req.headers.get('content-length') !== '0' && ctx.event.req.body !== null;
        const body = hasBody ? await readAdminBody<Static<typeof CreateKeyBody>>(ctx, CreateKeyBody) : {};
        return { status: 201, body: presentIssuedKey(await api.apiKeys.create(id, ctx.author, body.name ?? null)) };
      },
    },
    {
      method: 'GET',
      path: '/accounts/:id/keys',
      scope: 'accounts',
      handler: async (ctx) => ({ status: 200, body: { keys: (await api.apiKeys.list(adminId(ctx, accountNotFound))).map(presentAdminKey) } }),
    },
    {
      method: 'DELETE',
      path: '/keys/:id',
      scope: 'accounts',
      handler: async (ctx) => {
        await api.apiKeys.revoke(adminId(ctx, (id) => new CoreError('KEY_NOT_FOUND', `API key ${id} not found`)), ctx.author);
        return { status: 204 };
      },
    },
  ];
}
