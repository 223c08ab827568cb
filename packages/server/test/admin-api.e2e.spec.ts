/**
 * The admin API as a billing site uses it, with `RunloadAdminClient`, against real server
 * processes: one on SQLite, and two sharing PostgreSQL and Redis. A change made on one instance
 * (a suspension, a key or admin token revoked) is refused on the other within a second; a month's
 * usage matches the runs executed; the CSV parses back to the JSON; the audit trail holds no secret.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { conformingFetch, createResponseChecker, parseCsv } from '@runload/api-schema/testing';
import { RunloadAdminClient, RunloadClient, RunloadError } from '@runload/client';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { openDatabase } from '@runload/storage-adapter';
import { waitFor } from '@runload/core/testing';
import { cliJson, REPO_ROOT, startServerProcess, tempDataDir, type ServerProcess } from './processes.js';

const pgUrl = process.env['RUNLOAD_TEST_PG_URL'];
const redisUrl = process.env['RUNLOAD_TEST_REDIS_URL'];
if ((!pgUrl || !redisUrl) && process.env['CI'] === 'true') throw new Error('CI=true needs RUNLOAD_TEST_PG_URL and RUNLOAD_TEST_REDIS_URL');

const WORKFLOW = JSON.parse(readFileSync(path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json'), 'utf8')) as Record<string, unknown>;

interface Setting {
  readonly name: string;
  readonly instances: number;
  /** Extra environment and a cleanup, or null when the setting cannot run here. */
  prepare(dataDir: string): Promise<{ env: Record<string, string>; cleanup(): Promise<void> } | null>;
}

const SETTINGS: Setting[] = [
  { name: 'SQLite, one instance', instances: 1, prepare: async () => ({ env: {}, cleanup: async () => undefined }) },
  {
    name: 'PostgreSQL and Redis, two instances',
    instances: 2,
    prepare: async (dataDir) => {
      if (!pgUrl || !redisUrl) return null;
      const dbName = `runload_admin_${randomBytes(4).toString('hex')}`;
      const root = openDatabase({ url: pgUrl, dataDir });
      await root.raw(`CREATE DATABASE ${dbName}`);
      const url = new URL(pgUrl);
      url.pathname = `/${dbName}`;
      return {
        env: { RUNLOAD_DATABASE_URL: url.toString(), RUNLOAD_REDIS_URL: redisUrl },
        cleanup: async () => {
          await root.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
          await root.destroy();
        },
      };
    },
  },
];


for (const setting of SETTINGS) {
  (setting.instances > 1 && (!pgUrl || !redisUrl) ? describe.skip : describe)(`admin API end to end (${setting.name})`, function () {
    this.timeout(180_000);
    const data = tempDataDir();
    let fake: FakeComfyUI;
    let servers: ServerProcess[] = [];
    let env: Record<string, string>;
    let cleanup: () => Promise<void> = async () => undefined;
    let token: { token_id: string; token: string };
    const checker = createResponseChecker();
    const conforming = conformingFetch(checker, (input, init) => fetch(input, init));
    const checked = ((input: string | URL | Request, init?: RequestInit) => conforming(String(input), init)) as typeof fetch;
    const admin = (i: number) => new RunloadAdminClient({ baseUrl: servers[i % servers.length]!.url, adminToken: token.token, fetch: checked, retry: false });
    const other = () => servers.length - 1;

    before(async () => {
      fake = await startFakeComfyUI({ executionMs: 50 });
      const prepared = await setting.prepare(data.dir);
      cleanup = prepared!.cleanup;
      const limitsFile = path.join(data.dir, 'limits.json');
      writeFileSync(limitsFile, JSON.stringify({ tiers: { enterprise: { runs_per_minute: 100, runs_per_hour: 1000, gpu_seconds_per_month: 500000 } } }));
      env = { RUNLOAD_DATA_DIR: data.dir, RUNLOAD_COMFYUI_URLS: fake.url, RUNLOAD_LIMITS_FILE: limitsFile, RUNLOAD_LOG_LEVEL: 'silent', ...prepared!.env };
      await cliJson(['migrate'], env);
      token = await cliJson<{ token_id: string; token: string }>(['admin-tokens', 'create', '--name', 'billing', '--scopes', '*'], env);
      servers = await Promise.all(Array.from({ length: setting.instances }, () => startServerProcess(env)));
    });

    after(async () => {
      await Promise.all(servers.map((s) => s.stop('SIGTERM')));
      await fake?.close();
      await cleanup();
      data.remove();
    });

    it('subscribes an account on a limits-file tier, issues a key, bills its month, and suspends it on every instance within a second', async () => {
      const account = await admin(0).createAccount('Ada, "Countess"', 'enterprise');
      expect(account).to.include({ tier: 'enterprise', status: 'active' });
      const key = await admin(0).createKey(account.account_id, { name: 'prod' });
      const user = new RunloadClient({ baseUrl: servers[other()]!.url, apiKey: key.api_key, fetch: checked, retry: false });
      const app = await admin(0).publishApp({ name: 'Blur', workflow: WORKFLOW, expose: ['2:blur_radius'] });

      const runs = [];
      for (const radius of [2, 5]) {
        const created = await user.createRun(app.app_version_id, { inputs: { '2:blur_radius': radius } });
        runs.push(await user.waitForRun(created.run_id, { polling: true, pollIntervalMs: 50 }));
      }
      expect(runs.map((r) => r.status)).to.deep.equal(['succeeded', 'succeeded']);
      const month = new Date().toISOString().slice(0, 7);
      const usage = await admin(other()).usage(month);
      const mine = usage.accounts.find((a) => a.account_id === account.account_id);
      const gpu = runs.reduce((sum, r) => sum + (r.metrics.gpu_seconds ?? 0), 0);
      expect(mine?.runs).to.deep.equal({ succeeded: 2, failed: 0, canceled: 0, expired: 0 });
      expect(mine?.gpu_seconds).to.be.closeTo(gpu, 0.002);
      expect((await admin(0).getAccount(account.account_id)).gpu_seconds_used).to.be.closeTo(gpu, 0.002);

      const { csv } = await admin(0).usageCsv(month);
      const [header, ...rows] = parseCsv(csv);
      expect(header?.join(',')).to.equal('account_id,name,tier,gpu_seconds,succeeded,failed,canceled,expired');
      const back = rows.map(([account_id, name, tier, g, s, f, c, e]) => ({ account_id, name, tier, gpu_seconds: Number(g), runs: { succeeded: Number(s), failed: Number(f), canceled: Number(c), expired: Number(e) } }));
      expect(back).to.deep.equal(usage.accounts);

      await admin(0).suspendAccount(account.account_id);
      await waitFor(
        async () => (await fetch(`${servers[other()]!.url}/api/v1/account`, { headers: { authorization: `Bearer ${key.api_key}` } })).status === 403,
        'the suspension to reach the other instance',
        { timeoutMs: 1_000, intervalMs: 50 },
      );
      const error = await user.getAccount().catch((e: unknown) => e);
      expect(RunloadError.is(error) && error.status).to.equal(403);
    });

    it('revokes a key and an admin token on every instance within a second, and keeps no secret in the audit trail', async () => {
      const account = await admin(0).createAccount('Grace', 'plus');
      const key = await admin(0).createKey(account.account_id);
      const onOther = () => fetch(`${servers[other()]!.url}/api/v1/account`, { headers: { authorization: `Bearer ${key.api_key}` } });
      expect((await onOther()).status).to.equal(200);
      await admin(0).revokeKey(key.key_id);
      await waitFor(async () => (await onOther()).status === 401, 'the key revocation to reach the other instance', { timeoutMs: 1_000, intervalMs: 50 });

      const spare = await cliJson<{ token_id: string; token: string }>(['admin-tokens', 'create', '--name', 'spare', '--scopes', 'read'], env);
      const spareOnOther = () => fetch(`${servers[other()]!.url}/api/v1/admin/tiers`, { headers: { authorization: `Bearer ${spare.token}` } });
      expect((await spareOnOther()).status).to.equal(200);
      await cliJson(['admin-tokens', 'revoke', spare.token_id], env);
      await waitFor(async () => (await spareOnOther()).status === 401, 'the admin token revocation to reach the other instance', { timeoutMs: 1_000, intervalMs: 50 });

      const trail = await admin(other()).audit({ limit: 100 });
      const actions = trail.entries.map((e) => e.action);
      for (const action of ['account.create', 'key.create', 'key.revoke', 'app.publish', 'account.suspend', 'admin_token.create', 'admin_token.revoke']) expect(actions).to.include(action);
      expect(trail.entries.find((e) => e.action === 'key.revoke')).to.include({ actor: `token:${token.token_id}`, target: key.key_id });
      expect(trail.entries.find((e) => e.action === 'admin_token.revoke')).to.include({ actor: 'cli', target: spare.token_id });
      const text = JSON.stringify(trail);
      for (const secret of [key.api_key, spare.token, token.token]) expect(text).not.to.contain(secret.split('_')[2]);
    });
  });
}
