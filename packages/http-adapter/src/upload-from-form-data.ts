/**
 * `POST /assets` on a runtime without a Node request (`app.fetch`, embedding): the web FormData
 * API. It buffers, so the body is read only up to the upload cap plus the multipart overhead;
 * a larger one is refused as soon as the bound is passed.
 * @module
 */
import type { RunloadApi } from '@runload/core';
import type { RouteContext, RouteResult } from './api-route.js';
import { uploadErrorResponse } from './error-response.js';
import { presentAsset } from './presenters.js';
import { readBoundedBody } from './read-bounded-body.js';
import { NO_FILE, uploadFailed, type UploadOptions } from './upload-options.js';

export async function uploadFromFormData(ctx: RouteContext, api: RunloadApi, options: UploadOptions): Promise<RouteResult> {
  const bytes = await readBoundedBody(ctx.event.req, options.maxUploadBytes + options.multipartSlackBytes);
  if (bytes === null) return uploadFailed(413, 'File too large');
  let form: FormData;
  try {
    const contentType = ctx.event.req.headers.get('content-type') ?? '';
    form = await new Request('http://upload.invalid/', { method: 'POST', headers: { 'content-type': contentType }, body: bytes }).formData();
  } catch (error) {
    return { ...uploadFailed(400), cause: error };
  }
  const files = [...form.values()].filter((v) => typeof v !== 'string');
  if (files.length > 1) return uploadFailed(400, 'One file per request');
  const file = form.get('file');
  if (!file || typeof file === 'string') return NO_FILE;
  try {
    const asset = await api.uploadAsset.execute({
      accountId: ctx.principal.account.id,
      filename: file.name,
      content: file.stream() as unknown as AsyncIterable<Uint8Array>,
      maxBytes: options.maxUploadBytes,
    });
    return { status: 201, body: presentAsset(asset) };
  } catch (error) {
    const known = uploadErrorResponse(error);
    if (known) return { status: known.status, failure: known };
    return { ...uploadFailed(500), cause: error };
  }
}
