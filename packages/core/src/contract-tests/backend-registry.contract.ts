/** The contract of BackendRegistry (and of the audit entries its changes write). Every adapter runs it. */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { AuditEntry } from '../domain/audit.js';
import type { Backend } from '../domain/backend.js';
import type { AuditLog } from '../ports/audit-log.js';
import type { BackendRegistry } from '../ports/backend-registry.js';

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 321);

function aBackend(overrides: Partial<Backend> = {}): Backend {
  return {
    id: randomUUID(),
    url: `http://gpu-${randomUUID().slice(0, 8)}:8188`,
    source: 'api',
    state: 'active',
    labels: {},
    depth: null,
    auth: null,
    retiring: false,
    createdAt: new Date(T),
    expiresAt: null,
    reachable: null,
    comfyuiVersion: null,
    capabilitiesHash: null,
    lastSeenAt: null,
    ...overrides,
  };
}

function anEntry(action: string, target: string, at = T): AuditEntry {
  return { id: randomUUID(), at: new Date(at), actor: 'token:t-1', action, target, requestId: 'req-1' };
}

/** `audit` is the audit trail the registry's changes write to. */
export function describeBackendRegistryContract(name: string, setup: () => Promise<{ subject: BackendRegistry; audit: AuditLog; teardown?: () => Promise<void> }>): void {
  describe(`BackendRegistry contract: ${name}`, () => {
    let registry: BackendRegistry;
    let audit: AuditLog;
    let teardown: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      const made = await setup();
      registry = made.subject;
      audit = made.audit;
      teardown = made.teardown;
    });
    afterEach(async () => teardown?.());
    const trailOf = async (target: string) => (await audit.list({ limit: 100 })).entries.filter((e) => e.target === target);

    it('round-trips every field, to the millisecond, by id and by URL', async () => {
      const b = aBackend({
        source: 'registered',
        state: 'draining',
        labels: { gpu: 'a100', 'zone/x': 'eu-1' },
        depth: 3,
        auth: { kind: 'header', name: 'Authorization', value: 'Bearer sëcret' },
        retiring: true,
        expiresAt: new Date(T + 60_000),
        reachable: true,
        comfyuiVersion: '0.3.64',
        capabilitiesHash: 'abc123',
        lastSeenAt: new Date(T + 1),
      });
      expect(await registry.create(b)).to.equal(true);
      expect(await registry.get(b.id)).to.deep.equal(b);
      expect(await registry.getByUrl(b.url)).to.deep.equal(b);
      const basic = aBackend({ auth: { kind: 'basic', user: 'u', password: 'p:w' } });
      await registry.create(basic);
      expect((await registry.get(basic.id))?.auth).to.deep.equal(basic.auth);
    });

    it('refuses a second backend with the same URL and keeps the first', async () => {
      const b = aBackend();
      await registry.create(b);
      expect(await registry.create(aBackend({ url: b.url, source: 'static' }))).to.equal(false);
      expect(await registry.list()).to.deep.equal([b]);
    });

    it('lists every backend, oldest first', async () => {
      const later = aBackend({ createdAt: new Date(T + 1) });
      const first = aBackend();
      await registry.create(later);
      await registry.create(first);
      expect((await registry.list()).map((b) => b.id)).to.deep.equal([first.id, later.id]);
    });

    it('updates under a guard on the state, and changes nothing when it fails', async () => {
      const b = aBackend();
      await registry.create(b);
      expect(await registry.update(b.id, { state: 'drained' }, ['draining'])).to.equal(null);
      const draining = await registry.update(b.id, { state: 'draining', labels: { a: 'b' }, depth: 2, expiresAt: new Date(T + 5) }, ['active']);
      expect(draining).to.deep.equal({ ...b, state: 'draining', labels: { a: 'b' }, depth: 2, expiresAt: new Date(T + 5) });
      expect(await registry.get(b.id)).to.deep.equal(draining);
      expect(await registry.update(b.id, { auth: null, depth: null, retiring: true })).to.deep.equal({ ...draining, retiring: true, depth: null });
      const seen = { reachable: false, comfyuiVersion: '0.3.65', capabilitiesHash: 'h', lastSeenAt: new Date(T + 9) };
      expect(await registry.update(b.id, seen)).to.deep.include(seen);
      expect(await registry.update(randomUUID(), { state: 'active' })).to.equal(null);
    });

    it('deletes a backend once', async () => {
      const b = aBackend();
      await registry.create(b);
      expect(await registry.delete(b.id)).to.equal(true);
      expect(await registry.delete(b.id)).to.equal(false);
      expect(await registry.get(b.id)).to.equal(null);
      expect(await registry.getByUrl(b.url)).to.equal(null);
    });
    it('writes the audit entries of a change with it, and none for a change that did not happen', async () => {
      const b = aBackend();
      const add = anEntry('backend.add', b.id);
      expect(await registry.create(b, [add])).to.equal(true);
      expect(await registry.create(aBackend({ url: b.url }), [anEntry('backend.add', b.id, T + 1)])).to.equal(false);
      const drain = anEntry('backend.drain', b.id, T + 2);
      await registry.update(b.id, { state: 'draining' }, undefined, [drain]);
      // A guard that fails, or a backend that does not exist, records nothing.
      expect(await registry.update(b.id, { state: 'drained' }, ['active'], [anEntry('backend.activate', b.id, T + 3)])).to.equal(null);
      const gone = randomUUID();
      expect(await registry.update(gone, { state: 'active' }, undefined, [anEntry('backend.activate', gone)])).to.equal(null);
      expect(await registry.delete(gone, [anEntry('backend.remove', gone)])).to.equal(false);
      const remove = anEntry('backend.remove', b.id, T + 4);
      expect(await registry.delete(b.id, [remove])).to.equal(true);
      expect(await trailOf(b.id)).to.deep.equal([remove, drain, add]);
      expect(await trailOf(gone)).to.deep.equal([]);
    });
  });
}
