/**
 * `GET /openapi.json` and `GET /docs` at the root, without a key. The page renders the document
 * with Scalar's API reference, whose script runload serves itself; a Content-Security-Policy
 * keeps the page from reaching any other origin (fonts, telemetry), and the renderer is
 * configured not to try.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { H3, H3Event } from 'h3';
import { FastResponse } from 'srvx';
import { buildOpenApiDocument } from '@runload/api-schema';
import { errorResponse, HttpError } from './error-response.js';
import { withoutBody } from './head-response.js';
import { publicOrigin } from './public-origin.js';

/** The options Scalar gets: everything that would reach another origin is off. */
const SCALAR_CONFIGURATION = {
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  defaultOpenAllTags: true,
  showDeveloperTools: 'never',
  hideDownloadButton: false,
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>runload API reference</title>
    <link rel="icon" href="data:," />
  </head>
  <body>
    <div id="app"></div>
    <script src="/docs/assets/scalar.js"></script>
    <script src="/docs/assets/init.js"></script>
  </body>
</html>
`;

const INIT = `Scalar.createApiReference('#app', ${JSON.stringify(SCALAR_CONFIGURATION)});\n`;

/** Only this origin: a renderer that tried to load a font or report telemetry elsewhere is refused by the browser. */
const CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'self'",
].join('; ');

function scalarBundlePath(): string {
  // The package exports no path to its browser bundle; it sits beside the main entry's folder.
  const main = createRequire(import.meta.url).resolve('@scalar/api-reference');
  return path.join(path.dirname(main), 'browser', 'standalone.js');
}

export interface DocumentationDeps {
  readonly requestId: (event: H3Event) => string;
  /** Proxies whose `X-Forwarded-Proto` and `X-Forwarded-Host` name the origin the document gives. */
  readonly trustedProxies: readonly string[];
}

/** The document names the server it is read from, so a reader's generated requests go there. */
function documentFor(origin: string): string {
  return JSON.stringify(buildOpenApiDocument({ serverUrl: origin }));
}

export function registerDocumentationRoutes(app: H3, deps: DocumentationDeps): void {
  // The last origin's document: a server is read under one name (or a few) in practice.
  let cached: { origin: string; text: string } | null = null;
  let bundle: Promise<Buffer> | null = null;
  const respond = (event: H3Event, body: string | Buffer, type: string, extra: Record<string, string> = {}) =>
    new FastResponse(body, { status: 200, headers: { 'Content-Type': type, 'X-Request-Id': deps.requestId(event), ...extra } });

  // HEAD wherever GET (RFC 9110 9.3.2): the same answer without its body.
  const get = (route: string, handler: (event: H3Event) => Response | Promise<Response>) => {
    app.get(route, handler);
    app.on('HEAD', route, async (event) => withoutBody(await handler(event)));
  };
  get('/openapi.json', (event) => {
    const origin = publicOrigin(event, deps.trustedProxies);
    if (cached?.origin !== origin) cached = { origin, text: documentFor(origin) };
    return respond(event, cached.text, 'application/json; charset=utf-8', { 'Cache-Control': 'no-cache' });
  });
  get('/docs', (event) => respond(event, PAGE, 'text/html; charset=utf-8', { 'Content-Security-Policy': CSP, 'Cache-Control': 'no-cache' }));
  get('/docs/assets/:file', async (event) => {
    const file = event.context.params?.['file'];
    if (file === 'init.js') return respond(event, INIT, 'text/javascript; charset=utf-8', { 'Cache-Control': 'no-cache' });
    if (file === 'scalar.js') {
      bundle ??= readFile(scalarBundlePath()).catch((error: unknown) => {
        bundle = null;
        throw error;
      });
      return respond(event, await bundle, 'text/javascript; charset=utf-8', { 'Cache-Control': 'public, max-age=3600' });
    }
    const refused = errorResponse(new HttpError(404, 'NOT_FOUND', `No docs asset ${String(file)}`));
    return new FastResponse(JSON.stringify(refused.body), {
      status: 404,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': deps.requestId(event) },
    });
  });
}
