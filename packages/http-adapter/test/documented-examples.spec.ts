/**
 * The document as a reader of `/docs` uses it: every operation is sent the way its generated
 * request would be (to the document's own server, with the examples it gives for bodies and
 * query strings, and real ids in the path), and every answer must be one the document describes.
 * The examples must succeed: the one exception is `POST /api/v1/runs`, whose example id stands for
 * one the reader reads from `GET /api/v1/apps`. Admin operations are sent with an admin token of
 * every scope, user operations with an API key.
 */
import { expect } from 'chai';
import { conformingFetch, createResponseChecker } from '@runload/api-schema/testing';
import { EXAMPLE_APP_VERSION_ID } from '@runload/api-schema';
import { CLI_AUTHOR } from '@runload/core';
import { makeHarness, PNG, type Harness } from './harness.js';

type Json = Record<string, any>;
type Call = { method: string; path: string; operation: Json };

/**
 * For a path `…/<collection>/{id}`: the field of the answer to `POST …/<collection>` that holds the
 * id of what it created. A new collection needs one line here.
 */
const ID_FIELDS: Record<string, string> = {
  assets: 'asset_id',
  runs: 'run_id',
  accounts: 'account_id',
  keys: 'key_id',
  apps: 'app_version_id',
  backends: 'backend_id',
};

/** The collection whose member a path's `{id}` names: `/api/v1/admin/keys/{id}` → `keys`. */
const collectionOfId = (path: string): string | undefined => path.slice(0, path.indexOf('/{id}')).split('/').pop();

/**
 * Creations first (of what stands alone before what is made under an `{id}`), then reads, then
 * what changes or removes what the reads use.
 */
function rank(call: Call): number {
  if (call.method === 'post' && !call.path.endsWith('/cancel')) return call.path.includes('/{id}') ? 0.5 : 0;
  if (call.method === 'get') return 1;
  if (call.method === 'post') return 2;
  return 3;
}

describe("the OpenAPI document's examples, sent as a reader of /docs sends them", function () {
  this.timeout(30_000);
  let h: Harness;
  let document: Json;

  before(async () => {
    h = await makeHarness('node', { metrics: { observeRequest: () => undefined, render: async () => ({ contentType: 'text/plain; version=0.0.4', body: '# no metrics\n' }) } });
    document = (await (await h.request('/openapi.json')).json()) as Json;
  });
  after(() => h?.close());

  it('names the server it is read from, and no internal reference', () => {
    expect(document['servers']).to.deep.equal([{ url: h.url }]);
    expect(JSON.stringify(document)).not.to.match(/\b(CONTRACT|SPEC)\s*\d|§/);
  });

  it('gives an example for every map of free keys, which a reader would otherwise see as a regular expression', () => {
    const bare: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (typeof node !== 'object' || node === null) return;
      const record = node as Json;
      if (record['patternProperties'] && !record['examples']) bare.push(at);
      for (const [key, child] of Object.entries(record)) walk(child, `${at}/${key}`);
    };
    walk(document, '#');
    expect(bare).to.deep.equal([]);
  });

  it('names the origin a trusted proxy forwarded, and ignores those headers from anyone else', async () => {
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' };
    const direct = (await (await h.request('/openapi.json', { headers: forwarded })).json()) as Json;
    expect(direct['servers']).to.deep.equal([{ url: h.url }]);
    const proxied = await makeHarness('node', { trustedProxies: ['127.0.0.1'] });
    try {
      const behind = (await (await proxied.request('/openapi.json', { headers: forwarded })).json()) as Json;
      expect(behind['servers']).to.deep.equal([{ url: 'https://api.example.com' }]);
    } finally {
      await proxied.close();
    }
  });

  it('states HEAD once instead of a second operation beside every GET', async () => {
    for (const [path, item] of Object.entries(document['paths'] as Json)) expect(Object.keys(item as Json), path).not.to.include('head');
    expect(document['info']['description']).to.match(/`HEAD` is answered wherever `GET` is/);
    const head = await h.request('/openapi.json', { method: 'HEAD' });
    expect([head.status, await head.text()]).to.deep.equal([200, '']);
  });

  it('answers every operation, sent with its examples, with a documented success', async () => {
    const server = (document['servers'] as { url: string }[])[0]?.url as string;
    const send = conformingFetch(createResponseChecker(document), (input, init) => fetch(input, init));
    const u = await h.user();
    const admin = { authorization: `Bearer ${(await h.api.adminTokens.create('docs reader', ['*'], CLI_AUTHOR)).secret}` };
    // Named path parameters by name; each `{id}` by its collection, from the answer that created one.
    const ids: Record<string, string> = { appVersionId: h.appVersionId, file: 'init.js' };
    const remember = (path: string, text: string) => {
      const collection = path.split('/').pop() as string;
      const field = ID_FIELDS[collection];
      if (field) ids[collection] = (JSON.parse(text) as Record<string, string>)[field] as string;
    };
    const calls: Call[] = Object.entries(document['paths'] as Json)
      .flatMap(([path, item]) => Object.entries(item as Json).map(([method, operation]) => ({ method, path, operation: operation as Json })))
      .sort((a, b) => rank(a) - rank(b));

    const answered: string[] = [];
    for (const { method, path, operation } of calls) {
      const where = `${method.toUpperCase()} ${path}`;
      const url = new URL(
        server +
          path.replace(/\{(\w+)\}/g, (_, name: string) => {
            const id = ids[name === 'id' ? (collectionOfId(path) as string) : name];
            if (!id) throw new Error(`${where}: no id for {${name}} yet`);
            return id;
          }),
      );
      for (const parameter of (operation['parameters'] ?? []) as Json[]) {
        const example = parameter['schema']?.['examples']?.[0];
        if (parameter['in'] === 'query' && example !== undefined) url.searchParams.set(parameter['name'], String(example));
      }
      const scheme = Object.keys((operation['security'] as Json[] | undefined)?.[0] ?? {})[0];
      const headers: Record<string, string> = scheme === 'adminToken' ? { ...admin } : scheme ? { ...u.auth } : {};
      const content = operation['requestBody']?.['content'] as Json | undefined;
      let body: string | FormData | undefined;
      if (content?.['application/json']) {
        const example = content['application/json']['example'];
        expect(example, `${where}: a body example`).not.to.equal(undefined);
        headers['content-type'] = 'application/json';
        body = JSON.stringify(example);
      } else if (content?.['multipart/form-data']) {
        const form = new FormData();
        for (const [name, schema] of Object.entries(content['multipart/form-data']['schema']['properties'] as Json)) {
          if (schema['format'] === 'binary') form.append(name, new Blob([PNG]), 'example.png');
        }
        body = form;
      }
      const response = await send(url.toString(), { method: method.toUpperCase(), headers, ...(body === undefined ? {} : { body }) });
      const text = response.headers.get('content-type')?.startsWith('text/event-stream') ? '' : await response.text();
      await response.body?.cancel().catch(() => undefined); // the event stream stays open otherwise

      if (operation['operationId'] === 'createRun') {
        // The example's id stands for a real one: as written it is not found; with one, it runs.
        expect(response.status, where).to.equal(404);
        expect(JSON.parse(text).error.message).to.include(EXAMPLE_APP_VERSION_ID);
        const real = await send(url.toString(), { method: 'POST', headers, body: (body as string).replace(EXAMPLE_APP_VERSION_ID, h.appVersionId) });
        expect(real.status, `${where} with a real app version`).to.equal(201);
        remember(path, await real.text());
        answered.push(`${where} ${real.status}`);
        continue;
      }
      if (operation['operationId'] === 'getRunPreview') {
        // A run shows a preview only while a backend draws one; this harness runs none.
        expect([response.status, JSON.parse(text).error.code], where).to.deep.equal([404, 'PREVIEW_NOT_FOUND']);
        answered.push(`${where} ${response.status}`);
        continue;
      }
      expect(response.status, `${where}: ${text.slice(0, 300)}`).to.be.within(200, 299);
      answered.push(`${where} ${response.status}`);
      if (rank({ method, path, operation }) < 1) remember(path, text);
    }
    expect(answered).to.include.members(['POST /api/v1/apps/{appVersionId} 201', 'POST /api/v1/assets 201', 'DELETE /api/v1/assets/{id} 204', 'GET /metrics 200']);
    expect(answered).to.include.members([
      'POST /api/v1/admin/accounts 201',
      'POST /api/v1/admin/accounts/{id}/keys 201',
      'POST /api/v1/admin/apps 201',
      'GET /api/v1/admin/usage 200',
      'POST /api/v1/admin/runs/{id}/cancel 200',
      'PATCH /api/v1/admin/accounts/{id} 200',
      'DELETE /api/v1/admin/keys/{id} 204',
      'DELETE /api/v1/admin/apps/{id} 204',
      'POST /api/v1/admin/backends 201',
      'POST /api/v1/admin/backends/register 201',
      'DELETE /api/v1/admin/backends/register 200',
      'DELETE /api/v1/admin/backends/{id} 204',
    ]);
  });
});
