/**
 * The pool through `RunloadAdminClient` against a real server process (every answer checked
 * against the OpenAPI document): backends listed, added, changed, drained, activated, removed,
 * a GPU machine's registration and its heartbeat; and the audit trail those changes leave, from
 * the admin API and from the CLI, without the backends' credentials.
 */
import { expect } from 'chai';
import { conformingFetch, createResponseChecker } from '@runload/api-schema/testing';
import { RunloadAdminClient, RunloadError } from '@runload/client';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { cliJson, startServerProcess, tempDataDir, type ServerProcess } from './processes.js';

const SECRET_HEADER = 'Authorization: Bearer gpu-proxy-secret-7f3a';
const SECRET_BASIC = 'operator:basic-secret-91c2';
const SECRET_REGISTERED = 'X-Gpu-Key: registered-secret-5d0e';

/** The refusal's status and code, or what was thrown when it is not a RunloadError. */
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (RunloadError.is(error) ? { status: error.status, code: error.code } : error),
  );

describe('the pool through RunloadAdminClient, and its audit trail', function () {
  this.timeout(120_000);
  const data = tempDataDir();
  let fake: FakeComfyUI;
  let server: ServerProcess;
  let env: Record<string, string>;
  let token: { token_id: string; token: string };
  let admin: RunloadAdminClient;

  before(async () => {
    fake = await startFakeComfyUI({ executionMs: 50 });
    env = { RUNLOAD_DATA_DIR: data.dir, RUNLOAD_COMFYUI_URLS: fake.url, RUNLOAD_LOG_LEVEL: 'silent' };
    await cliJson(['migrate'], env);
    token = await cliJson<{ token_id: string; token: string }>(['admin-tokens', 'create', '--name', 'fleet', '--scopes', '*'], env);
    server = await startServerProcess(env);
    const checker = createResponseChecker();
    const conforming = conformingFetch(checker, (input, init) => fetch(input, init));
    const checked = ((input: string | URL | Request, init?: RequestInit) => conforming(String(input), init)) as typeof fetch;
    admin = new RunloadAdminClient({ baseUrl: server.url, adminToken: token.token, fetch: checked, retry: false });
  });

  after(async () => {
    await server?.stop('SIGTERM');
    await fake?.close();
    data.remove();
  });

  it('lists, adds, changes, drains, activates and removes backends, and shows the pool', async () => {
    const { backends } = await admin.listBackends();
    expect(backends.map((b) => [b.url, b.source])).to.deep.equal([[fake.url.replace(/\/$/, ''), 'static']]);

    const added = await admin.addBackend({ url: 'http://GPU-1.example.invalid:8188/', labels: { gpu: 'a100' }, depth: 2, auth: { header: SECRET_HEADER } });
    expect(added).to.include({ url: 'http://gpu-1.example.invalid:8188', source: 'api', state: 'active', depth: 2, has_auth: true, held: 0 });
    expect(added.labels).to.deep.equal({ gpu: 'a100' });
    expect(JSON.stringify(added)).not.to.contain('gpu-proxy-secret');
    expect(await admin.getBackend(added.backend_id)).to.deep.include({ backend_id: added.backend_id, url: added.url });
    expect(await refusal(admin.addBackend({ url: 'http://gpu-1.example.invalid:8188' }))).to.deep.equal({ status: 409, code: 'BACKEND_EXISTS' });

    const changed = await admin.changeBackend(added.backend_id, { labels: { gpu: 'h100', zone: 'eu' }, depth: null });
    expect(changed.labels).to.deep.equal({ gpu: 'h100', zone: 'eu' });
    expect(changed.depth).to.equal(null);
    // Holding nothing, a drained backend is drained at once or within the follower's next round.
    expect(['draining', 'drained']).to.include((await admin.drainBackend(added.backend_id)).state);
    expect((await admin.activateBackend(added.backend_id)).state).to.equal('active');

    const pool = await admin.pool();
    expect(pool.backends.map((b) => b.url)).to.include.members([fake.url.replace(/\/$/, ''), added.url]);
    expect(pool).to.include({ queued: 0, running: 0, waiting_for_capacity: 0, waiting_for_capability: 0 });

    await admin.removeBackend(added.backend_id);
    expect(await refusal(admin.getBackend(added.backend_id))).to.deep.equal({ status: 404, code: 'BACKEND_NOT_FOUND' });
    const forced = await admin.addBackend({ url: 'http://gpu-2.example.invalid:8188', auth: { basic: SECRET_BASIC } });
    await admin.removeBackend(forced.backend_id, { force: true });
    expect((await admin.listBackends()).backends.map((b) => b.url)).not.to.include(forced.url);
  });

  it('registers a GPU machine, renews its lease with the heartbeat, and deregisters it', async () => {
    const url = 'http://gpu-3.example.invalid:8188';
    const first = await admin.registerBackend({ url, labels: { pool: 'spot' }, ttl_seconds: 30, auth: { header: SECRET_REGISTERED } });
    expect(first.created).to.equal(true);
    expect(first.backend).to.include({ url, source: 'registered', state: 'active', has_auth: true });
    expect(first.backend.expires_at).to.be.a('string');
    const renewed = await admin.registerBackend({ url, ttl_seconds: 60 });
    expect(renewed.created).to.equal(false);
    expect(Date.parse(renewed.backend.expires_at!)).to.be.greaterThan(Date.parse(first.backend.expires_at!));

    const leaving = await admin.deregisterBackend(url);
    expect(['draining', 'drained']).to.include(leaving.state);
    expect(await refusal(admin.deregisterBackend('http://never-registered.example.invalid:8188'))).to.deep.equal({ status: 404, code: 'BACKEND_NOT_FOUND' });
  });

  it('audits every backend change of the admin API and the CLI, but not a heartbeat, and never with credentials', async () => {
    const url = 'http://gpu-4.example.invalid:8188';
    const added = await cliJson<{ backend_id: string }>(['backends', 'add', url, '--label', 'gpu=l4', '--auth-header', SECRET_HEADER], env);
    await cliJson(['backends', 'drain', url], env);
    await cliJson(['backends', 'activate', added.backend_id], env);
    await cliJson(['backends', 'remove', url, '--force'], env);

    const { entries } = await admin.audit({ limit: 100 });
    const backendEntries = entries.filter((e) => e.action.startsWith('backend.'));
    const viaToken = backendEntries.filter((e) => e.actor === `token:${token.token_id}`).map((e) => e.action);
    const viaCli = backendEntries.filter((e) => e.actor === 'cli').map((e) => [e.action, e.target]);
    // The two earlier tests made these through the admin API (entries of one millisecond may come in any order).
    expect([...viaToken].sort()).to.deep.equal([
      'backend.add',
      'backend.update',
      'backend.drain',
      'backend.activate',
      'backend.remove',
      'backend.add',
      'backend.remove',
      'backend.register', // the heartbeat that renewed it wrote nothing
      'backend.deregister',
    ].sort());
    expect([...viaCli].reverse()).to.deep.equal([
      ['backend.add', added.backend_id],
      ['backend.drain', added.backend_id],
      ['backend.activate', added.backend_id],
      ['backend.remove', added.backend_id],
    ]);
    for (const entry of backendEntries) expect(entry.target).to.match(/^[0-9a-f-]{36}$/);
    expect(backendEntries.filter((e) => e.actor !== 'cli').every((e) => typeof e.request_id === 'string')).to.equal(true);
    const text = JSON.stringify(entries);
    for (const secret of ['gpu-proxy-secret-7f3a', 'basic-secret-91c2', 'registered-secret-5d0e']) expect(text).not.to.contain(secret);
  });
});

describe("the pool's documented examples, sent as a reader of /docs sends them", function () {
  this.timeout(120_000);
  const data = tempDataDir();
  let server: ServerProcess;
  let token: string;

  before(async () => {
    const env = { RUNLOAD_DATA_DIR: data.dir, RUNLOAD_COMFYUI_URLS: '', RUNLOAD_LOG_LEVEL: 'silent' };
    await cliJson(['migrate'], env);
    token = (await cliJson<{ token: string }>(['admin-tokens', 'create', '--name', 'docs', '--scopes', '*'], env)).token;
    server = await startServerProcess(env);
  });

  after(async () => {
    await server?.stop('SIGTERM');
    data.remove();
  });

  it('succeeds with the first example of every request body and query of the pool, and shows an example for its labels', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as Record<string, any>;
    const send = conformingFetch(createResponseChecker(document), (input, init) => fetch(input, init));
    const operation = (path: string, method: string) => document['paths'][path][method] as Record<string, any>;
    const bodyOf = (path: string, method: string) => operation(path, method)['requestBody']['content']['application/json']['example'] as Record<string, unknown>;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await send(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      expect(response.status, `${method} ${path}: ${text.slice(0, 300)}`).to.be.within(200, 299);
      return text ? (JSON.parse(text) as Record<string, any>) : null;
    };

    const added = await call('POST', '/api/v1/admin/backends', bodyOf('/api/v1/admin/backends', 'post'));
    expect(added?.['labels']).to.deep.equal({ gpu: 'a100', zone: 'eu' });
    const changed = await call('PATCH', `/api/v1/admin/backends/${added?.['backend_id']}`, bodyOf('/api/v1/admin/backends/{id}', 'patch'));
    expect(['draining', 'drained']).to.include(changed?.['state']);
    const registered = await call('POST', '/api/v1/admin/backends/register', bodyOf('/api/v1/admin/backends/register', 'post'));
    expect(registered?.['source']).to.equal('registered');
    const url = (operation('/api/v1/admin/backends/register', 'delete')['parameters'] as Record<string, any>[]).find((p) => p['name'] === 'url')?.['schema']['examples'][0];
    expect((await call('DELETE', `/api/v1/admin/backends/register?url=${encodeURIComponent(String(url))}`))?.['url']).to.equal(registered?.['url']);

    // A map of free keys without an example reads as a regular expression in /docs.
    const bare: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (typeof node !== 'object' || node === null) return;
      if ('patternProperties' in node && !('examples' in node)) bare.push(at);
      for (const [key, child] of Object.entries(node)) walk(child, `${at}/${key}`);
    };
    for (const [path, item] of Object.entries(document['paths'] as Record<string, unknown>)) if (path.startsWith('/api/v1/admin/backends') || path === '/api/v1/admin/pool') walk(item, path);
    walk(document['components'], '#/components');
    expect(bare).to.deep.equal([]);
  });
});
