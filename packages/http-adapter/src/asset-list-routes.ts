/** `GET /api/v1/assets` (the caller's assets, newest first) and `DELETE /api/v1/assets/{id}`. */
import { CoreError, type RunloadApi } from '@runload/core';
import type { RouteContext, RouteResult } from './api-route.js';
import { presentAsset } from './presenters.js';
import { idParam, param } from './routes.js';

export function listAssetsRoute(api: RunloadApi) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const query = ctx.event.url.searchParams;
    const rawLimit = query.get('limit');
    const page = await api.listAssets.execute(ctx.principal, {
      ...(rawLimit === null ? {} : { limit: Number(rawLimit) }),
      cursor: query.get('cursor'),
      kind: query.get('kind'),
      origin: query.get('origin'),
    });
    return { status: 200, body: { assets: page.assets.map(presentAsset), next_cursor: page.nextCursor } };
  };
}

export function deleteAssetRoute(api: RunloadApi) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const id = idParam(ctx.event, () => new CoreError('ASSET_NOT_FOUND', `Asset ${param(ctx.event, 'id')} not found`));
    await api.deleteAsset.execute(ctx.principal, id);
    return { status: 204 };
  };
}
