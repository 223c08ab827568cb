/**
 * The README walkthrough, end to end: the CLI and the server run as separate processes on one
 * SQLite data directory.
 */
import { expect } from 'chai';
import { createResponseChecker } from '@runload/api-schema/testing';
import path from 'node:path';
import { cli, cliJson, REPO_ROOT, startServerProcess, tempDataDir, type ServerProcess } from './processes.js';

const PNG_1X1 = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082',
  'hex',
);

describe('CLI and server as separate processes', function () {
  this.timeout(90_000);
  const data = tempDataDir();
  // A port nothing listens on: the server has no reachable ComfyUI backend.
  const env = { RUNLOAD_DATA_DIR: data.dir, RUNLOAD_COMFYUI_URLS: 'http://127.0.0.1:9', RUNLOAD_LOG_LEVEL: 'silent' };
  let server: ServerProcess;
  let apiKey = '';
  let keyId = '';
  let accountId = '';
  let appVersionId = '';

  before(async () => {
    expect(await cliJson(['migrate'], env)).to.deep.equal({ migrated: true });
    const account = await cliJson<{ account_id: string; name: string; tier: string; status: string }>(
      ['accounts', 'create', '--name', 'Ada', '--tier', 'starter'],
      env,
    );
    expect(account).to.include({ name: 'Ada', tier: 'starter', status: 'active' });
    accountId = account.account_id;
    const key = await cliJson<{ key_id: string; api_key: string; account_id: string }>(['keys', 'create', '--account', accountId], env);
    expect(key.account_id).to.equal(accountId);
    expect(key.api_key).to.match(/^rl_[0-9A-Za-z]{10}_[0-9A-Za-z]{43}$/);
    apiKey = key.api_key;
    keyId = key.key_id;
    const app = await cliJson<{ app_version_id: string; inputs: { key: string; type: string }[] }>(
      ['apps', 'publish', '--name', 'Blur', '--workflow', path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json')],
      env,
    );
    appVersionId = app.app_version_id;
    expect(app.inputs.find((i) => i.key === '1:image')?.type).to.equal('IMAGE');
    server = await startServerProcess(env);
  });

  after(async () => {
    const code = await server?.stop('SIGTERM');
    expect(code, 'graceful stop exit code').to.equal(0);
    data.remove();
  });

  const auth = () => ({ authorization: `Bearer ${apiKey}` });

  it('serves /healthz without a key: 200 degraded, since its only backend is unreachable, as the OpenAPI document describes', async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).to.equal(200);
    await createResponseChecker().check('GET', `${server.url}/healthz`, res.clone());
    const body = (await res.json()) as { status: string; backends: { available: boolean } };
    expect(body.status).to.equal('degraded');
    expect(body.backends.available).to.equal(false);
  });

  it('uploads an image and reads the app inputs', async () => {
    const form = new FormData();
    form.append('file', new Blob([PNG_1X1]), 'cat.png');
    const upload = await fetch(`${server.url}/api/v1/assets`, { method: 'POST', headers: auth(), body: form });
    expect(upload.status).to.equal(201);
    const asset = (await upload.json()) as Record<string, unknown>;
    expect(asset).to.include({ filename: 'cat.png', content_type: 'image/png', size: PNG_1X1.length });
    const meta = await fetch(`${server.url}/api/v1/apps/${appVersionId}`, { headers: auth() });
    expect(meta.status).to.equal(200);
    const body = (await meta.json()) as { app_version_id: string; inputs: { key: string }[] };
    expect(body.app_version_id).to.equal(appVersionId);
    expect(body.inputs.map((i) => i.key)).to.include('2:blur_radius');
  });

  it('answers 503 SERVICE_UNAVAILABLE for a run when no ComfyUI is reachable', async () => {
    const res = await fetch(`${server.url}/api/v1/apps/${appVersionId}`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: {} }),
    });
    expect(res.status).to.equal(503);
    expect(res.headers.get('retry-after')).to.match(/^\d+$/);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).to.equal('SERVICE_UNAVAILABLE');
    expect(body.error.message).to.contain('unreachable');
  });

  /** Polls `/account` until it answers `status`, for at most the second a CLI change may take to apply. */
  async function accountAnswerWithinASecond(status: number): Promise<Response> {
    const deadline = Date.now() + 1000;
    for (;;) {
      const response = await fetch(`${server.url}/api/v1/account`, { headers: auth() });
      if (response.status === status || Date.now() > deadline) return response;
      await response.arrayBuffer();
      // Not synchronisation: the poll interval inside the one second a CLI change may take; the caller asserts the answer.
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('applies a suspension and a revocation made by the CLI to the running server within a second', async () => {
    const ok = await fetch(`${server.url}/api/v1/account`, { headers: auth() });
    expect(ok.status).to.equal(200);
    await cliJson(['accounts', 'suspend', accountId], env);
    const suspended = await accountAnswerWithinASecond(403);
    expect(suspended.status).to.equal(403);
    expect(await suspended.json()).to.deep.equal({ error: 'Account suspended' });
    await cliJson(['accounts', 'unsuspend', accountId], env);
    expect(await cliJson(['keys', 'revoke', keyId], env)).to.deep.equal({ key_id: keyId, revoked: true });
    const revoked = await accountAnswerWithinASecond(401);
    expect(revoked.status).to.equal(401);
    expect(await revoked.json()).to.deep.equal({ error: 'Invalid API key' });
  });

  it('refuses a UI-format workflow with a non-zero exit and a hint on stderr', async () => {
    const result = await cli(['apps', 'publish', '--name', 'x', '--workflow', path.join(REPO_ROOT, 'examples/workflows/ui-format-example.json'), '--json'], env);
    expect(result.code).to.not.equal(0);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.contain('Export (API)');
  });
});
