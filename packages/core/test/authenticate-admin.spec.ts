import { expect } from 'chai';
import { ADMIN_GENERAL_PER_MINUTE, CLI_AUTHOR, scopeAllows } from '@runload/core';
import { codeOf, makeWorld } from './fixture.js';

describe('AuthenticateAdmin', () => {
  it('accepts a valid admin token, and refuses a missing, malformed, tampered or API key in its place', async () => {
    const w = await makeWorld();
    const { token, secret } = await w.api.adminTokens.create('billing', ['accounts'], CLI_AUTHOR);
    const user = await w.principal();
    const auth = (t: string | null) => codeOf(w.api.authenticateAdmin.execute(t, '10.0.0.1'));
    expect((await w.api.authenticateAdmin.execute(secret, '10.0.0.1')).token.id).to.equal(token.id);
    expect(await auth(null)).to.equal('MISSING_ADMIN_TOKEN');
    expect(await auth('')).to.equal('MISSING_ADMIN_TOKEN');
    expect(await auth('rladm_nonsense')).to.equal('INVALID_ADMIN_TOKEN');
    expect(await auth(secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A'))).to.equal('INVALID_ADMIN_TOKEN');
    expect(await auth(user.apiKey), 'an API key is no admin token').to.equal('INVALID_ADMIN_TOKEN');
    expect(await codeOf(w.api.authenticate.execute(secret, '10.0.0.1')), 'an admin token is no API key').to.equal('INVALID_API_KEY');
  });

  it('refuses a revoked token within one second, and records the creation and revocation in the audit trail', async () => {
    const w = await makeWorld();
    const { token, secret } = await w.api.adminTokens.create('support', ['read'], CLI_AUTHOR);
    expect(await codeOf(w.api.authenticateAdmin.execute(secret, 'a'))).to.equal('OK');
    await w.api.adminTokens.revoke(token.id, CLI_AUTHOR);
    w.clock.advance(1000);
    expect(await codeOf(w.api.authenticateAdmin.execute(secret, 'a'))).to.equal('INVALID_ADMIN_TOKEN');
    const trail = (await w.ports.auditLog.list({ limit: 10 })).entries;
    expect(trail.map((e) => [e.actor, e.action, e.target])).to.deep.equal([
      ['cli', 'admin_token.revoke', token.id],
      ['cli', 'admin_token.create', token.id],
    ]);
    expect(JSON.stringify(trail)).to.not.include(secret.split('_')[2]);
  });

  it('counts failures in the address window and refuses the address once it is spent', async () => {
    const w = await makeWorld({ limits: { auth_failures_per_minute: 2 } });
    const { secret } = await w.api.adminTokens.create('billing', ['*'], CLI_AUTHOR);
    expect(await codeOf(w.api.authenticateAdmin.execute('rladm_x_y', '10.0.0.9'))).to.equal('INVALID_ADMIN_TOKEN');
    expect(await codeOf(w.api.authenticateAdmin.execute(null, '10.0.0.9'))).to.equal('MISSING_ADMIN_TOKEN');
    expect(await codeOf(w.api.authenticateAdmin.execute('rladm_x_y', '10.0.0.9'))).to.equal('RATE_LIMITED');
    expect(await codeOf(w.api.authenticateAdmin.execute(secret, '10.0.0.9')), 'a valid token still passes').to.equal('OK');
  });

  it("gives each token its own window of 600 requests a minute", async () => {
    const w = await makeWorld();
    const a = await w.api.adminTokens.create('a', ['*'], CLI_AUTHOR);
    const b = await w.api.adminTokens.create('b', ['*'], CLI_AUTHOR);
    const principalA = await w.api.authenticateAdmin.execute(a.secret, 'x');
    for (let i = 0; i < ADMIN_GENERAL_PER_MINUTE; i += 1) await w.api.authenticateAdmin.consume(principalA);
    expect(await codeOf(w.api.authenticateAdmin.consume(principalA))).to.equal('RATE_LIMITED');
    const principalB = await w.api.authenticateAdmin.execute(b.secret, 'x');
    expect((await w.api.authenticateAdmin.consume(principalB)).remaining).to.equal(ADMIN_GENERAL_PER_MINUTE - 1);
  });

  it('notes when a token was last used', async () => {
    const w = await makeWorld();
    const { token, secret } = await w.api.adminTokens.create('billing', ['usage'], CLI_AUTHOR);
    expect((await w.ports.adminTokens.get(token.id))?.lastUsedAt).to.equal(null);
    await w.api.authenticateAdmin.execute(secret, 'x');
    expect((await w.ports.adminTokens.get(token.id))?.lastUsedAt?.getTime()).to.equal(w.clock.nowMs());
  });

  it('refuses a scope the token lacks, naming it', async () => {
    const w = await makeWorld();
    const { secret } = await w.api.adminTokens.create('billing', ['usage'], CLI_AUTHOR);
    const principal = await w.api.authenticateAdmin.execute(secret, 'x');
    expect(() => w.api.authenticateAdmin.requireScope(principal, 'usage', true)).to.not.throw();
    expect(() => w.api.authenticateAdmin.requireScope(principal, 'accounts', false)).to.throw('"accounts"');
  });

  it('refuses an admin token without a name or scope, or with an unknown scope', async () => {
    const w = await makeWorld();
    expect(await codeOf(w.api.adminTokens.create('', ['*'], CLI_AUTHOR))).to.equal('INVALID_REQUEST');
    expect(await codeOf(w.api.adminTokens.create('x', [], CLI_AUTHOR))).to.equal('INVALID_REQUEST');
    expect(await codeOf(w.api.adminTokens.create('x', ['accounts', 'root'], CLI_AUTHOR))).to.equal('INVALID_REQUEST');
    expect(await codeOf(w.api.adminTokens.revoke('00000000-0000-4000-8000-000000000000', CLI_AUTHOR))).to.equal('ADMIN_TOKEN_NOT_FOUND');
  });
});

describe('admin scopes', () => {
  it('"*" allows all, a scope its sub-scopes, and "read" every read but no change', () => {
    expect(scopeAllows(['*'], 'backends:register', false)).to.equal(true);
    expect(scopeAllows(['backends'], 'backends:register', false)).to.equal(true);
    expect(scopeAllows(['backends:register'], 'backends', false)).to.equal(false);
    expect(scopeAllows(['read'], 'accounts', true)).to.equal(true);
    expect(scopeAllows(['read'], 'accounts', false)).to.equal(false);
    expect(scopeAllows(['usage', 'apps'], 'apps', false)).to.equal(true);
    expect(scopeAllows(['usage'], 'accounts', true)).to.equal(false);
  });
});
