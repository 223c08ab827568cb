/**
 * The console's calls to runload: the typed client for everything it has, and the one call a
 * browser page needs beyond it: an upload that reports its progress (fetch cannot).
 * @module
 */
import { RunloadClient, RunloadError, type Asset } from '@runload/client';

/** Same origin: the console is served by the runload it talks to. */
export function accountClient(secret: string): RunloadClient {
  return new RunloadClient({ baseUrl: location.origin, apiKey: secret });
}

/** An error as a person should read it: the server's code and message when it sent them. */
export function describeError(error: unknown): string {
  if (RunloadError.is(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** Uploads a file as an asset, calling `onProgress` with the share sent (0 to 1). */
export function uploadWithProgress(secret: string, file: File, onProgress: (share: number) => void): Promise<Asset> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', '/api/v1/assets');
    request.setRequestHeader('Authorization', `Bearer ${secret}`);
    request.responseType = 'json';
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      if (request.status === 201) return resolve(request.response as Asset);
      reject(new Error(uploadFailure(request.status, request.response)));
    };
    request.onerror = () => reject(new Error('The upload did not reach the server'));
    const form = new FormData();
    form.append('file', file, file.name);
    request.send(form);
  });
}

/** The upload route answers `{ success: false, error }`; the other forms are read too. */
function uploadFailure(status: number, body: unknown): string {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && 'message' in error) return String((error as { message: unknown }).message);
  return `The upload failed (${status})`;
}
