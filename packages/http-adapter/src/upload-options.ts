/** What the upload route is given, and the results it answers with. */
import type { RouteResult } from './api-route.js';
import { upload } from './error-response.js';

export interface UploadOptions {
  readonly maxUploadBytes: number;
  /** Formidable's scratch directory, inside the data directory (our stream handler writes nothing there). */
  readonly uploadDir: string;
  /** Room for multipart boundaries and part headers on top of the file itself. */
  readonly multipartSlackBytes: number;
}

/** The default room for boundaries and part headers: small next to any sensible cap. */
export const MULTIPART_SLACK_BYTES = 64 * 1024;

export const NO_FILE: RouteResult = { status: 400, failure: { status: 400, body: { error: 'No file uploaded' }, headers: {} } };

/** The upload failure form, with its reason when there is one. */
export function uploadFailed(status: number, reason?: string): RouteResult {
  return { status, failure: upload(status, reason) };
}
