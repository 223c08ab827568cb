/**
 * `POST /assets`: streams the one `file` part of a multipart body straight into the upload use
 * case (the blob store hashes it and enforces the size cap), through formidable on the Node
 * request. Nothing is buffered in memory and formidable writes no file of its own. A refusal
 * that comes before the body has ended is answered at once, with `Connection: close`, so the
 * rest of the body is never read.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { PassThrough, Writable } from 'node:stream';
import formidable from 'formidable';
import type { Asset, RunloadApi } from '@runload/core';
import type { RouteContext, RouteResult } from './api-route.js';
import { uploadErrorResponse } from './error-response.js';
import { presentAsset } from './presenters.js';
import { uploadFromFormData } from './upload-from-form-data.js';
import { NO_FILE, uploadFailed, type UploadOptions } from './upload-options.js';

/** formidable's own error codes (formidable/src/FormidableError.js). */
const FORMIDABLE_TOTAL_FILE_SIZE = 1009;
const FORMIDABLE_MAX_FILES = 1015;
const FORMIDABLE_FILE_SIZE = 1016;

export async function uploadAssetRoute(ctx: RouteContext, api: RunloadApi, options: UploadOptions): Promise<RouteResult> {
  const contentType = ctx.event.req.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) return uploadFailed(400);
  const nodeReq = ctx.event.runtime?.node?.req as IncomingMessage | undefined;
  if (!nodeReq) return uploadFromFormData(ctx, api, options);
  const result = await streamUpload(ctx, api, options, nodeReq);
  if (result.failure && !nodeReq.complete) return { ...result, headers: { ...result.headers, Connection: 'close' } };
  return result;
}

type Outcome = { asset: Asset } | { error: unknown };

async function streamUpload(ctx: RouteContext, api: RunloadApi, options: UploadOptions, nodeReq: IncomingMessage): Promise<RouteResult> {
  const bound = options.maxUploadBytes + options.multipartSlackBytes;
  let part = { name: '', filename: null as string | null };
  let fileParts = 0;
  let sink: PassThrough | null = null;
  let stored: Promise<Outcome> | null = null;
  let storeFailed: (error: unknown) => void = () => undefined;
  const storeFailure = new Promise<unknown>((resolve) => (storeFailed = resolve));

  const form = formidable({
    uploadDir: options.uploadDir,
    maxFiles: 1,
    maxFileSize: bound,
    maxTotalFileSize: bound,
    maxFields: 8,
    maxFieldsSize: 64 * 1024,
    allowEmptyFiles: true,
    minFileSize: 0,
    fileWriteStreamHandler: () => {
      fileParts += 1;
      if (fileParts > 1 || part.name !== 'file') return new Writable({ write: (_chunk, _encoding, done) => done() });
      // Room for a write batch of the blob store, so the parser keeps reading while it writes.
      const pass = new PassThrough({ highWaterMark: 1024 * 1024 });
      sink = pass;
      const command = { accountId: ctx.principal.account.id, filename: part.filename, content: pass, maxBytes: options.maxUploadBytes };
      stored = api.uploadAsset.execute(command).then(
        (asset) => ({ asset }),
        (error: unknown) => {
          pass.destroy();
          storeFailed(error);
          return { error };
        },
      );
      return pass;
    },
  });
  form.on('fileBegin', (name, file) => {
    part = { name, filename: file.originalFilename ?? null };
  });

  const parsed = form.parse(nodeReq).then(
    () => null,
    (error: unknown) => error ?? new Error('the multipart body could not be read'),
  );
  const gone = new Promise<unknown>((resolve) => {
    nodeReq.once('close', () => {
      if (!nodeReq.complete) resolve(new Error('the client went away before the body ended'));
    });
  });

  const first = await Promise.race([
    parsed.then((error) => ({ parseError: error })),
    gone.then((error) => ({ parseError: error })),
    storeFailure.then((error) => ({ storeError: error })),
  ]);
  if ('storeError' in first) {
    const known = uploadErrorResponse(first.storeError);
    if (known) return { status: known.status, failure: known };
    // The store may have failed only because the parser gave up: let the parser's reason win.
    const parseError = await Promise.race([parsed, gone]);
    if (parseError) return refusedByParser(parseError);
    return { ...uploadFailed(500), cause: first.storeError };
  }
  if (first.parseError) {
    (sink as PassThrough | null)?.destroy(new Error('the multipart body ended early'));
    const outcome = await (stored as Promise<Outcome> | null);
    if (outcome && 'asset' in outcome) await api.uploadAsset.remove(outcome.asset);
    return refusedByParser(first.parseError);
  }
  if (!stored) return NO_FILE;
  const outcome = await (stored as Promise<Outcome>);
  if ('asset' in outcome) return { status: 201, body: presentAsset(outcome.asset) };
  const known = uploadErrorResponse(outcome.error);
  return known ? { status: known.status, failure: known } : { ...uploadFailed(500), cause: outcome.error };
}

function refusedByParser(error: unknown): RouteResult {
  const code = (error as { code?: unknown }).code;
  if (code === FORMIDABLE_MAX_FILES) return uploadFailed(400, 'One file per request');
  if (code === FORMIDABLE_TOTAL_FILE_SIZE || code === FORMIDABLE_FILE_SIZE) return uploadFailed(413, 'File too large');
  return uploadFailed(400);
}
