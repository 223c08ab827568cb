/** `admin-tokens create|list|revoke`: the operator makes the admin API's credentials, and a revoked one stops working on a running server. */
import { expect } from 'chai';
import { cli, cliJson, startServerProcess, tempDataDir, type ServerProcess } from './processes.js';
import { waitFor } from '@runload/core/testing';

interface ListedToken {
  token_id: string;
  name: string;
  scopes: string[];
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

describe('CLI admin-tokens', function () {
  this.timeout(90_000);
  const data = tempDataDir();
  const env = { RUNLOAD_DATA_DIR: data.dir, RUNLOAD_COMFYUI_URLS: '', RUNLOAD_LOG_LEVEL: 'silent' };
  let server: ServerProcess | undefined;
  after(async () => {
    await server?.stop('SIGTERM');
    data.remove();
  });

  it('creates a token shown once, lists it without its secret, and revokes it for a running server within a second', async () => {
    const created = await cliJson<{ token_id: string; token: string; name: string; scopes: string[] }>(
      ['admin-tokens', 'create', '--name', 'billing site', '--scopes', 'accounts,usage'],
      env,
    );
    expect(created.token).to.match(/^rladm_[0-9A-Za-z]{10}_[0-9A-Za-z]{43}$/);
    expect(created).to.include({ name: 'billing site' });
    expect(created.scopes).to.deep.equal(['accounts', 'usage']);

    server = await startServerProcess(env);
    const tiers = () => fetch(`${server!.url}/api/v1/admin/tiers`, { headers: { authorization: `Bearer ${created.token}` } });
    expect((await tiers()).status).to.equal(200);

    const listed = await cliJson<{ tokens: ListedToken[] }>(['admin-tokens', 'list'], env);
    expect(listed.tokens).to.have.length(1);
    const [token] = listed.tokens as [ListedToken];
    expect(token).to.include({ token_id: created.token_id, name: 'billing site', prefix: created.token.split('_')[1], revoked_at: null });
    expect(token.last_used_at, 'the request above used it').to.be.a('string');
    expect(JSON.stringify(listed)).not.to.contain(created.token.split('_')[2]);

    expect(await cliJson(['admin-tokens', 'revoke', created.token_id], env)).to.deep.equal({ token_id: created.token_id, revoked: true });
    await waitFor(async () => (await tiers()).status === 401, 'the revoked token to be refused', { timeoutMs: 1_000, intervalMs: 50 });
  });

  it('refuses an unknown scope and an unknown token id with one line on stderr', async () => {
    const bad = await cli(['admin-tokens', 'create', '--name', 'x', '--scopes', 'root', '--json'], env);
    expect(bad.code).to.equal(1);
    expect(JSON.parse(bad.stderr.trim())).to.deep.include({ error: { code: 'INVALID_REQUEST', message: 'Unknown scope "root": use accounts, apps, backends, backends:register, usage, read, *' } });
    const unknown = await cli(['admin-tokens', 'revoke', '00000000-0000-4000-8000-000000000000', '--json'], env);
    expect(unknown.code).to.equal(1);
    expect(JSON.parse(unknown.stderr.trim()).error.code).to.equal('ADMIN_TOKEN_NOT_FOUND');
  });
});
