/**
 * The pool's use cases on the in-memory ports: the operator's commands, a GPU machine's
 * registration and its lapse, drains that end, DNS names followed.
 */
import { expect } from 'chai';
import { CoreError, DnsDiscovery, ManageBackends, newQueuedRun, PoolFollower, PoolOverview, RunWorkflows, type Run, type Workflow } from '@runload/core';
import { createInMemoryPorts, FakeClock, InMemoryExecutor, InMemoryNameResolver, ManualTimers, SequentialIds } from '@runload/core/testing';

function world() {
  const clock = new FakeClock(Date.UTC(2026, 5, 1));
  const ports = createInMemoryPorts({ clock, ids: new SequentialIds() });
  const manage = new ManageBackends(ports.backends, ports.runs, clock, ports.ids);
  const follower = new PoolFollower({ registry: ports.backends, runs: ports.runs, executor: ports.executor, clock, timers: new ManualTimers(clock), log: () => undefined });
  /** A run the backend holds (placed there, not finished). */
  const hold = async (url: string): Promise<Run> => {
    const run = { ...newQueuedRun({ id: ports.ids.uuid(), accountId: 'a', appVersionId: 'v', createdAt: clock.now(), inputs: {}, webhook: null }), backendId: url, status: 'running' as const };
    await ports.runs.create(run);
    return run;
  };
  const urls = async () => (await manage.list()).map((v) => [v.backend.url, v.backend.state]);
  return { clock, ports, manage, follower, hold, urls };
}

const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => (CoreError.is(e) ? e.code : e));

describe('the pool: operator commands', () => {
  it('adds a backend with a normalised URL once, and refuses credentials in it, a query, and a second add', async () => {
    const { manage } = world();
    const added = await manage.add({ url: 'http://GPU-1.example:8188/', labels: { gpu: 'a100' }, depth: 2 });
    expect(added.backend).to.deep.include({ url: 'http://gpu-1.example:8188', source: 'api', state: 'active', labels: { gpu: 'a100' }, depth: 2 });
    expect(await failure(manage.add({ url: 'http://gpu-1.example:8188' }))).to.equal('BACKEND_EXISTS');
    expect(await failure(manage.add({ url: 'http://u:p@gpu-2:8188' }))).to.equal('INVALID_REQUEST');
    expect(await failure(manage.add({ url: 'http://gpu-2:8188/?x=1' }))).to.equal('INVALID_REQUEST');
    expect(await failure(manage.add({ url: 'gpu-2:8188' }))).to.equal('INVALID_REQUEST');
    expect(await failure(manage.add({ url: 'http://gpu-2:8188', depth: 0 }))).to.equal('INVALID_REQUEST');
  });

  it('drains a backend, which ends drained once it holds nothing, and activates it again', async () => {
    const { manage, follower, hold, urls, ports } = world();
    const { backend } = await manage.add({ url: 'http://gpu-1:8188' });
    const run = await hold(backend.url);
    expect((await manage.drain(backend.id)).backend.state).to.equal('draining');
    await follower.refresh();
    expect(await urls(), 'it still holds a run').to.deep.equal([[backend.url, 'draining']]);
    await ports.runs.update(run.id, { status: 'succeeded' });
    await follower.refresh();
    expect(await urls()).to.deep.equal([[backend.url, 'drained']]);
    expect((await manage.activate(backend.url)).backend.state).to.equal('active');
  });

  it('removes a backend that holds nothing; one that holds runs only with force', async () => {
    const { manage, hold, urls } = world();
    const { backend } = await manage.add({ url: 'http://gpu-1:8188' });
    await hold(backend.url);
    expect(await failure(manage.remove(backend.id))).to.equal('BACKEND_BUSY');
    expect((await manage.remove(backend.id, { force: true })).held).to.equal(1);
    expect(await urls()).to.deep.equal([]);
    expect(await failure(manage.remove(backend.id))).to.equal('BACKEND_NOT_FOUND');
  });

  it('writes the configured servers once: a drain of one survives a restart', async () => {
    const { manage } = world();
    const first = await manage.ensure('http://gpu-1:8188', 'static', null);
    await manage.drain(first.id);
    const again = await manage.ensure('http://gpu-1:8188', 'static', null);
    expect([again.id, again.state, again.source]).to.deep.equal([first.id, 'draining', 'static']);
  });
});

describe('the pool: a GPU machine registers itself with a lease', () => {
  it('registers (created), renews (not created, later expiry), and refuses a bad lease or a URL of another source', async () => {
    const { manage, clock } = world();
    const first = await manage.register({ url: 'http://10.0.0.5:8188', labels: { gpu: 'l4' } });
    expect(first.created).to.equal(true);
    expect(first.view.backend.expiresAt?.getTime()).to.equal(clock.nowMs() + 60_000);
    clock.advance(30_000);
    const renewed = await manage.register({ url: 'http://10.0.0.5:8188', ttlSeconds: 120 });
    expect([renewed.created, renewed.view.backend.expiresAt?.getTime(), renewed.view.backend.labels]).to.deep.equal([false, clock.nowMs() + 120_000, { gpu: 'l4' }]);
    expect(await failure(manage.register({ url: 'http://10.0.0.5:8188', ttlSeconds: 5 }))).to.equal('INVALID_REQUEST');
    await manage.add({ url: 'http://gpu-1:8188' });
    expect(await failure(manage.register({ url: 'http://gpu-1:8188' }))).to.equal('BACKEND_EXISTS');
  });

  it('leaves the pool when it stops renewing: removed once the lease lapsed and it holds nothing', async () => {
    const { manage, follower, clock, hold, urls, ports } = world();
    await manage.register({ url: 'http://10.0.0.5:8188', ttlSeconds: 10 });
    const held = await manage.register({ url: 'http://10.0.0.6:8188', ttlSeconds: 10 });
    const run = await hold(held.view.backend.url);
    clock.advance(9_000);
    await follower.refresh();
    expect((await urls()).length, 'within the lease').to.equal(2);
    clock.advance(2_000);
    expect((await manage.list()).every((v) => v.lapsed)).to.equal(true);
    await follower.refresh();
    expect(await urls(), 'the one holding a run stays until its run is settled').to.deep.equal([['http://10.0.0.6:8188', 'active']]);
    await ports.runs.update(run.id, { status: 'failed' });
    await follower.refresh();
    expect(await urls()).to.deep.equal([]);
  });

  it('deregisters: drained, then removed when empty; registering again brings it back', async () => {
    const { manage, follower, urls } = world();
    await manage.register({ url: 'http://10.0.0.5:8188' });
    expect((await manage.deregister('http://10.0.0.5:8188')).backend).to.deep.include({ state: 'draining', retiring: true });
    const again = await manage.register({ url: 'http://10.0.0.5:8188' });
    expect(again.view.backend).to.deep.include({ state: 'active', retiring: false });
    await manage.deregister('http://10.0.0.5:8188');
    await follower.refresh();
    expect(await urls()).to.deep.equal([]);
  });
});

describe('the pool at a glance', () => {
  it("tells the waiting runs no backend can run (their version's workflow needs what none has) from those waiting for room", async () => {
    const { clock, ports, manage } = world();
    const publish = async (id: string, workflow: Workflow) =>
      ports.appVersions.create({ id, appId: id, name: id, workflow, inputs: [], createdAt: clock.now(), deletedAt: null });
    await publish('plain', { '1': { class_type: 'SaveImage', inputs: {} } });
    await publish('fancy', { '1': { class_type: 'FancyUpscaler', inputs: {} }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0] } } });
    (ports.executor as InMemoryExecutor).missing.add('FancyUpscaler');
    for (const appVersionId of ['fancy', 'plain', 'fancy']) {
      await ports.runs.create(newQueuedRun({ id: ports.ids.uuid(), accountId: 'a', appVersionId, createdAt: clock.now(), inputs: {} }));
    }
    const report = await new PoolOverview(manage, ports.runs, ports.executor, new RunWorkflows(ports.appVersions)).report(clock.now());
    expect(report).to.deep.include({ queued: 3, waitingForCapacity: 1, waitingForCapability: 2 });
  });
});

describe('the pool: DNS names followed', () => {
  it('adds every address of a name, drains and removes one that disappears, and keeps the pool when the resolver fails', async () => {
    const { manage, follower, ports, clock, urls } = world();
    const resolver = new InMemoryNameResolver();
    const dns = new DnsDiscovery(manage, ports.backends, resolver, new ManualTimers(clock), { names: [{ name: 'comfy.gpu.svc', port: 8188 }], auth: null, refreshMs: 10_000, log: () => undefined });
    resolver.names.set('comfy.gpu.svc', ['10.1.0.1', '10.1.0.2', 'fd00::1']);
    await dns.refresh();
    expect((await manage.list()).map((v) => [v.backend.url, v.backend.source])).to.have.deep.members([
      ['http://10.1.0.1:8188', 'dns'],
      ['http://10.1.0.2:8188', 'dns'],
      ['http://[fd00::1]:8188', 'dns'],
    ]);
    resolver.names.set('comfy.gpu.svc', ['10.1.0.2']);
    await dns.refresh();
    expect((await manage.list()).filter((v) => v.backend.retiring).map((v) => v.backend.state)).to.deep.equal(['draining', 'draining']);
    await follower.refresh();
    expect(await urls()).to.deep.equal([['http://10.1.0.2:8188', 'active']]);
    resolver.failing = true;
    await dns.refresh();
    expect(await urls(), 'a failed lookup changes nothing').to.deep.equal([['http://10.1.0.2:8188', 'active']]);
    resolver.failing = false;
    resolver.names.set('comfy.gpu.svc', ['10.1.0.2', '10.1.0.3']);
    await dns.refresh();
    expect((await urls()).map(([u]) => u)).to.deep.equal(['http://10.1.0.2:8188', 'http://10.1.0.3:8188']);
  });
});
