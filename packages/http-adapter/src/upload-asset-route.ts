/**
 * `POST /assets`: streams the one `file` part of a multipart body straight into the upload use
 * case (the blob store hashes it and enforces the size cap), through formidable on the Node
 * request. Nothing is buffered in memory and nothing is written outside the data directory.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { PassThrough, Writable } from 'node:stream';
import formidable from 'formidable';
import type { Asset, RunloadApi } from '@runload/core';
import type { RouteContext, RouteResult } from './api-route.js';
import { upload, uploadErrorResponse } from './error-response.js';
import { presentAsset } from './presenters.js';

export interface UploadOptions {
  readonly maxUploadBytes: number;
  /** Formidable's scratch directory, inside the data directory (it writes nothing there with our stream handler). */
  readonly uploadDir: string;
}

const NO_FILE: RouteResult = { status: 400, failure: { status: 400, body: { error: 'No file uploaded' }, headers: {} } };

function fail(status: number, reason?: string): RouteResult {
  return { status, failure: upload(status, reason) };
}

export async function uploadAssetRoute(ctx: RouteContext, api: RunloadApi, options: UploadOptions): Promise<RouteResult> {
  const contentType = ctx.event.req.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(contentType)) return fail(400);
  const nodeReq = ctx.event.runtime?.node?.req;
  if (!nodeReq) return uploadFromFormData(ctx, api, options);

  let fileParts = 0;
  let partName = '';
  let stored: Promise<Asset> | null = null;
  let sink: PassThrough | null = null;
  const form = formidable({
    uploadDir: options.uploadDir,
    maxFiles: Number.MAX_SAFE_INTEGER,
    // The use case stops storing at the cap; formidable only stops a body far past it.
    maxFileSize: options.maxUploadBytes * 2 + 1024 * 1024,
    maxTotalFileSize: options.maxUploadBytes * 2 + 1024 * 1024,
    maxFields: 20,
    maxFieldsSize: 64 * 1024,
    allowEmptyFiles: true,
    minFileSize: 0,
    fileWriteStreamHandler: () => {
      fileParts += 1;
      if (fileParts > 1 || partName !== 'file') {
        // A second file: the first must not be kept either.
        if (fileParts > 1) sink?.destroy(new Error('more than one file part'));
        return new Writable({ write: (_chunk, _enc, done) => done() });
      }
      const pass = new PassThrough();
      sink = pass;
      const filename = currentFilename;
      stored = api.uploadAsset.execute({ accountId: ctx.principal.account.id, filename, content: pass, maxBytes: options.maxUploadBytes });
      // When storing stops early (too large, wrong type), drain the rest of the part.
      stored.catch(() => pass.destroy());
      return pass;
    },
  });
  let currentFilename: string | null = null;
  form.on('fileBegin', (name, file) => {
    partName = name;
    currentFilename = file.originalFilename ?? null;
  });

  let parseError: unknown = null;
  await form.parse(nodeReq as IncomingMessage).catch((error: unknown) => (parseError = error));
  const outcome = stored ? await (stored as Promise<Asset>).then((asset) => ({ asset }), (error: unknown) => ({ error })) : null;

  if (fileParts > 1) {
    if (outcome && 'asset' in outcome) await api.uploadAsset.remove(outcome.asset);
    return fail(400, 'One file per request');
  }
  if (outcome && 'error' in outcome) {
    const known = uploadErrorResponse(outcome.error);
    if (known) return { status: known.status, failure: known };
    if (parseError) return fail(400);
    return { ...fail(500), cause: outcome.error };
  }
  if (parseError) {
    if (outcome && 'asset' in outcome) await api.uploadAsset.remove(outcome.asset);
    const code = (parseError as { httpCode?: number }).httpCode;
    return code === 413 ? fail(413, 'File too large') : fail(400);
  }
  if (!outcome) return NO_FILE;
  return { status: 201, body: presentAsset(outcome.asset) };
}

/** The fetch transport (embedding, tests): the web FormData API, bounded by the declared length. */
async function uploadFromFormData(ctx: RouteContext, api: RunloadApi, options: UploadOptions): Promise<RouteResult> {
  const declared = Number(ctx.event.req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > options.maxUploadBytes + 64 * 1024) return fail(413, 'File too large');
  let form: FormData;
  try {
    form = await ctx.event.req.formData();
  } catch (error) {
    return { ...fail(400), cause: error };
  }
  const files = [...form.values()].filter((v) => typeof v !== 'string');
  if (files.length > 1) return fail(400, 'One file per request');
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
    return { ...fail(500), cause: error };
  }
}
