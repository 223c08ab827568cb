/**
 * The contract of the operator's reads: accounts paged with filters, runs of every account, and
 * usage per account and month. Every adapter runs it; the runs' app version is the contract parent.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Account } from '../domain/account.js';
import type { RunStatus } from '../domain/run.js';
import type { AccountRepository } from '../ports/account-repository.js';
import type { GpuLedger } from '../ports/gpu-ledger.js';
import type { RunRepository } from '../ports/run-repository.js';
import type { AccountUsage, UsageRepository } from '../ports/usage-repository.js';
import { aContractRun } from './run-repository.contract.js';

const T = Date.UTC(2030, 4, 10, 12, 0, 0, 0);
const MAY = { from: new Date(Date.UTC(2030, 4, 1)), to: new Date(Date.UTC(2030, 5, 1)) };

export interface AdminQueriesSubjects {
  readonly accounts: AccountRepository;
  readonly runs: RunRepository;
  readonly ledger: GpuLedger;
  readonly usage: UsageRepository;
  readonly teardown?: () => Promise<void>;
}

export function describeAdminQueriesContract(name: string, setup: () => Promise<AdminQueriesSubjects>): void {
  describe(`operator reads contract: ${name}`, () => {
    let s: AdminQueriesSubjects;
    beforeEach(async () => {
      s = await setup();
    });
    afterEach(async () => s.teardown?.());

    const account = async (overrides: Partial<Account>): Promise<Account> => {
      const a: Account = { id: randomUUID(), name: 'acct', tier: 'starter', status: 'active', createdAt: new Date(T), ...overrides };
      await s.accounts.create(a);
      return a;
    };

    it('pages accounts newest first, filtered by tier and status', async () => {
      const made = [
        await account({ createdAt: new Date(T + 3), tier: 'enterprise' }),
        await account({ createdAt: new Date(T + 2), status: 'suspended' }),
        await account({ createdAt: new Date(T + 1), tier: 'enterprise', status: 'suspended' }),
      ];
      const seen: string[] = [];
      let after: string | null = null;
      do {
        const page = await s.accounts.listPage({ limit: 2, after });
        seen.push(...page.accounts.map((a) => a.id));
        after = page.nextCursor;
      } while (after !== null);
      expect(seen.slice(0, 3)).to.deep.equal(made.map((a) => a.id));
      expect((await s.accounts.listPage({ limit: 10, tier: 'enterprise' })).accounts.map((a) => a.id)).to.deep.equal([made[0]?.id, made[2]?.id]);
      expect((await s.accounts.listPage({ limit: 10, tier: 'enterprise', status: 'suspended' })).accounts.map((a) => a.id)).to.deep.equal([made[2]?.id]);
    });

    it('lists the runs of every account newest first, by account and by status', async () => {
      const [a, b] = [await account({}), await account({})];
      const runs = [
        aContractRun({ accountId: a.id, createdAt: new Date(T + 1) }),
        aContractRun({ accountId: b.id, createdAt: new Date(T + 2), status: 'running' as RunStatus }),
        aContractRun({ accountId: a.id, createdAt: new Date(T + 3) }),
      ];
      for (const r of runs) await s.runs.create(r);
      const first = await s.runs.listAll({ limit: 2 });
      const rest = await s.runs.listAll({ limit: 10, after: first.nextCursor });
      const mine = [...first.runs, ...rest.runs].map((r) => r.id).filter((id) => runs.some((r) => r.id === id));
      expect(mine).to.deep.equal([runs[2]?.id, runs[1]?.id, runs[0]?.id]);
      expect((await s.runs.listAll({ limit: 10, accountId: a.id })).runs.map((r) => r.id)).to.deep.equal([runs[2]?.id, runs[0]?.id]);
      expect((await s.runs.listAll({ limit: 10, accountId: b.id, status: 'running' })).runs.map((r) => r.id)).to.deep.equal([runs[1]?.id]);
      expect((await s.runs.listAll({ limit: 10, accountId: a.id, status: 'running' })).runs).to.deep.equal([]);
    });

    it("sums a month's charges and counts the runs that ended in it per account, zeros for an idle one", async () => {
      const [busy, idle] = [await account({ createdAt: new Date(T - 2) }), await account({ createdAt: new Date(T - 1) })];
      const end = async (status: RunStatus, finishedAt: number, seconds: number) => {
        const run = aContractRun({ accountId: busy.id, createdAt: new Date(finishedAt - 1), status, finishedAt: new Date(finishedAt) });
        await s.runs.create(run);
        if (seconds > 0) await s.ledger.charge({ accountId: busy.id, runId: run.id, seconds, chargedAt: new Date(finishedAt) });
      };
      await end('succeeded', T, 1.5);
      await end('succeeded', T + 10, 2);
      await end('failed', T + 20, 0.25);
      await end('canceled', T + 30, 0);
      await end('expired', T + 40, 0);
      await end('succeeded', MAY.to.getTime() + 5, 100);
      await s.runs.create(aContractRun({ accountId: busy.id, createdAt: new Date(T) }));
      const seen: AccountUsage[] = [];
      let after: string | null = null;
      do {
        const page = await s.usage.byAccount(MAY.from, MAY.to, { limit: 1, after });
        seen.push(...page.accounts);
        after = page.nextCursor;
      } while (after !== null);
      const of = (id: string) => seen.find((u) => u.account.id === id);
      expect(of(busy.id)?.gpuSeconds).to.be.closeTo(3.75, 1e-9);
      expect(of(busy.id)?.runs).to.deep.equal({ succeeded: 2, failed: 1, canceled: 1, expired: 1 });
      expect(of(busy.id)?.account).to.deep.equal(busy);
      expect(of(idle.id)).to.deep.include({ gpuSeconds: 0, runs: { succeeded: 0, failed: 0, canceled: 0, expired: 0 } });
      expect(seen.filter((u) => u.account.id === busy.id), 'each account once').to.have.length(1);
      expect(await s.usage.runsInFlight(busy.id)).to.deep.equal({ queued: 1, running: 0 });
    });
  });
}
