/**
 * `GET /runs/{id}/preview`: the latest preview image of one of the caller's runs, as the backend
 * sent it, never cached (it changes while the run executes). `X-Preview-Seq` names it; a `seq`
 * in the query only defeats caches: the latest is always answered.
 * @module
 */
import { CoreError, type RunloadApi } from '@runload/core';
import type { RouteContext, RouteResult } from './api-route.js';
import { idParam, param } from './routes.js';

export function runPreviewRoute(api: RunloadApi) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const id = idParam(ctx.event, () => new CoreError('RUN_NOT_FOUND', `Run ${param(ctx.event, 'id')} not found`));
    const preview = await api.runPreviews.latest(ctx.principal, id);
    const bytes = preview.bytes;
    return {
      status: 200,
      stream: new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes);
          controller.close();
        },
      }),
      headers: {
        'Content-Type': preview.contentType,
        'Content-Length': String(bytes.byteLength),
        'Cache-Control': 'no-store',
        'X-Preview-Seq': String(preview.seq),
      },
    };
  };
}
