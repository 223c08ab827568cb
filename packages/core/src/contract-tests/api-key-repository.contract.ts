/** The contract of ApiKeyRepository. Every adapter runs it. */
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import type { ApiKey } from '../domain/api-key.js';
import type { ApiKeyRepository } from '../ports/api-key-repository.js';
import { STORAGE_CONTRACT_PARENTS } from './run-repository.contract.js';

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 456);
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function aPrefix(): string {
  return [...randomBytes(10)].map((b) => BASE62[b % 62]).join('');
}

function aKey(overrides: Partial<ApiKey> = {}): ApiKey {
  return {
    id: randomUUID(),
    accountId: STORAGE_CONTRACT_PARENTS.accountIds[0],
    prefix: aPrefix(),
    secretHash: randomBytes(32).toString('hex'),
    name: null,
    createdAt: new Date(T),
    lastUsedAt: null,
    revokedAt: null,
    ...overrides,
  };
}

export function describeApiKeyRepositoryContract(
  name: string,
  setup: () => Promise<{ subject: ApiKeyRepository; teardown?: () => Promise<void> }>,
): void {
  describe(`ApiKeyRepository contract: ${name}`, () => {
    let keys: ApiKeyRepository;
    let teardown: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      const made = await setup();
      keys = made.subject;
      teardown = made.teardown;
    });
    afterEach(async () => teardown?.());

    it('returns null for an unknown id or prefix', async () => {
      expect(await keys.get(randomUUID())).to.equal(null);
      expect(await keys.findByPrefix(aPrefix())).to.equal(null);
    });

    it('finds a key by id and by its exact prefix', async () => {
      const key = aKey({ prefix: 'AbCdEfGhIj' });
      await keys.create(key);
      await keys.create(aKey({ prefix: 'abcdefghij', accountId: STORAGE_CONTRACT_PARENTS.accountIds[1] }));
      expect(await keys.get(key.id)).to.deep.equal(key);
      expect(await keys.findByPrefix('AbCdEfGhIj'), 'prefixes are case-sensitive').to.deep.equal(key);
      expect(await keys.findByPrefix('AbCdEfGhI')).to.equal(null);
    });

    it('refuses a second key with the same prefix and keeps the first', async () => {
      const key = aKey();
      await keys.create(key);
      const second = aKey({ prefix: key.prefix });
      const error = await keys.create(second).then(() => null, (e: unknown) => e);
      expect(error, 'a duplicate prefix is refused').to.not.equal(null);
      expect(await keys.findByPrefix(key.prefix)).to.deep.equal(key);
      expect(await keys.get(second.id)).to.equal(null);
    });

    it('revokes a key, keeps the earliest revocation time, and still finds it by prefix', async () => {
      const key = aKey();
      await keys.create(key);
      expect(await keys.revoke(key.id, new Date(T + 10))).to.deep.equal({ ...key, revokedAt: new Date(T + 10) });
      expect((await keys.revoke(key.id, new Date(T + 20)))?.revokedAt?.getTime(), 'a later time does not move it').to.equal(T + 10);
      expect((await keys.revoke(key.id, new Date(T + 5)))?.revokedAt?.getTime(), 'an earlier time does').to.equal(T + 5);
      expect((await keys.findByPrefix(key.prefix))?.revokedAt?.getTime()).to.equal(T + 5);
    });

    it("lists an account's keys oldest first, revoked ones included, and no other account's", async () => {
      const [first, second] = [aKey({ createdAt: new Date(1_000) }), aKey({ createdAt: new Date(2_000) })];
      await keys.create(second);
      await keys.create(first);
      await keys.create(aKey({ accountId: STORAGE_CONTRACT_PARENTS.accountIds[1] }));
      await keys.revoke(first.id, new Date(3_000));
      const listed = await keys.listByAccount(first.accountId);
      expect(listed.map((k) => k.id)).to.deep.equal([first.id, second.id]);
      expect(listed[0]?.revokedAt?.getTime()).to.equal(3_000);
      expect(await keys.listByAccount(randomUUID())).to.deep.equal([]);
    });

    it('keeps its name and records its last use, never moving it back', async () => {
      const key = aKey({ name: 'billing “prod” 🚀' });
      await keys.create(key);
      expect(await keys.get(key.id)).to.deep.equal(key);
      await keys.touch(key.id, new Date(T + 5_000));
      await keys.touch(key.id, new Date(T + 1_000));
      expect((await keys.get(key.id))?.lastUsedAt?.getTime()).to.equal(T + 5_000);
      await keys.touch(randomUUID(), new Date(T));
    });

    it('returns null when revoking an unknown key', async () => {
      expect(await keys.revoke(randomUUID(), new Date(T))).to.equal(null);
    });
  });
}
