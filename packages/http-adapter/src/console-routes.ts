/**
 * `GET /console` and its assets under `/console/`, without a key: the built single-page app, read
 * from the directory the composition root names. Its Content-Security-Policy holds the page to
 * this origin; images and media may also come from `blob:` (outputs and previews fetched with
 * the key) and `data:` (the style sheet's icons).
 * @module
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { H3, H3Event } from 'h3';
import { FastResponse } from 'srvx';
import { errorResponse, HttpError } from './error-response.js';
import { withoutBody } from './head-response.js';

export const CONSOLE_CSP = [
  "default-src 'self'",
  "img-src 'self' blob: data:",
  "media-src 'self' blob: data:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

/** A file name the build writes: no directory part, no dot file, a known type. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

export interface ConsoleDeps {
  /** The directory holding the built `index.html` and `assets/`; undefined when the console is not built. */
  readonly root: string | undefined;
  readonly requestId: (event: H3Event) => string;
}

export function registerConsoleRoutes(app: H3, deps: ConsoleDeps): void {
  const notFound = (event: H3Event, message: string) => {
    const refused = errorResponse(new HttpError(404, 'NOT_FOUND', message));
    return new FastResponse(JSON.stringify(refused.body), {
      status: 404,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': deps.requestId(event) },
    });
  };
  const serve = async (event: H3Event, file: string, cache: string): Promise<Response> => {
    if (!deps.root) return notFound(event, 'The console is not built: run `pnpm build`');
    const type = TYPES[path.extname(file)];
    if (!type) return notFound(event, `No console file ${file}`);
    const body = await readFile(path.join(deps.root, file)).catch(() => null);
    if (!body) return notFound(event, `No console file ${file}`);
    return new FastResponse(body, {
      status: 200,
      headers: {
        'Content-Type': type,
        'Content-Security-Policy': CONSOLE_CSP,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        'Cache-Control': cache,
        'X-Request-Id': deps.requestId(event),
      },
    });
  };
  const page = (event: H3Event) => serve(event, 'index.html', 'no-cache');
  // Built asset names carry a hash of their content, so they never change under one name.
  const asset = (event: H3Event) => {
    const name = event.context.params?.['file'] ?? '';
    return ASSET_NAME.test(name) ? serve(event, path.join('assets', name), 'public, max-age=31536000, immutable') : notFound(event, `No console file ${name}`);
  };
  const get = (route: string, handler: (event: H3Event) => Response | Promise<Response>) => {
    app.get(route, handler);
    app.on('HEAD', route, async (event) => withoutBody(await handler(event)));
  };
  get('/console', page);
  get('/console/', page);
  get('/console/assets/:file', asset);
}
