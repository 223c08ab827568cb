/** The contract of AdminTokenRepository (and of the audit entries its changes write). Every adapter runs it. */
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AdminToken } from '../domain/admin-token.js';
import type { AuditEntry } from '../domain/audit.js';
import type { AdminTokenRepository } from '../ports/admin-token-repository.js';
import type { AuditLog } from '../ports/audit-log.js';

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 789);
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function aPrefix(): string {
  return [...randomBytes(10)].map((b) => BASE62[b % 62]).join('');
}

function aToken(overrides: Partial<AdminToken> = {}): AdminToken {
  return {
    id: randomUUID(),
    name: 'billing site',
    scopes: ['accounts', 'usage'],
    prefix: aPrefix(),
    secretHash: randomBytes(32).toString('hex'),
    createdAt: new Date(T),
    lastUsedAt: null,
    revokedAt: null,
    ...overrides,
  };
}

function anEntry(action: string, target: string, at = T): AuditEntry {
  return { id: randomUUID(), at: new Date(at), actor: 'cli', action, target, requestId: null };
}

export function describeAdminTokenRepositoryContract(
  name: string,
  setup: () => Promise<{ subject: AdminTokenRepository; audit: AuditLog; teardown?: () => Promise<void> }>,
): void {
  describe(`AdminTokenRepository contract: ${name}`, () => {
    let tokens: AdminTokenRepository;
    let audit: AuditLog;
    let teardown: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      const made = await setup();
      tokens = made.subject;
      audit = made.audit;
      teardown = made.teardown;
    });
    afterEach(async () => teardown?.());

    const trail = async () => (await audit.list({ limit: 100 })).entries;

    it('returns null for an unknown id or prefix, and lists nothing', async () => {
      expect(await tokens.get(randomUUID())).to.equal(null);
      expect(await tokens.findByPrefix(aPrefix())).to.equal(null);
      expect(await tokens.list()).to.deep.equal([]);
    });

    it('round-trips every field by id and by exact prefix, and writes the audit entry with it', async () => {
      const token = aToken({ prefix: 'AbCdEfGhIj', scopes: ['*', 'backends:register'], name: 'GPU “rack” 🚀' });
      const entry = anEntry('admin_token.create', token.id);
      await tokens.create(token, entry);
      expect(await tokens.get(token.id)).to.deep.equal(token);
      expect(await tokens.findByPrefix('AbCdEfGhIj')).to.deep.equal(token);
      expect(await tokens.findByPrefix('abcdefghij'), 'prefixes are case-sensitive').to.equal(null);
      expect(await trail()).to.deep.equal([entry]);
    });

    it('refuses a second token with the same prefix, keeps the first, and writes no entry for it', async () => {
      const token = aToken();
      await tokens.create(token, anEntry('admin_token.create', token.id));
      const second = aToken({ prefix: token.prefix });
      const error = await tokens.create(second, anEntry('admin_token.create', second.id)).then(() => null, (e: unknown) => e);
      expect(error, 'a duplicate prefix is refused').to.not.equal(null);
      expect(await tokens.get(second.id)).to.equal(null);
      expect((await trail()).map((e) => e.target)).to.deep.equal([token.id]);
    });

    it('lists every token oldest first, revoked ones included', async () => {
      const [first, second] = [aToken({ createdAt: new Date(1_000) }), aToken({ createdAt: new Date(2_000) })];
      await tokens.create(second, anEntry('admin_token.create', second.id));
      await tokens.create(first, anEntry('admin_token.create', first.id));
      await tokens.revoke(first.id, new Date(3_000), anEntry('admin_token.revoke', first.id));
      const listed = await tokens.list();
      expect(listed.map((t) => t.id)).to.deep.equal([first.id, second.id]);
      expect(listed[0]?.revokedAt?.getTime()).to.equal(3_000);
    });

    it('revokes with its entry, keeps the earliest revocation time, and writes nothing for an unknown id', async () => {
      const token = aToken();
      await tokens.create(token, anEntry('admin_token.create', token.id));
      const revoke = anEntry('admin_token.revoke', token.id, T + 10);
      expect(await tokens.revoke(token.id, new Date(T + 10), revoke)).to.deep.equal({ ...token, revokedAt: new Date(T + 10) });
      expect((await tokens.revoke(token.id, new Date(T + 20), anEntry('admin_token.revoke', token.id, T + 20)))?.revokedAt?.getTime()).to.equal(T + 10);
      expect(await tokens.revoke(randomUUID(), new Date(T), anEntry('admin_token.revoke', 'nobody'))).to.equal(null);
      expect((await trail()).map((e) => e.target)).to.not.include('nobody');
      expect((await tokens.findByPrefix(token.prefix))?.revokedAt?.getTime()).to.equal(T + 10);
    });

    it('records the last use, never moving it back', async () => {
      const token = aToken();
      await tokens.create(token, anEntry('admin_token.create', token.id));
      await tokens.touch(token.id, new Date(T + 5_000));
      await tokens.touch(token.id, new Date(T + 1_000));
      expect((await tokens.get(token.id))?.lastUsedAt?.getTime()).to.equal(T + 5_000);
      await tokens.touch(randomUUID(), new Date(T));
    });
  });
}

/** The contract of AuditLog's reads; `record` writes an entry as a repository's change would. */
export function describeAuditLogContract(
  name: string,
  setup: () => Promise<{ subject: AuditLog; record: (entry: AuditEntry) => Promise<void>; teardown?: () => Promise<void> }>,
): void {
  describe(`AuditLog contract: ${name}`, () => {
    let audit: AuditLog;
    let record: (entry: AuditEntry) => Promise<void>;
    let teardown: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      const made = await setup();
      audit = made.subject;
      record = made.record;
      teardown = made.teardown;
    });
    afterEach(async () => teardown?.());

    it('lists entries newest first, every field kept, in pages that end with a null cursor', async () => {
      const entries = [0, 1, 2, 3, 4].map((i) => ({ ...anEntry(`account.update`, randomUUID(), T + i), actor: `token:${randomUUID()}`, requestId: randomUUID() }));
      const sameInstant = { ...anEntry('key.revoke', randomUUID(), T + 4) };
      for (const e of [...entries, sameInstant]) await record(e);
      const seen: AuditEntry[] = [];
      let cursor: string | null = null;
      do {
        const page = await audit.list({ limit: 4, after: cursor });
        seen.push(...page.entries);
        cursor = page.nextCursor;
      } while (cursor !== null);
      const expected = [...entries, sameInstant].sort((a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : -1));
      expect(seen).to.deep.equal(expected);
    });

    it('answers an empty page for an empty trail, and refuses a cursor it did not issue', async () => {
      expect(await audit.list({ limit: 10 })).to.deep.equal({ entries: [], nextCursor: null });
      const error = await audit.list({ limit: 10, after: 'not-a-cursor' }).then(() => null, (e: unknown) => e);
      expect((error as { code?: string } | null)?.code).to.equal('INVALID_REQUEST');
    });
  });
}
