/**
 * `POST /assets`: streams the one `file` part of a multipart body straight into the upload use
 * case (the blob store hashes it and enforces the size cap), through formidable. Both transports
 * take this one path: the Node request as it is, a web body (`app.fetch`) as a Node stream.
 * Nothing is buffered in memory and formidable writes no file of its own.
 *
 * Three things can end an upload: the parser (end of body, malformed body, too many files), the
 * client going away, and the store (size cap, file type, storage failure). They often happen
 * together, since one causes the others, so the answer is never whichever came first: the
 * route gathers what each said and {@link decideUpload} picks the answer by a fixed precedence.
 * A refusal of the store answers at once, with `Connection: close`, so the rest of the body is
 * never stored; the close lingers (see lingering-close.ts) so the client reads the answer.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { PassThrough, Readable, Writable } from 'node:stream';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import formidable from 'formidable';
import type { Asset, RunloadApi } from '@runload/core';
import type { RouteContext, RouteResult } from './api-route.js';
import { uploadErrorResponse } from './error-response.js';
import { lingerBeforeClose } from './lingering-close.js';
import { presentAsset } from './presenters.js';
import { NO_FILE, uploadFailed, type UploadOptions } from './upload-options.js';

/** formidable's own error codes (formidable/src/FormidableError.js). */
const FORMIDABLE_TOTAL_FILE_SIZE = 1009;
const FORMIDABLE_MAX_FILES = 1015;
const FORMIDABLE_FILE_SIZE = 1016;

type StoreOutcome = { asset: Asset } | { error: unknown };

/** What the parser and the store each said; `store` is null when no `file` part began. */
export interface UploadReport {
  readonly parserError: unknown;
  readonly store: StoreOutcome | null;
}

/**
 * The one place that decides an upload's answer. A refusal of the store (size cap, file type)
 * comes first, since a parser error is often only its echo; then the parser's own refusals;
 * then a failure of the store; then success.
 */
export function decideUpload(report: UploadReport): RouteResult {
  const { parserError, store } = report;
  if (store && 'error' in store) {
    const known = uploadErrorResponse(store.error);
    if (known) return { status: known.status, failure: known, cause: store.error };
    // The disk or store failed on its own: the parser's error, if any, only echoes it.
    if (isStorageFailure(store.error)) return { ...uploadFailed(500), cause: store.error };
  }
  if (parserError) {
    const code = (parserError as { code?: unknown }).code;
    if (code === FORMIDABLE_TOTAL_FILE_SIZE || code === FORMIDABLE_FILE_SIZE) return { ...uploadFailed(413, 'File too large'), cause: parserError };
    if (code === FORMIDABLE_MAX_FILES) return { ...uploadFailed(400, 'One file per request'), cause: parserError };
    return { ...uploadFailed(400), cause: parserError };
  }
  if (!store) return NO_FILE;
  if ('asset' in store) return { status: 201, body: presentAsset(store.asset) };
  return { ...uploadFailed(500), cause: store.error };
}

export async function uploadAssetRoute(ctx: RouteContext, api: RunloadApi, options: UploadOptions): Promise<RouteResult> {
  return (await receiveUpload(ctx, api, options)).result;
}

/** An upload's answer, with the other form fields it carried (those sent before the file part). */
export interface ReceivedUpload {
  readonly result: RouteResult;
  readonly fields: Readonly<Record<string, string>>;
}

export async function receiveUpload(ctx: RouteContext, api: RunloadApi, options: UploadOptions): Promise<ReceivedUpload> {
  const contentType = ctx.event.req.headers.get('content-type') ?? '';
  const fields: Record<string, string> = {};
  // A request that is not multipart at all (no body, JSON, text) holds no file; a multipart one
  // without its boundary is a broken upload.
  const result = /^multipart\/form-data\s*;/i.test(contentType)
    ? await streamUpload(ctx, api, options, contentType, fields)
    : /^multipart\/form-data\b/i.test(contentType)
      ? { ...uploadFailed(400), cause: new Error('the multipart/form-data body has no boundary') }
      : { ...NO_FILE, cause: new Error(`the body is not multipart/form-data (content-type: ${contentType.slice(0, 100) || 'none'})`) };
  // A refusal is the client's doing (info); a storage failure is logged with its stack by the pipeline.
  if (result.failure && result.failure.status < 500) {
    ctx.log('info', 'upload refused', { status: result.failure.status, reason: describe(result.cause) });
  }
  return { result, fields };
}

async function streamUpload(ctx: RouteContext, api: RunloadApi, options: UploadOptions, contentType: string, fields: Record<string, string>): Promise<RouteResult> {
  const nodeReq = ctx.event.runtime?.node?.req as IncomingMessage | undefined;
  const source = nodeReq ?? webBodyAsNode(ctx.event.req, contentType);
  const bound = options.maxUploadBytes + options.multipartSlackBytes;
  let part = { name: '', filename: null as string | null };
  let fileParts = 0;
  let sink: PassThrough | null = null;
  let stored: Promise<StoreOutcome> | null = null;
  let storeFailed: (error: unknown) => void = () => undefined;
  const storeFailure = new Promise<unknown>((resolve) => (storeFailed = resolve));

  const form = formidable({
    uploadDir: options.uploadDir,
    maxFiles: 1,
    // A backstop only: the store decides the cap, and both answer 413 the same way.
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
  form.on('field', (name, value) => {
    fields[name] ??= value;
  });
  form.on('fileBegin', (name, file) => {
    part = { name, filename: file.originalFilename ?? null };
  });

  const parsed = form.parse(source as IncomingMessage).then(
    () => null,
    (error: unknown) => error ?? new Error('the multipart body could not be read'),
  );
  const parserDone = nodeReq ? Promise.race([parsed, clientGone(nodeReq)]) : parsed;
  const first = await Promise.race([parserDone.then((error) => ({ parser: error })), storeFailure.then((error) => ({ store: error }))]);

  let report: UploadReport;
  if ('store' in first) {
    // A refusal or a storage failure is answered now; any other failure may be the echo of the parser giving up.
    const refusal = uploadErrorResponse(first.store) !== null || isStorageFailure(first.store);
    report = { parserError: refusal ? null : await parserDone, store: { error: first.store } };
  } else {
    if (first.parser) (sink as PassThrough | null)?.destroy(new Error('the multipart body ended early'));
    report = { parserError: first.parser, store: await (stored as Promise<StoreOutcome> | null) };
  }
  const result = decideUpload(report);
  if (result.failure && report.store && 'asset' in report.store) await api.uploadAsset.remove(report.store.asset);
  if (result.failure && nodeReq && !nodeReq.complete) {
    // The rest of the body is never read: the connection closes after the answer, lingering so
    // the client, still sending, reads the answer instead of a reset.
    lingerBeforeClose(nodeReq.socket);
    return { ...result, headers: { ...result.headers, Connection: 'close' } };
  }
  return result;
}

/** Errors of the file system itself (a full disk, a read-only or failing device), not of the body. */
const STORAGE_ERRNO = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS', 'EFBIG', 'EMFILE', 'ENFILE', 'EACCES', 'EPERM']);

/** A failure of where bytes are kept: answered 500, whatever the parser said after it. */
export function isStorageFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && STORAGE_ERRNO.has(code);
}

function clientGone(nodeReq: IncomingMessage): Promise<Error> {
  return new Promise((resolve) => {
    nodeReq.once('close', () => {
      if (!nodeReq.complete) resolve(new Error('the client went away before the body ended'));
    });
  });
}

/** A web request body as the Node stream formidable reads, with the headers it looks at. */
function webBodyAsNode(req: Request, contentType: string): Readable {
  const stream = req.body ? Readable.fromWeb(req.body as unknown as NodeWebReadableStream<Uint8Array>) : Readable.from([]);
  const length = req.headers.get('content-length');
  // formidable reads a body without a length as empty unless it is said to be chunked.
  return Object.assign(stream, { headers: { 'content-type': contentType, ...(length ? { 'content-length': length } : { 'transfer-encoding': 'chunked' }) } });
}

function describe(cause: unknown): string {
  if (cause instanceof Error) return `${cause.message}${(cause as { code?: unknown }).code !== undefined ? ` (${String((cause as { code?: unknown }).code)})` : ''}`;
  return cause === undefined ? 'no file part' : String(cause);
}
