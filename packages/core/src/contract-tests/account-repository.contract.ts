/** The contract of AccountRepository. Every adapter runs it. */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Account } from '../domain/account.js';
import type { AccountRepository } from '../ports/account-repository.js';

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 321);

function anAccount(overrides: Partial<Account> = {}): Account {
  return { id: randomUUID(), name: 'Ada Lovelace', tier: 'starter', status: 'active', createdAt: new Date(T), ...overrides };
}

export function describeAccountRepositoryContract(
  name: string,
  setup: () => Promise<{ subject: AccountRepository; teardown?: () => Promise<void> }>,
): void {
  describe(`AccountRepository contract: ${name}`, () => {
    let accounts: AccountRepository;
    let teardown: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      const made = await setup();
      accounts = made.subject;
      teardown = made.teardown;
    });
    afterEach(async () => teardown?.());

    it('returns null for an unknown id', async () => {
      expect(await accounts.get(randomUUID())).to.equal(null);
    });

    it('round-trips every field, to the millisecond', async () => {
      const a = anAccount({ name: 'Grace “Amazing” Hopper 🚀', tier: 'ultra', status: 'suspended' });
      await accounts.create(a);
      expect(await accounts.get(a.id)).to.deep.equal(a);
    });

    it('refuses a second account with the same id and keeps the first', async () => {
      const a = anAccount();
      await accounts.create(a);
      const error = await accounts.create({ ...a, name: 'Impostor' }).then(() => null, (e: unknown) => e);
      expect(error, 'a duplicate id is refused').to.not.equal(null);
      expect(await accounts.get(a.id)).to.deep.equal(a);
    });

    it('applies a patch, returns the account as it now is, and keeps fields the patch leaves out', async () => {
      const a = anAccount();
      await accounts.create(a);
      expect(await accounts.update(a.id, { status: 'suspended' })).to.deep.equal({ ...a, status: 'suspended' });
      expect(await accounts.update(a.id, { tier: 'max' })).to.deep.equal({ ...a, status: 'suspended', tier: 'max' });
      expect(await accounts.update(a.id, {})).to.deep.equal({ ...a, status: 'suspended', tier: 'max' });
      expect(await accounts.get(a.id)).to.deep.equal({ ...a, status: 'suspended', tier: 'max' });
    });

    it('returns null when updating an unknown account and does not create it', async () => {
      const id = randomUUID();
      expect(await accounts.update(id, { tier: 'plus' })).to.equal(null);
      expect(await accounts.get(id)).to.equal(null);
    });

    it('lists every account oldest first', async () => {
      const made = [anAccount({ createdAt: new Date(T + 2) }), anAccount({ createdAt: new Date(T) }), anAccount({ createdAt: new Date(T + 1) })];
      for (const a of made) await accounts.create(a);
      const mine = new Set(made.map((a) => a.id));
      const listed = (await accounts.list()).filter((a) => mine.has(a.id));
      expect(listed).to.deep.equal([made[1], made[2], made[0]]);
    });
  });
}
