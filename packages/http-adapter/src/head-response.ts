/**
 * The answer to `HEAD`: the `GET` response's status and headers, without its body. A streamed
 * body (asset content) is never read: its route already set `Content-Length`; a JSON body is
 * measured so `Content-Length` is what `GET` would send.
 * @module
 */
import { FastResponse } from 'srvx';

export async function withoutBody(response: Response): Promise<Response> {
  const headers = new Headers(response.headers);
  if (!headers.has('content-length') && response.body) {
    headers.set('content-length', String((await response.arrayBuffer()).byteLength));
  } else {
    await response.body?.cancel();
  }
  return new FastResponse(null, { status: response.status, headers });
}
