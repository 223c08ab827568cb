import { expect } from 'chai';
import { codeOf, makeWorld } from './fixture.js';

describe('Authenticate', () => {
  it('accepts a valid key and names its account', async () => {
    const w = await makeWorld();
    const p = await w.principal('plus');
    const who = await w.api.authenticate.execute(p.apiKey, '10.0.0.1');
    expect(who.account.id).to.equal(p.account.id);
    expect(who.account.tier).to.equal('plus');
  });

  it('refuses a missing, malformed, unknown or tampered key', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    const auth = (k: string | null) => codeOf(w.api.authenticate.execute(k, '10.0.0.1'));
    expect(await auth(null)).to.equal('MISSING_API_KEY');
    expect(await auth('')).to.equal('MISSING_API_KEY');
    expect(await auth('nonsense')).to.equal('INVALID_API_KEY');
    expect(await auth(p.apiKey.slice(0, -1) + (p.apiKey.endsWith('A') ? 'B' : 'A'))).to.equal('INVALID_API_KEY');
    expect(await auth(p.apiKey.replace(/^rl_/, 'xx_'))).to.equal('INVALID_API_KEY');
  });

  it('makes revocation and suspension effective within one second', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    expect(await codeOf(w.api.authenticate.execute(p.apiKey, 'a'))).to.equal('OK');
    await w.api.accounts.suspend(p.account.id);
    w.clock.advance(1000);
    expect(await codeOf(w.api.authenticate.execute(p.apiKey, 'a'))).to.equal('ACCOUNT_SUSPENDED');
    await w.api.accounts.unsuspend(p.account.id);
    expect(await codeOf(w.api.authenticate.execute(p.apiKey, 'a'))).to.equal('OK');
    await w.api.apiKeys.revoke(p.keyId);
    w.clock.advance(1000);
    expect(await codeOf(w.api.authenticate.execute(p.apiKey, 'a'))).to.equal('INVALID_API_KEY');
  });

  it('limits failed attempts per client address, and the window resets at the minute', async () => {
    const w = await makeWorld({ limits: { auth_failures_per_minute: 3 } });
    const p = await w.principal();
    const codes: string[] = [];
    for (let i = 0; i < 4; i += 1) codes.push(await codeOf(w.api.authenticate.execute('rl_bad', '10.0.0.9')));
    expect(codes).to.deep.equal(['INVALID_API_KEY', 'INVALID_API_KEY', 'INVALID_API_KEY', 'RATE_LIMITED']);
    expect(await codeOf(w.api.authenticate.execute('rl_bad', '10.0.0.8'))).to.equal('INVALID_API_KEY');
    expect(await codeOf(w.api.authenticate.execute(p.apiKey, '10.0.0.9'))).to.equal('OK');
    w.clock.advance(60_000);
    expect(await codeOf(w.api.authenticate.execute('rl_bad', '10.0.0.9'))).to.equal('INVALID_API_KEY');
  });

  it("counts a suspended account's key in the address's failed-authentication window", async () => {
    const w = await makeWorld({ limits: { auth_failures_per_minute: 3 } });
    const p = await w.principal();
    await w.api.accounts.suspend(p.account.id);
    const codes: string[] = [];
    for (let i = 0; i < 4; i += 1) codes.push(await codeOf(w.api.authenticate.execute(p.apiKey, '10.0.0.7')));
    expect(codes).to.deep.equal(['ACCOUNT_SUSPENDED', 'ACCOUNT_SUSPENDED', 'ACCOUNT_SUSPENDED', 'RATE_LIMITED']);
    expect(await codeOf(w.api.authenticate.execute(p.apiKey, '10.0.0.6')), 'another address has its own window').to.equal('ACCOUNT_SUSPENDED');
  });
});
