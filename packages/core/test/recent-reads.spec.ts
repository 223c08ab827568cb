import { expect } from 'chai';
import { AUTH_CACHE_MS } from '@runload/core';
import { codeOf, makeWorld } from './fixture.js';

describe('Recent reads on the request paths', () => {
  it('asks the key store once for many requests in flight with one key, and counts every failure', async () => {
    const w = await makeWorld({ limits: { auth_failures_per_minute: 3 } });
    const p = await w.principal();
    let lookups = 0;
    const findByPrefix = w.ports.apiKeys.findByPrefix.bind(w.ports.apiKeys);
    w.ports.apiKeys.findByPrefix = (prefix: string) => {
      lookups += 1;
      return findByPrefix(prefix);
    };
    const who = await Promise.all(Array.from({ length: 20 }, () => w.api.authenticate.execute(p.apiKey, 'a')));
    expect(who.every((x) => x.account.id === p.account.id)).to.equal(true);
    expect(lookups).to.equal(1);

    // Four requests with one bad key share a lookup, but each counts: the fourth is refused.
    const bad = `${p.apiKey.slice(0, -1)}${p.apiKey.endsWith('A') ? 'B' : 'A'}`;
    const codes = await Promise.all(Array.from({ length: 4 }, () => codeOf(w.api.authenticate.execute(bad, 'b'))));
    expect(codes.filter((c) => c === 'INVALID_API_KEY')).to.have.length(3);
    expect(codes.filter((c) => c === 'RATE_LIMITED')).to.have.length(1);
  });

  it('sees an app version deleted by another process within one second, and one deleted here at once', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    const create = () => codeOf(w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } }));
    expect(await create()).to.equal('OK');

    await w.ports.appVersions.markDeleted(w.app.id, w.clock.now()); // as the CLI would, beside the server
    w.clock.advance(AUTH_CACHE_MS);
    expect(await create()).to.equal('APP_DELETED');

    const second = await w.api.apps.publish({ name: 'again', workflow: w.app.workflow });
    expect(await codeOf(w.api.describeAppVersion.execute(second.id))).to.equal('OK');
    await w.api.apps.delete(second.id);
    expect(await codeOf(w.api.describeAppVersion.execute(second.id))).to.equal('APP_DELETED');
  });

  it('finds an app version published just after a request for it missed', async () => {
    const w = await makeWorld();
    const id = '00000000-0000-4000-8000-00000000abcd';
    expect(await codeOf(w.api.describeAppVersion.execute(id))).to.equal('APP_VERSION_NOT_FOUND');
    await w.ports.appVersions.create({ ...w.app, id });
    expect(await codeOf(w.api.describeAppVersion.execute(id))).to.equal('OK');
  });
});
